"""The ``QueueManager`` port: what the handler and the drain need from MQ.

It is a small, typed slice of the MQI. Adapters: the embedded queue manager
(:mod:`dlqhandler.qmgr.embedded.manager`, SQLite) and IBM MQ (:mod:`dlqhandler.qmgr.ibmmq.adapter`).
Both pass the contract suite in ``tests/qmgr/contract/``.

Semantics follow the MQI:

* A connection has at most one unit of work in flight. Gets and puts with
  ``syncpoint=True`` join it; :meth:`QueueManager.commit` makes them visible /
  final, :meth:`QueueManager.backout` restores got messages (incrementing their
  BackoutCount) and drops uncommitted puts. A connection that ends without
  commit (disconnect, process killed) backs out.
* Failures raise :class:`dlqhandler.errors.MQIError` with the MQ reason code
  (2033 MQRC_NO_MSG_AVAILABLE, 2053 MQRC_Q_FULL, ...).
* Message properties: a returned :class:`Message` is its own message handle
  (``Message.properties``), as if every MQGET supplied one, so with IBM's default
  MQGMO_PROPERTIES_AS_Q_DEF the properties arrive beside the data unless the
  queue is PROPCTL(FORCE); ``GetOptions.properties``/``msg_handle`` ask for what
  the other MQGMO_PROPERTIES_* options and a get without a handle do. A put
  carries the message's properties (``PutOptions.new_msg_handle`` replaces them,
  ``original_msg_handle`` with an ``action`` copies an original's: MQACTP_*).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from dlqhandler.errors import MQIError
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import MessageHandle, Property

__all__ = [
    "DEFAULT_DYNAMIC_NAME",
    "Answers",
    "GetOptions",
    "MessageHandle",
    "ObjectType",
    "PutOptions",
    "QMgrInfo",
    "Queue",
    "QueueInfo",
    "QueueManager",
    "browse_all",
    "outgoing_properties",
]

_MQRC_NO_MSG_AVAILABLE = 2033
DEFAULT_DYNAMIC_NAME = "AMQ.*"  # IBM's initial MQOD.DynamicQName on distributed platforms

# What MQOPEN with MQOO_INQUIRE can open (MQOT_Q_MGR, MQOT_Q, MQOT_PROCESS), and what
# MQINQ answers: selector -> value.
ObjectType = Literal["qmgr", "queue", "process"]
Answers = dict[int, int | str]


@dataclass(frozen=True, slots=True)
class GetOptions:
    """MQGMO + match options, as keyword fields.

    * ``browse``: ``"first"`` / ``"next"`` browse (non-destructive) from the
      queue handle's browse cursor; ``"under_cursor"`` browses the message under the
      cursor again, leaving the cursor where it is (MQGMO_BROWSE_MSG_UNDER_CURSOR;
      2034 MQRC_NO_MSG_UNDER_CURSOR before any browse); ``None`` is a destructive get.
    * ``under_cursor``: destructive get of the message under the browse cursor
      (MQGMO_MSG_UNDER_CURSOR).
    * ``lock``: with a browse, lock the message so other handles neither browse
      nor get it until this handle gets it, browses on or unlocks (MQGMO_LOCK).
    * ``msg_id`` / ``correl_id`` / ``group_id``: match these (MQMO_MATCH_*).
    * ``logical_order`` / ``all_msgs_available``: group handling (MQGMO_*).
    * ``complete_msg`` (MQGMO_COMPLETE_MSG): a segmented logical message comes back
      whole (its segments joined in Offset order, the first segment's MQMD with
      MsgFlags saying it is the only segment), and only once all its segments are
      there; ``all_segments_available`` (MQGMO_ALL_SEGMENTS_AVAILABLE): segments come
      back one by one, but only those of a logical message whose segments are all there.
    * ``wait_ms``: 0 = no wait; -1 = wait forever (MQWI_UNLIMITED).
    * ``properties``: MQGMO_PROPERTIES_AS_Q_DEF (the queue's PROPCTL decides),
      ``_IN_HANDLE``, ``_FORCE_MQRFH2`` (in an MQRFH2 in front of the data),
      ``_COMPATIBILITY``, or MQGMO_NO_PROPERTIES.
    * ``msg_handle``: ``True`` (default): the returned Message is the handle;
      ``False``: no handle (MQHM_NONE), as an application that supplies none;
      a :class:`MessageHandle`: it is filled too (MQGMO.MsgHandle).
    """

    browse: Literal["first", "next", "under_cursor"] | None = None
    under_cursor: bool = False
    lock: bool = False
    syncpoint: bool = True
    wait_ms: int = 0
    msg_id: bytes | None = None
    correl_id: bytes | None = None
    group_id: bytes | None = None
    logical_order: bool = False
    all_msgs_available: bool = False
    complete_msg: bool = False
    all_segments_available: bool = False
    properties: Literal["as_q_def", "in_handle", "force_rfh2", "compatibility", "none"] = "as_q_def"
    msg_handle: bool | MessageHandle = True


@dataclass(frozen=True, slots=True)
class PutOptions:
    """MQPMO + MQOD fields for MQPUT/MQPUT1.

    * ``context``: ``"pass_all"`` keeps identity and origin context byte for byte
      (MQPMO_PASS_ALL_CONTEXT; what the DLQ handler uses), ``"set_all"`` takes
      them from the given MQMD (MQPMO_SET_ALL_CONTEXT; what dmpmqmsg -C A uses),
      ``"set_identity"`` takes the identity context from the MQMD and lets the queue
      manager fill the origin context (MQPMO_SET_IDENTITY_CONTEXT), ``"none"`` puts
      no context at all (MQPMO_NO_CONTEXT: blank, null and zero fields, PutApplType
      MQAT_NO_CONTEXT), ``"default"`` lets the queue manager fill them from the putter.
    * ``alternate_user``: put with this user's authority
      (MQPMO_ALTERNATE_USER_AUTHORITY; PUTAUT(CTX)); MQRC_NOT_AUTHORIZED when
      the authority records deny it.
    * ``new_msg_id``: generate a MsgId even when the MQMD has one.
    * ``new_correl_id``: generate a CorrelId (MQPMO_NEW_CORREL_ID) in place of the
      MQMD's.
    * ``new_msg_handle`` (MQPMO.NewMsgHandle): its properties are the message's,
      in place of ``Message.properties``.
    * ``logical_order`` (MQPMO_LOGICAL_ORDER, MQPUT on a queue handle only): the queue
      manager sets GroupId, MsgSeqNumber and Offset from the group and segment status
      it keeps for the handle; the MQMD's MsgFlags say where the message stands.
    * ``original_msg_handle`` (MQPMO.OriginalMsgHandle) with ``action``
      (MQPMO.Action, MQACTP_*): ``"new"`` (the default), ``"forward"`` and
      ``"report"`` carry the original's properties (those the new handle, or the
      message, does not set itself), ``"reply"`` copies none.
    """

    syncpoint: bool = True
    context: Literal["pass_all", "set_all", "set_identity", "none", "default"] = "pass_all"
    alternate_user: str | None = None
    new_msg_id: bool = False
    new_correl_id: bool = False
    new_msg_handle: MessageHandle | None = None
    original_msg_handle: MessageHandle | None = None
    action: Literal["new", "forward", "reply", "report"] = "new"
    logical_order: bool = False


@dataclass(frozen=True, slots=True)
class QMgrInfo:
    """What MQINQ on the queue manager object returns that we use."""

    name: str
    dead_letter_q_name: str
    ccsid: int
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class QueueInfo:
    """Queue attributes (DISPLAY QLOCAL), current depth included."""

    name: str
    curdepth: int
    maxdepth: int
    maxmsgl: int
    put_enabled: bool
    get_enabled: bool
    attributes: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Queue(Protocol):
    """An open queue handle (MQOPEN result). One browse cursor per handle."""

    @property
    def name(self) -> str: ...

    def get(self, options: GetOptions = GetOptions()) -> Message:
        """MQGET. The returned message's MQMD carries BackoutCount and the
        remaining Expiry. Raises MQIError 2033 when nothing matches in time."""
        ...

    def put(self, message: Message, options: PutOptions = PutOptions()) -> MQMD:
        """MQPUT to this queue; returns the MQMD as put (MsgId filled in)."""
        ...

    def unlock(self) -> None:
        """Release a lock taken with ``GetOptions(lock=True)`` (MQGMO_UNLOCK)."""
        ...

    def close(self) -> None:
        """MQCLOSE. Closing does not commit or back out the unit of work."""
        ...


@runtime_checkable
class QueueManager(Protocol):
    """A connection to one queue manager (MQCONN result)."""

    @property
    def name(self) -> str: ...

    def inquire(self) -> QMgrInfo:
        """MQINQ on the queue manager: name, DEADQ, CCSID."""
        ...

    def inquire_queue(self, queue: str) -> QueueInfo:
        """Attributes and current depth of a local queue (2085 if unknown)."""
        ...

    def inquire_object(self, objtype: ObjectType, name: str, selectors: Sequence[int]) -> Answers:
        """MQOPEN with MQOO_INQUIRE of the queue manager (``name`` ignored), a queue of
        any type or a process, then MQINQ of ``selectors`` (``MQCA_*``/``MQIA_*`` of
        :mod:`dlqhandler.mq.selectors`).

        Returns each answered selector's value (character attributes without their
        trailing blanks). A selector this queue manager cannot answer
        (MQRC_SELECTOR_ERROR) is left out, never guessed. MQIError 2085
        (MQRC_UNKNOWN_OBJECT_NAME) when the object does not exist.
        """
        ...

    def create_message_handle(self) -> MessageHandle:
        """MQCRTMH: an empty message handle (MQDLTMH is its ``delete``)."""
        ...

    def open(
        self,
        queue: str,
        *,
        input: bool = True,
        browse: bool = True,
        output: bool = False,
        exclusive: bool | None = None,
        qmgr: str = "",
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
    ) -> Queue:
        """MQOPEN (MQOO_INPUT_* / MQOO_BROWSE / MQOO_OUTPUT). ``exclusive`` with ``input``:
        None is MQOO_INPUT_AS_Q_DEF (the queue's DEFSOPT decides), False
        MQOO_INPUT_SHARED, True MQOO_INPUT_EXCLUSIVE; a NOSHARE queue makes every input
        open exclusive. An exclusive open gets MQRC_OBJECT_IN_USE (2042) while another
        handle has the queue open for input, and other input opens get 2042 while it is
        open. ``qmgr`` is MQOD.ObjectQMgrName (blank: this queue manager): another queue
        manager's name resolves, for output only, as :meth:`put1`'s does (2045 with
        input or browse). ``dynamic_name`` is MQOD.DynamicQName, used when ``queue``
        names a model queue: the handle's ``name`` is then the dynamic queue's. A handle
        whose dynamic queue was deleted after it opened gets MQRC_Q_DELETED (2052)."""
        ...

    def put1(
        self, queue: str, message: Message, options: PutOptions = PutOptions(), *, qmgr: str = ""
    ) -> MQMD:
        """MQPUT1 to ``queue`` at ``qmgr`` (blank: this queue manager). Names resolve as
        IBM's "Name resolution" describes: a remote queue definition or another queue
        manager's name to a transmission queue (its own, a queue manager alias's, or
        DEFXMITQ), else 2087."""
        ...

    def commit(self) -> None:
        """MQCMIT the unit of work."""
        ...

    def backout(self) -> None:
        """MQBACK the unit of work."""
        ...

    def disconnect(self) -> None:
        """MQDISC; an open unit of work is backed out first."""
        ...


def outgoing_properties(message: Message, options: PutOptions) -> tuple[Property, ...]:
    """The properties a put carries (see :class:`PutOptions`): the message's, or the new
    handle's, over the original handle's for MQACTP_NEW/FORWARD/REPORT (by name).

    MQACTP_NEW with an OriginalMsgHandle is how IBM puts a new message with properties
    ("set the OriginalMsgHandle field in the MQPMO to the value of this message handle,
    and set the MQPMO Action field to MQACTP_NEW (this is the default value)", *Setting
    properties of a message*), and NewMsgHandle "overrides the values of the
    OriginalMsgHandle, if specified" (*MQPMO NewMsgHandle*). MQACTP_REPLY copies none of
    the original's: MQPD.CopyOptions' default (MQCOPY_DEFAULT) leaves replies out."""
    new = (
        message.properties if options.new_msg_handle is None else options.new_msg_handle.properties
    )
    original = options.original_msg_handle
    if original is None or options.action == "reply":
        return new
    mine = {p.name for p in new}
    return (*(p for p in original.properties if p.name not in mine), *new)


def browse_all(
    queue: Queue,
    *,
    msg_id: bytes | None = None,
    correl_id: bytes | None = None,
    group_id: bytes | None = None,
    msg_handle: bool = True,
) -> Iterator[Message]:
    """Browse every (matching) message from the first, without locks or syncpoint.

    The loop every caller would otherwise write: BROWSE_FIRST, then BROWSE_NEXT
    until MQRC_NO_MSG_AVAILABLE (2033), which ends the iteration. ``msg_handle=False``
    browses as IBM's dmpmqmsg gets: the queue's PROPCTL puts the properties in an
    MQRFH2 in the data (what a dump file carries).
    """
    position: Literal["first", "next"] = "first"
    while True:
        try:
            msg = queue.get(
                GetOptions(
                    browse=position,
                    syncpoint=False,
                    msg_id=msg_id,
                    correl_id=correl_id,
                    group_id=group_id,
                    msg_handle=msg_handle,
                )
            )
        except MQIError as exc:
            if exc.reason == _MQRC_NO_MSG_AVAILABLE:
                return
            raise
        position = "next"
        yield msg
