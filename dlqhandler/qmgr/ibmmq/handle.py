"""An open queue handle on IBM MQ (implements the port's ``Queue``).

The handle keeps what the adapter must remember per MQ object handle: its open
options (to reopen it after a reconnect), the MQGET buffer size that has been
enough so far, and which message the queue manager saved the context of (the
last destructive get: what MQPMO_PASS_ALL_CONTEXT would copy). The MQI calls
go through the connection's ``_mqi`` (error mapping, reconnection).
:class:`PropertyHandles` is the connection's pool of message handles that carry
the properties of recently got messages.

A handle on a dynamic queue. IBM's MQPUT on a handle whose dynamic queue was deleted
after the handle opened is MQRC_Q_DELETED (2052); the handle's context puts go by MQPUT1
(per-put context and authority, see the adapter's module docstring), which names the
queue and would say MQRC_UNKNOWN_OBJECT_NAME (2085) instead, so a 2085 from the MQPUT1
of a handle opened on this queue manager is answered as 2052: the queue the handle
opened is gone. After a reconnect a handle that created a temporary dynamic queue is
not reopened (IBM deletes such a queue when its connection ends, and reopening by its
name or its model's would open nothing or another queue): it answers 2052, as does a
handle whose queue no longer exists when it is reopened. Not matched: a queue of the
same name created again after the deletion receives the handle's context puts (MQPUT1
names it), where IBM fails every call through the old handle with 2052; see
docs/ibmmq.md.

A handle knows its connection only as :class:`Connection`, the protocol the
adapter (:class:`~dlqhandler.qmgr.ibmmq.adapter.IBMMQQueueManager`) implements,
so this module does not import the adapter: the adapter depends on the handle,
never the other way round.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_CONNECTION_BROKEN,
    MQRC_HOBJ_ERROR,
    MQRC_NO_MSG_LOCKED,
    MQRC_NOT_OPEN_FOR_OUTPUT,
    MQRC_Q_DELETED,
    MQRC_TRUNCATED_MSG_FAILED,
    MQRC_UNKNOWN_OBJECT_NAME,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import MessageHandle, Property, PropertyType, make_property
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings
from dlqhandler.qmgr.ibmmq.mapping import (
    CONTEXT_FIELDS,
    MQCHAR_ENCODING,
    gmo_options,
    md_from_ibmmq,
    open_options,
)
from dlqhandler.qmgr.ibmmq.properties import read_properties, set_properties
from dlqhandler.qmgr.port import GetOptions, PutOptions

__all__ = ["Connection", "IBMMQQueue", "Key", "PropertyHandles", "context_of", "mq_name"]

T = TypeVar("T")

Key = tuple[bytes, bytes]
_DEFAULT_GET = GetOptions()
_DEFAULT_PUT = PutOptions()
_MAX_BUFFER = 104_857_600  # MQ's largest message (100 MB)
_TRUNCATION_RETRIES = 3
# Set in a message handle before a get fills it for a caller's own handle (see _get_once).
_UNTOUCHED = make_property("dlqhandlerHandleUntouched", PropertyType.BOOLEAN, True)


def mq_name(value: str) -> bytes:
    """An object or user name as an MQCHAR field value."""
    return value.strip().encode(MQCHAR_ENCODING)


def context_of(md: MQMD) -> tuple[object, ...]:
    """The identity and origin context fields of ``md`` (what PASS_ALL_CONTEXT passes)."""
    return tuple(getattr(md, f) for f in CONTEXT_FIELDS)


class PropertyHandles:
    """Message handles (MQCRTMH) that hold the properties of the last N messages got.

    Each handle goes with the properties it is known to hold; a handle taken from the
    free list is emptied first (``clear``, MQDLTMP of each), so that a get that leaves
    a handle as it was (a PROPCTL(FORCE) queue) never reads another message's."""

    def __init__(
        self,
        create: Callable[[], Any],
        capacity: int,
        clear: Callable[[Any, tuple[Property, ...]], None],
    ) -> None:
        self._create = create
        self._clear = clear
        self._capacity = capacity
        self._free: list[tuple[Any, tuple[Property, ...]]] = []
        self._held: OrderedDict[Key, tuple[Any, tuple[Property, ...]]] = OrderedDict()

    def acquire(self) -> Any:
        if not self._free:
            return self._create()
        handle, props = self._free.pop()
        if props:
            try:
                self._clear(handle, props)
            except BaseException:
                self._free.append((handle, props))
                raise
        return handle

    def release(self, handle: Any, props: tuple[Property, ...] = ()) -> None:
        self._free.append((handle, props))

    def remember(self, key: Key, handle: Any, props: tuple[Property, ...] = ()) -> None:
        old = self._held.pop(key, None)
        if old is not None and old[0] is not handle:
            self._free.append(old)
        self._held[key] = (handle, props)
        while len(self._held) > self._capacity:
            self._free.append(self._held.popitem(last=False)[1])

    def find(self, key: Key) -> tuple[Any, tuple[Property, ...]] | None:
        """The handle that holds the properties of the message got with ``key``, and
        those properties."""
        return self._held.get(key)

    def reset(self) -> None:
        """Forget every handle (they died with the connection)."""
        self._free.clear()
        self._held.clear()


class Connection(Protocol):
    """What a queue handle needs from its connection (the adapter's MQI plumbing)."""

    mq: Any
    settings: IBMMQSettings
    props: PropertyHandles
    log: Any
    uow_active: bool
    broken: bool
    connected: bool

    @property
    def mutex(self) -> AbstractContextManager[Any]: ...
    def mqi(self, what: str, call: Callable[[], T], *, retry: bool) -> T: ...
    def check_connected(self) -> None: ...
    def open_object(self, name: str, options: int) -> Any: ...
    def open_queue(
        self, name: str, options: int, *, qmgr: str = "", dynamic_name: str = ""
    ) -> tuple[Any, str]: ...
    def drop_connection(self) -> None: ...
    def error(self, exc: Any, what: str) -> MQIError: ...
    def forget(self, handle: IBMMQQueue) -> None: ...
    def put_structs(self, message: Message, options: PutOptions) -> tuple[Any, Any]: ...
    def put_tolerating_warning(self, obj: Any, body: bytes, md: Any, pmo: Any) -> int: ...
    def end_put(self) -> None: ...
    def put1(
        self, queue: str, message: Message, options: PutOptions = ..., *, qmgr: str = ""
    ) -> MQMD: ...


class IBMMQQueue:
    """An MQOPEN handle on IBM MQ (implements the port's ``Queue``)."""

    def __init__(
        self,
        qm: Connection,
        name: str,
        *,
        input: bool,
        browse: bool,
        output: bool,
        exclusive: bool | None = None,
        qmgr: str = "",
        dynamic_name: str = "",
    ) -> None:
        self._qm = qm
        self._name = name.strip()
        self._qmgr = qmgr.strip()
        self._dynamic_name = dynamic_name
        self._opened = False  # the first MQOPEN succeeded
        self.temporary = False  # it created a temporary dynamic queue (the adapter says)
        self._deleted = False  # its queue is gone: MQRC_Q_DELETED
        self._input, self._browse, self._output = input, browse, output
        self.open_options = open_options(
            qm.mq.CMQC, input=input, browse=browse, output=output, exclusive=exclusive
        )
        self._obj: Any = None
        self._open = True
        self._buffer = qm.settings.buffer_size
        # (MsgId, CorrelId) and context of the message whose context MQ saved here.
        self._saved: tuple[Key, tuple[object, ...]] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def hobj(self) -> int:
        """The MQ object handle (what MQPMO.Context takes)."""
        return int(self._live().get_handle())

    # -- the port -------------------------------------------------------------------
    def get(self, options: GetOptions = _DEFAULT_GET) -> Message:
        self._live()
        return self._qm.mqi(
            f"MQGET {self._name}",
            lambda: self._get_once(options),
            retry=not options.under_cursor and options.browse != "under_cursor",
        )

    def put(self, message: Message, options: PutOptions = _DEFAULT_PUT) -> MQMD:
        self._live()
        if not self._output:
            raise mqi_error(MQRC_NOT_OPEN_FOR_OUTPUT, self._name)
        if not options.logical_order and (
            options.context != "default" or options.alternate_user is not None
        ):
            # Context and alternate-user puts need open options this handle was not
            # opened with; MQPUT1 checks the same authority per put (as runmqdlq does).
            # (A logical-order put needs this handle: its group status is the handle's.)
            try:
                return self._qm.put1(self._name, message, options, qmgr=self._qmgr)
            except MQIError as exc:
                if exc.reason != MQRC_UNKNOWN_OBJECT_NAME or self._qmgr:
                    raise
                self._deleted = True
                raise mqi_error(
                    MQRC_Q_DELETED, f"{self._name} was deleted after this handle opened it"
                ) from exc
        qm = self._qm

        def call() -> Any:
            try:
                md, pmo = qm.put_structs(message, options)
                # IBM may answer MQCC_WARNING with the message put (2241/2242 right after a
                # logical-order MQPUT that left a group or logical message unfinished; 2049
                # for a Priority over MaxPriority); the port has no warnings, and a failure
                # would be a lie: the caller would put the message again.
                qm.put_tolerating_warning(self._live(), message.body, md, pmo)
            finally:
                qm.end_put()
            return md

        md_out = qm.mqi(f"MQPUT {self._name}", call, retry=options.syncpoint)
        if options.syncpoint:
            qm.uow_active = True
        return md_from_ibmmq(md_out)

    def unlock(self) -> None:
        self._live()
        mq = self._qm.mq

        def call() -> None:
            gmo = mq.GMO()
            gmo.Options = mq.CMQC.MQGMO_UNLOCK
            try:
                self._live().get(0, mq.MD(), gmo)
            except mq.MQMIError as exc:
                if exc.reason != MQRC_NO_MSG_LOCKED:
                    raise

        self._qm.mqi(f"MQGET(UNLOCK) {self._name}", call, retry=True)

    def close(self) -> None:
        qm = self._qm
        with qm.mutex:
            if not self._open:
                return
            self._open = False
            qm.forget(self)
            obj, self._obj = self._obj, None
            if obj is None or qm.broken or not qm.connected:
                return
            try:
                obj.close()
            except qm.mq.MQMIError as exc:
                if exc.reason == MQRC_CONNECTION_BROKEN:
                    qm.drop_connection()
                    return
                if exc.comp == qm.mq.CMQC.MQCC_WARNING:  # (2241/2242: closed all the same)
                    qm.log.info("mq_close_warning", queue=self._name, reason=int(exc.reason))
                    return
                raise qm.error(exc, f"MQCLOSE {self._name}") from exc

    # -- helpers ----------------------------------------------------------------------
    def _live(self) -> Any:
        self._qm.check_connected()  # (IBM checks Hconn before Hobj: 2018 after MQDISC)
        if not self._open:
            raise mqi_error(MQRC_HOBJ_ERROR, f"{self._name} handle is closed")
        if self._deleted:
            raise mqi_error(MQRC_Q_DELETED, f"{self._name} was deleted after this handle opened")
        if self._obj is None and not self._qm.broken:
            raise mqi_error(MQRC_HOBJ_ERROR, f"{self._name} could not be reopened")
        return self._obj

    def _reopen(self) -> None:
        """MQOPEN: the first (a model queue: the handle is the dynamic queue's, and so is
        its name), or again after a reconnect (see the module docstring)."""
        self._obj = None
        self._saved = None
        if self._opened and (self.temporary or self._deleted):
            self._deleted = True  # a temporary dynamic queue ends with its connection
            return
        mq = self._qm.mq
        try:
            self._obj, self._name = self._qm.open_queue(
                self._name, self.open_options, qmgr=self._qmgr, dynamic_name=self._dynamic_name
            )
        except mq.MQMIError as exc:
            if self._opened and exc.reason == MQRC_UNKNOWN_OBJECT_NAME and not self._qmgr:
                self._deleted = True
                return
            raise
        self._opened = True

    def _request(self, options: GetOptions) -> Any:
        md = self._qm.mq.MD()
        if options.msg_id is not None:
            md.MsgId = bytes(options.msg_id).ljust(24, b"\x00")
        if options.correl_id is not None:
            md.CorrelId = bytes(options.correl_id).ljust(24, b"\x00")
        if options.group_id is not None:
            md.GroupId = bytes(options.group_id).ljust(24, b"\x00")
        return md

    def _get_once(self, options: GetOptions) -> Message:
        qm, mq = self._qm, self._qm.mq
        flags, wait, match = gmo_options(mq.CMQC, options)
        plain = options.browse is None and not options.under_cursor
        md = self._request(options)
        length = self._buffer
        # A message handle unless the caller wants none (MQHM_NONE). For a caller's own
        # handle a mark goes in first: still there after the get, the queue manager left
        # the handle as it was (a PROPCTL(FORCE) queue), and so is the caller's.
        props = qm.props.acquire() if options.msg_handle is not False else None
        caller = options.msg_handle if isinstance(options.msg_handle, MessageHandle) else None
        mark = (_UNTOUCHED,) if props is not None and caller is not None else ()
        filled = False  # a got message's properties may be in the handle
        try:
            set_properties(mq, props, mark)
            for attempt in range(_TRUNCATION_RETRIES + 1):
                gmo = mq.GMO()
                gmo.Options = flags
                gmo.WaitInterval = wait
                gmo.MatchOptions = match
                gmo.MsgHandle = props.get_handle() if props is not None else mq.CMQC.MQHM_NONE
                try:
                    body = self._live().get(length, md, gmo)
                    break
                except mq.MQMIError as exc:
                    if exc.comp == mq.CMQC.MQCC_WARNING and exc.reason != MQRC_TRUNCATED_MSG_FAILED:
                        # IBM's MQGET warnings come with the message got (2241/2242 on a get
                        # without MQGMO_LOGICAL_ORDER after one with it; 2245...): only 2080
                        # leaves it on the queue. A failure here would lose it.
                        qm.log.info("mq_get_warning", queue=self._name, reason=int(exc.reason))
                        body = exc.message
                        break
                    if exc.reason != MQRC_TRUNCATED_MSG_FAILED or attempt == _TRUNCATION_RETRIES:
                        raise
                    needed = int(getattr(exc, "original_length", 0) or 0)
                    length = min(needed if needed > length else length * 2, _MAX_BUFFER)
                    self._buffer = max(self._buffer, length)
                    qm.log.debug("mq_get_truncated", queue=self._name, needed=needed, buffer=length)
                    if plain and not options.logical_order:
                        # Take exactly the message that did not fit (its ids are in md).
                        match |= mq.CMQC.MQMO_MATCH_MSG_ID | mq.CMQC.MQMO_MATCH_CORREL_ID
                    else:
                        md = self._request(options)  # the cursor did not move
            filled = True
            held: tuple[Property, ...] = ()
            held = read_properties(mq, props) if props is not None else ()
        except BaseException:
            if props is not None and not filled:  # it holds at most the mark
                qm.props.release(props, mark)
            raise
        untouched = bool(mark) and any(p.name == _UNTOUCHED.name for p in held)
        properties = () if untouched else held
        got = md_from_ibmmq(md)
        key = (got.msg_id, got.correl_id)
        if props is not None:
            qm.props.remember(key, props, held)
        if caller is not None and not untouched:
            caller.replace_all(properties)
        if options.browse is not None:
            # IBM (MQRC_CONTEXT_NOT_AVAILABLE): no context to pass once "the last
            # successful MQGET call was a browse".
            self._saved = None
        else:
            self._saved = (key, context_of(got))
            if options.syncpoint:
                qm.uow_active = True
        return Message(got, bytes(body), None, properties)
