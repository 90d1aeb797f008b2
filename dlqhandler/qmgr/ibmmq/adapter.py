"""The IBM MQ adapter: the ``QueueManager`` port over IBM's ``ibmmq`` package.

``ibmmq`` (``pip install 'dlqhandler[ibmmq]'``, plus the IBM MQ C client) is
imported lazily, here only. The MQI usage mirrors runmqdlq (spec section 5):

* **MQCONNX** with MQCNO_LOCAL_BINDING (bindings), MQCNO_CLIENT_BINDING (an
  MQCD from ``conn_name``/``channel`` or ``MQSERVER``, or the client's CCDT)
  or neither (the library decides); MQCNO_RECONNECT_DISABLED, because this
  adapter reconnects itself, between units of work only; MQCSP user and
  password (see :mod:`dlqhandler.qmgr.ibmmq.config`); TLS via
  ``MQCD.SSLCipherSpec`` and ``MQSCO.KeyRepository``.
* **MQOPEN** input handles with MQOO_INPUT_AS_Q_DEF + MQOO_BROWSE +
  MQOO_SAVE_ALL_CONTEXT + MQOO_FAIL_IF_QUIESCING (+ MQOO_OUTPUT).
* **MQGET** with MQGMO_FAIL_IF_QUIESCING and MQGMO_PROPERTIES_IN_HANDLE, an
  MQMD version 2, and an exact-size retry on MQRC_TRUNCATED_MSG_FAILED (the
  buffer the handle uses next grows to fit).
* **MQPUT1** for puts that carry context: how ``PutOptions(context="pass_all")``
  maps is below.
* **disconnect**: MQBACK, MQCLOSE of every handle, then MQDISC (an MQDISC on
  its own would commit).

How the port carries the context handle. The port's ``"pass_all"`` means "the
put message keeps the identity and origin context of the MQMD byte for byte".
MQ can do that two ways: MQPMO_PASS_ALL_CONTEXT, which copies the context the
queue manager saved on an input handle at the last *destructive* get from it
(``MQPMO.Context`` = that handle; a browse saves nothing), or
MQPMO_SET_ALL_CONTEXT from the MQMD. The adapter remembers, per input handle,
which message (MsgId, CorrelId and its eight context fields) the handle's
saved context belongs to. A put of that same message uses
MQPMO_PASS_ALL_CONTEXT with that handle as ``Context`` (runmqdlq's get-then-put
order); any other ``"pass_all"`` put, such as a put issued after a locked
browse but before the get under the cursor, uses MQPMO_SET_ALL_CONTEXT, which
needs ``setall`` authority instead of ``passall``. Either way a message that
was got or browsed on this connection (one of the last ``property_handles``)
and is put with the properties it came with travels as runmqdlq's does:
``MQPMO.OriginalMsgHandle`` is the message handle its MQGET filled, with
``Action = MQACTP_FORWARD``. Any other put with properties (the message's own,
the port's NewMsgHandle, or an original handle under another MQACTP_* action,
resolved by the port's rules) sets them on a message handle of the pool with
MQSETMP and passes it as ``MQPMO.NewMsgHandle``.

Reconnection. When a call fails with MQRC_CONNECTION_BROKEN (2009):

* inside a unit of work, the adapter raises MQIError 2009 at once: the queue
  manager has backed the unit of work out (for MQCMIT its outcome is unknown).
  A later :meth:`~IBMMQQueueManager.backout` acknowledges it; a later
  :meth:`~IBMMQQueueManager.commit` raises MQRC_BACKED_OUT (2003);
* between units of work, it reconnects: ``reconnect_attempts`` MQCONNX tries,
  the first at once, then after ``reconnect_delay`` seconds doubling up to
  ``reconnect_max_delay``; it reopens every open handle (browse cursors and
  locks are gone, as after any reopen) and repeats the call if that is safe
  (browse, inquire, open, a get not under the cursor, a put under syncpoint);
  otherwise it raises MQIError 2009 saying the call was not repeated.

Credentials never reach a log event or an exception message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import (
    MQRC_BACKED_OUT,
    MQRC_CHANNEL_NOT_AVAILABLE,
    MQRC_CONNECTION_BROKEN,
    MQRC_CONNECTION_ERROR,
    MQRC_CONNECTION_QUIESCING,
    MQRC_CONNECTION_STOPPING,
    MQRC_HCONN_ERROR,
    MQRC_HOST_NOT_AVAILABLE,
    MQRC_Q_MGR_NOT_ACTIVE,
    MQRC_Q_MGR_NOT_AVAILABLE,
    MQRC_Q_MGR_QUIESCING,
    MQRC_Q_MGR_STOPPING,
    MQRC_RECONNECT_FAILED,
    MQRC_UNEXPECTED_ERROR,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property
from dlqhandler.mq.selectors import MQIA_DEFINITION_TYPE, MQQDT_TEMPORARY_DYNAMIC
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings, ibmmq_settings_from_env, plan_connection
from dlqhandler.qmgr.ibmmq.handle import IBMMQQueue, PropertyHandles, context_of, mq_name
from dlqhandler.qmgr.ibmmq.inquiry import inquire_object
from dlqhandler.qmgr.ibmmq.mapping import (
    MQCHAR_ENCODING,
    md_from_ibmmq,
    md_to_ibmmq,
    pmo_options,
)
from dlqhandler.qmgr.ibmmq.properties import clear_properties, set_properties
from dlqhandler.qmgr.port import (
    DEFAULT_DYNAMIC_NAME,
    Answers,
    MessageHandle,
    ObjectType,
    PutOptions,
    QMgrInfo,
    QueueInfo,
    outgoing_properties,
)

__all__ = ["IBMMQQueue", "IBMMQQueueManager", "connect"]

T = TypeVar("T")
Sleep = Callable[[float], None]
_DEFAULT_PUT = PutOptions()
# MQCONNX failures worth another try while a queue manager or channel comes back.
_TRANSIENT_CONNECT = frozenset(
    {
        MQRC_CONNECTION_BROKEN,
        MQRC_Q_MGR_NOT_AVAILABLE,
        MQRC_HOST_NOT_AVAILABLE,
        MQRC_CHANNEL_NOT_AVAILABLE,
        MQRC_Q_MGR_QUIESCING,
        MQRC_Q_MGR_STOPPING,
        MQRC_CONNECTION_QUIESCING,
        MQRC_CONNECTION_STOPPING,
        MQRC_Q_MGR_NOT_ACTIVE,
        MQRC_CONNECTION_ERROR,
        MQRC_RECONNECT_FAILED,
    }
)
_NO_ID = bytes(24)


def _same(a: tuple[Property, ...], b: tuple[Property, ...]) -> bool:
    return len(a) == len(b) and all(x.same_as(y) for x, y in zip(a, b, strict=True))


def _load_ibmmq() -> Any:
    """The ``ibmmq`` module, or a ConfigError saying what is missing."""
    try:
        import ibmmq
    except ImportError as exc:
        raise ConfigError(
            "the IBM MQ adapter needs the ibmmq package and the IBM MQ C client "
            "(libmqm_r): pip install 'dlqhandler[ibmmq]' on a machine with the MQ client "
            f"installed ({exc})"
        ) from exc
    return ibmmq


def _text(raw: object) -> str:
    data = raw if isinstance(raw, bytes) else str(raw).encode(MQCHAR_ENCODING)
    return data.split(b"\x00", 1)[0].decode(MQCHAR_ENCODING).strip()


class IBMMQQueueManager:
    """One connection to an IBM MQ queue manager (implements ``QueueManager``)."""

    def __init__(self, settings: IBMMQSettings, *, sleep: Sleep = time.sleep) -> None:
        self.settings = settings
        self.mq = _load_ibmmq()
        self._plan = plan_connection(settings)
        self._sleep = sleep
        self.mutex = threading.RLock()
        self.log = get_logger("qmgr.ibmmq", qmgr=settings.qmgr or "(default)")
        self._queues: list[IBMMQQueue] = []
        self._inquiry: dict[str, Any] = {}
        self.props = PropertyHandles(
            self._new_message_handle,
            settings.property_handles,
            lambda handle, props: clear_properties(self.mq, handle, props),
        )
        self._outgoing: list[tuple[Any, tuple[Property, ...]]] = []
        self._name = settings.qmgr
        self._qmo: Any = None
        self.connected = False
        self.broken = False
        self.uow_active = False
        self._uow_lost = False
        self._connect()

    # -- the port -------------------------------------------------------------------
    @property
    def name(self) -> str:
        if not self._name:
            self._name = self.inquire().name
        return self._name

    def inquire(self) -> QMgrInfo:
        c = self.mq.CMQC
        selectors = [c.MQCA_Q_MGR_NAME, c.MQCA_DEAD_LETTER_Q_NAME, c.MQIA_CODED_CHAR_SET_ID]
        attrs = self.mqi("MQINQ qmgr", lambda: self._qmo.inquire(selectors), retry=True)
        return QMgrInfo(
            name=_text(attrs[c.MQCA_Q_MGR_NAME]),
            dead_letter_q_name=_text(attrs[c.MQCA_DEAD_LETTER_Q_NAME]),
            ccsid=int(attrs[c.MQIA_CODED_CHAR_SET_ID]),
        )

    def create_message_handle(self) -> MessageHandle:
        """MQCRTMH: a handle whose properties a put sets (see ``_put_structs``)."""
        return MessageHandle()

    def inquire_queue(self, queue: str) -> QueueInfo:
        c = self.mq.CMQC
        name = queue.strip()
        selectors = [
            c.MQIA_CURRENT_Q_DEPTH,
            c.MQIA_MAX_Q_DEPTH,
            c.MQIA_MAX_MSG_LENGTH,
            c.MQIA_INHIBIT_PUT,
            c.MQIA_INHIBIT_GET,
        ]

        def call() -> Any:
            obj = self._inquiry.get(name)
            if obj is None:
                obj = self.open_object(name, c.MQOO_INQUIRE | c.MQOO_FAIL_IF_QUIESCING)
                self._inquiry[name] = obj
            try:
                return obj.inquire(selectors)
            except self.mq.MQMIError:
                self._inquiry.pop(name, None)  # deleted or changed: reopen next time
                raise

        a = self.mqi(f"MQINQ {name}", call, retry=True)
        put_ok = int(a[c.MQIA_INHIBIT_PUT]) == c.MQQA_PUT_ALLOWED
        get_ok = int(a[c.MQIA_INHIBIT_GET]) == c.MQQA_GET_ALLOWED
        attributes = {
            "CURDEPTH": str(int(a[c.MQIA_CURRENT_Q_DEPTH])),
            "MAXDEPTH": str(int(a[c.MQIA_MAX_Q_DEPTH])),
            "MAXMSGL": str(int(a[c.MQIA_MAX_MSG_LENGTH])),
            "PUT": "ENABLED" if put_ok else "DISABLED",
            "GET": "ENABLED" if get_ok else "DISABLED",
        }
        return QueueInfo(
            name=name,
            curdepth=int(a[c.MQIA_CURRENT_Q_DEPTH]),
            maxdepth=int(a[c.MQIA_MAX_Q_DEPTH]),
            maxmsgl=int(a[c.MQIA_MAX_MSG_LENGTH]),
            put_enabled=put_ok,
            get_enabled=get_ok,
            attributes=attributes,
        )

    def inquire_object(self, objtype: ObjectType, name: str, selectors: Sequence[int]) -> Answers:
        what = "MQINQ qmgr" if objtype == "qmgr" else f"MQINQ {objtype} {name.strip()}"
        return self.mqi(
            what, lambda: inquire_object(self.mq, self._qmo, objtype, name, selectors), retry=True
        )

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
    ) -> IBMMQQueue:
        with self.mutex:
            handle = IBMMQQueue(
                self,
                queue,
                input=input,
                browse=browse,
                output=output,
                exclusive=exclusive,
                qmgr=qmgr,
                dynamic_name=dynamic_name,
            )
            self.mqi(f"MQOPEN {handle.name}", handle._reopen, retry=True)
            self._queues.append(handle)
            if handle.name != queue.strip() and not qmgr.strip():
                # MQOPEN of a model: was the queue it created temporary? (IBM deletes a
                # temporary dynamic queue when its connection ends: not reopened.)
                try:
                    kind = self.inquire_object("queue", handle.name, [MQIA_DEFINITION_TYPE])
                except MQIError:
                    handle.close()
                    raise
                handle.temporary = kind.get(MQIA_DEFINITION_TYPE) == MQQDT_TEMPORARY_DYNAMIC
            return handle

    def put1(
        self, queue: str, message: Message, options: PutOptions = _DEFAULT_PUT, *, qmgr: str = ""
    ) -> MQMD:
        mq = self.mq

        def call() -> Any:
            od = mq.OD()
            od.ObjectName = mq_name(queue)
            od.ObjectQMgrName = mq_name(qmgr)
            if options.alternate_user is not None:
                od.AlternateUserId = mq_name(options.alternate_user)
            try:
                md, pmo = self.put_structs(message, options)
                self.put1_tolerating_warning(od, message.body, md, pmo)
            finally:
                self.end_put()
            return md

        md_out = self.mqi(f"MQPUT1 {queue.strip()}", call, retry=options.syncpoint)
        if options.syncpoint:
            self.uow_active = True
        return md_from_ibmmq(md_out)

    def commit(self) -> None:
        with self.mutex:
            self.check_connected()
            if self._uow_lost:
                self._uow_lost = False
                self.uow_active = False
                if not self.broken:
                    self.mqi("MQBACK", self._call_backout, retry=False)
                raise mqi_error(
                    MQRC_BACKED_OUT,
                    "the unit of work was backed out when the "
                    "connection to the queue manager broke",
                )
            self.mqi("MQCMIT", self._call_commit, retry=not self.uow_active)
            self.uow_active = False

    def backout(self) -> None:
        with self.mutex:
            self.check_connected()
            self._uow_lost = False
            if self.broken:  # the queue manager backed it out when the connection broke
                self.uow_active = False
                return
            try:
                self.mqi("MQBACK", self._call_backout, retry=False)
            except MQIError as exc:
                if exc.reason != MQRC_CONNECTION_BROKEN:
                    raise
                self._uow_lost = False
            self.uow_active = False

    def disconnect(self) -> None:
        with self.mutex:
            if not self.connected:
                return
            try:
                if not self.broken:
                    self._quietly("MQBACK", self._qmo.backout)  # never let MQDISC commit
                    for handle in list(self._queues):
                        if handle._obj is not None:
                            self._quietly(f"MQCLOSE {handle.name}", handle._obj.close)
                    for obj in self._inquiry.values():
                        self._quietly("MQCLOSE", obj.close)
                    self._quietly("MQDISC", self._qmo.disconnect)
            finally:
                for handle in self._queues:
                    handle._open, handle._obj = False, None
                self._queues.clear()
                self._inquiry.clear()
                self.props.reset()
                self._outgoing.clear()
                self.connected = False
                self.broken = False
                self.log.info("mq_disconnected")

    def __enter__(self) -> IBMMQQueueManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.disconnect()

    # -- MQI plumbing -------------------------------------------------------------------
    # Calls look the connection up when they run: a reconnect replaces ``_qmo``.
    def _call_commit(self) -> None:
        self._qmo.commit()

    def _call_backout(self) -> None:
        self._qmo.backout()

    def mqi(self, what: str, call: Callable[[], T], *, retry: bool) -> T:
        """One MQI call: MQMIError -> MQIError, and the reconnection policy for 2009."""
        mq = self.mq
        with self.mutex:
            self.check_connected()
            if self.broken:
                self._reconnect()
            try:
                return call()
            except mq.MQMIError as exc:
                if exc.reason != MQRC_CONNECTION_BROKEN:
                    raise self.error(exc, what) from exc
                self._on_broken(what, exc)
            except mq.PYIFError as exc:
                raise mqi_error(MQRC_UNEXPECTED_ERROR, f"{what}: {exc}") from exc
            if not retry:
                raise mqi_error(
                    MQRC_CONNECTION_BROKEN,
                    f"{what}: the connection broke; reconnected, but the call was not repeated",
                )
            try:
                return call()
            except mq.MQMIError as exc:
                if exc.reason == MQRC_CONNECTION_BROKEN:
                    self.drop_connection()
                raise self.error(exc, what) from exc

    def _on_broken(self, what: str, exc: Any) -> None:
        """2009: raise if a unit of work was in flight, else reconnect (or raise)."""
        in_uow = self.uow_active
        self.drop_connection()
        self.log.warning(
            "mq_connection_broken", during=what, unit_of_work="backed_out" if in_uow else "none"
        )
        if in_uow:
            self.uow_active = False
            self._uow_lost = not what.startswith("MQCMIT")
            detail = (
                "the outcome of the commit is unknown"
                if what.startswith("MQCMIT")
                else "the queue manager backed the unit of work out"
            )
            raise mqi_error(
                MQRC_CONNECTION_BROKEN,
                f"{what}: the connection broke during a unit of work; {detail}",
            ) from exc
        self._reconnect()

    def error(self, exc: Any, what: str) -> MQIError:
        return mqi_error(int(exc.reason), what, comp=int(exc.comp))

    def check_connected(self) -> None:
        if not self.connected:
            raise mqi_error(MQRC_HCONN_ERROR, "connection is closed")

    def _quietly(self, what: str, call: Callable[[], object]) -> None:
        try:
            call()
        except (self.mq.MQMIError, self.mq.PYIFError) as exc:
            if getattr(exc, "comp", None) == self.mq.CMQC.MQCC_WARNING:  # (done all the same:
                self.log.info("mq_call_warning", call=what, reason=int(exc.reason))  # 2241...)
                return
            self.log.warning("mq_call_failed", call=what, reason=getattr(exc, "reason", None))

    def forget(self, handle: IBMMQQueue) -> None:
        if handle in self._queues:
            self._queues.remove(handle)

    def open_object(self, name: str, options: int) -> Any:
        return self.open_queue(name, options)[0]

    def open_queue(
        self, name: str, options: int, *, qmgr: str = "", dynamic_name: str = ""
    ) -> tuple[Any, str]:
        """MQOPEN of a queue (at ``qmgr``, blank: this one): the handle and the name of
        the queue it opened (a model queue's MQOPEN returns the dynamic queue it created,
        named from ``dynamic_name`` (MQOD.DynamicQName), in MQOD.ObjectName)."""
        od = self.mq.OD()
        od.ObjectName = mq_name(name)
        od.ObjectQMgrName = mq_name(qmgr)
        if dynamic_name:
            od.DynamicQName = mq_name(dynamic_name)
        queue = self.mq.Queue(self._qmo, od, options)
        opened = bytes(od.ObjectName).split(b"\x00", 1)[0].decode(MQCHAR_ENCODING).rstrip(" ")
        return queue, opened or name

    def _new_message_handle(self) -> Any:
        return self.mq.MessageHandle(self._qmo)

    def put_tolerating_warning(self, obj: Any, body: bytes, md: Any, pmo: Any) -> int:
        """MQPUT on ``obj`` that takes MQCC_WARNING as the success it is (the message is
        put) and returns its reason (0: MQCC_OK); MQMIError on MQCC_FAILED. IBM's
        ``Queue.put`` raises on a warning before it reads the MQMD back (MsgId...), so
        this calls the extension's MQPUT itself and unpacks the MQMD and MQPMO."""
        mq = self.mq
        rv = mq.ibmmqc.MQPUT(self._qmo.get_handle(), obj.get_handle(), md.pack(), pmo.pack(), body)
        return self._put_outcome(rv, md, pmo)

    def put1_tolerating_warning(self, od: Any, body: bytes, md: Any, pmo: Any) -> int:
        """MQPUT1 that takes MQCC_WARNING as the success it is, as
        :meth:`put_tolerating_warning` does for MQPUT (IBM's ``put1`` raises on a warning
        though the message is put: MQRC_PRIORITY_EXCEEDS_MAXIMUM, 2049, for one)."""
        mq = self.mq
        rv = mq.ibmmqc.MQPUT1(self._qmo.get_handle(), od.pack(), md.pack(), pmo.pack(), body)
        return self._put_outcome(rv, md, pmo)

    def _put_outcome(self, rv: Any, md: Any, pmo: Any) -> int:
        """What the extension's MQPUT or MQPUT1 returned (``rv``: the MQMD and MQPMO
        buffers, then the completion code and reason): MQMIError on MQCC_FAILED, else the
        MQMD and MQPMO unpacked and the warning's reason (0: MQCC_OK)."""
        mq = self.mq
        comp, reason = int(rv[-2]), int(rv[-1])
        if comp == mq.CMQC.MQCC_FAILED:
            raise mq.MQMIError(comp, reason)
        md.unpack(rv[0])
        pmo.unpack(rv[1])
        if comp:
            self.log.info("mq_put_warning", reason=reason)
        return reason if comp else 0

    def put_structs(self, message: Message, options: PutOptions) -> tuple[Any, Any]:
        """The MQMD and MQPMO for a put (see the module docstring on context)."""
        mq, c = self.mq, self.mq.CMQC
        carried = outgoing_properties(message, options)  # the port's MQACTP_* rules
        md = md_to_ibmmq(mq, message.md)
        key = (message.md.msg_id, message.md.correl_id)
        source = self._context_source(message.md) if options.context == "pass_all" else None
        pmo = mq.PMO()
        pmo.Options = pmo_options(c, options, pass_context=source is not None)
        if source is not None:
            pmo.Context = source.hobj
        if not carried:
            return md, pmo
        held = self.props.find(key) if message.md.msg_id != _NO_ID else None
        if held is not None and _same(held[1], carried):
            # The message as got, forwarded: runmqdlq's way, no MQSETMP.
            pmo.OriginalMsgHandle = held[0].get_handle()
            pmo.Action = c.MQACTP_FORWARD
        else:
            handle = self.props.acquire()
            self._outgoing.append((handle, carried))
            set_properties(mq, handle, carried)
            pmo.NewMsgHandle = handle.get_handle()
        return md, pmo

    def end_put(self) -> None:
        """The handles a put's NewMsgHandle used go back to the pool (emptied on reuse)."""
        while self._outgoing:
            self.props.release(*self._outgoing.pop())

    def _context_source(self, md: MQMD) -> IBMMQQueue | None:
        """The input handle whose saved context is exactly ``md``'s, if any."""
        wanted = ((md.msg_id, md.correl_id), context_of(md))
        for handle in reversed(self._queues):
            if handle._saved == wanted and handle._obj is not None:
                return handle
        return None

    # -- connecting -----------------------------------------------------------------------
    def _connect(self) -> None:
        """MQCONNX as the settings say; MQIError with the reason if it fails."""
        mq, c, s, plan = self.mq, self.mq.CMQC, self.settings, self._plan
        binding = {
            "local": c.MQCNO_LOCAL_BINDING,
            "client": c.MQCNO_CLIENT_BINDING,
            "standard": c.MQCNO_STANDARD_BINDING,
        }[plan.binding]
        cno = mq.CNO()
        cno.Options = binding | c.MQCNO_HANDLE_SHARE_BLOCK | c.MQCNO_RECONNECT_DISABLED
        kwargs: dict[str, Any] = {"cno": cno}
        if plan.channel is not None:
            cd = mq.CD()
            cd.ChannelName = mq_name(plan.channel.channel)
            cd.ConnectionName = mq_name(plan.channel.conn_name)
            cd.ChannelType = mq.CMQXC.MQCHT_CLNTCONN
            cd.TransportType = mq.CMQXC.MQXPT_TCP
            if plan.channel.cipher_spec:
                cd.SSLCipherSpec = mq_name(plan.channel.cipher_spec)
            kwargs["cd"] = cd
        if s.key_repository or s.cert_label:
            sco = mq.SCO()
            if s.key_repository:
                sco.KeyRepository = s.key_repository.encode()
            if s.cert_label:
                sco.CertificateLabel = s.cert_label.encode()
            kwargs["sco"] = sco
        csp = None
        if plan.authenticate and s.user is not None and s.password is not None:
            csp = mq.CSP()
            csp.AuthenticationType = c.MQCSP_AUTH_USER_ID_AND_PWD
            csp.CSPUserId = s.user.encode()
            csp.CSPPassword = s.password.get_secret_value().encode()
            kwargs["csp"] = csp
        qmo = mq.QueueManager(None)
        where = s.qmgr or "the default queue manager"
        try:
            qmo.connect_with_options(mq_name(s.qmgr), **kwargs)
        except mq.MQMIError as exc:
            raise mqi_error(
                int(exc.reason), f"MQCONNX to {where} ({plan.source}) failed", comp=int(exc.comp)
            ) from None
        finally:
            if csp is not None:
                csp.CSPPassword = b""
            kwargs.clear()
        self._qmo = qmo
        self.connected = True
        self.broken = False
        self.log.info(
            "mq_connected",
            source=plan.source,
            tls=plan.tls,
            authenticated=plan.authenticate,
            channel=plan.channel.channel if plan.channel else None,
            conn_name=plan.channel.conn_name if plan.channel else None,
        )

    def _reopen_all(self) -> None:
        """Reopen every open handle on the new connection.

        A handle that cannot be reopened (its queue was deleted meanwhile...) stays
        unusable (MQRC_HOBJ_ERROR); a connection that breaks again is a failed attempt.
        """
        for handle in self._queues:
            try:
                handle._reopen()
            except self.mq.MQMIError as exc:
                if exc.reason == MQRC_CONNECTION_BROKEN:
                    self.drop_connection()
                    raise self.error(exc, f"MQOPEN {handle.name}") from exc
                self.log.warning("mq_reopen_failed", queue=handle.name, reason=int(exc.reason))

    def drop_connection(self) -> None:
        """The connection is gone: forget its handles (MQDISC best effort)."""
        self.broken = True
        self.props.reset()
        self._outgoing.clear()
        self._inquiry.clear()
        for handle in self._queues:
            handle._obj = None
            handle._saved = None
        if self._qmo is not None:
            self._quietly("MQDISC", self._qmo.disconnect)

    def _reconnect(self) -> None:
        """MQCONNX again with backoff, then reopen every handle; MQIError 2009 if not."""
        s = self.settings
        delay = s.reconnect_delay
        last: MQIError | None = None
        for attempt in range(1, s.reconnect_attempts + 1):
            if attempt > 1:
                self._sleep(delay)
                delay = min(delay * 2, s.reconnect_max_delay)
            self.log.info("mq_reconnect_attempt", attempt=attempt)
            try:
                self._connect()
                self._reopen_all()
            except MQIError as exc:
                if exc.reason not in _TRANSIENT_CONNECT:
                    raise
                last = exc
                continue
            self.log.info("mq_reconnected", attempts=attempt)
            return
        self.log.error(
            "mq_reconnect_failed",
            attempts=s.reconnect_attempts,
            reason=last.reason if last else None,
        )
        raise mqi_error(
            MQRC_CONNECTION_BROKEN,
            f"could not reconnect after {s.reconnect_attempts} attempts"
            + (f" (last: {last.reason_name})" if last else ""),
        ) from last


def connect(
    qmgr: str | None = None, *, settings: IBMMQSettings | None = None, sleep: Sleep = time.sleep
) -> IBMMQQueueManager:
    """MQCONNX to IBM MQ queue manager ``qmgr`` (settings from the environment).

    ``settings`` (default :func:`~dlqhandler.qmgr.ibmmq.config.ibmmq_settings_from_env`)
    say how; ``qmgr`` overrides their queue manager name.
    """
    s = settings if settings is not None else ibmmq_settings_from_env(qmgr)
    if qmgr is not None and settings is not None:
        s = IBMMQSettings.model_validate({**s.model_dump(), "qmgr": qmgr.strip()})
    return IBMMQQueueManager(s, sleep=sleep)
