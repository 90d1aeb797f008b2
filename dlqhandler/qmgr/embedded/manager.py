"""The embedded queue manager: a :class:`~dlqhandler.qmgr.port.QueueManager` on SQLite.

Each MQI call is one short SQLite transaction, so any number of processes can
connect at once (see :mod:`dlqhandler.qmgr.embedded.store` for the unit-of-work
design). A get under syncpoint marks the row as taken by this connection, a
put under syncpoint inserts a row only this connection's commit publishes;
MQCMIT and MQBACK are one transaction each. A connection that dies (its lock
file can be locked) is backed out by the next connection that notices.

Time: ``clock`` (seconds since the epoch, default :func:`time.time`) drives
expiry and PutDate/PutTime; tests inject a fake one. Waits use real time.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from dlqhandler.config import Settings, load_settings
from dlqhandler.errors import ConfigError, DecodeError, MQIError
from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import (
    MQRC_BACKED_OUT,
    MQRC_HCONN_ERROR,
    MQRC_MD_ERROR,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_MSG_TOO_BIG_FOR_Q_MGR,
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_IN_USE,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_PERSISTENT_NOT_ALLOWED,
    MQRC_PUT_INHIBITED,
    MQRC_Q_FULL,
    MQRC_Q_MGR_NAME_ERROR,
    MQRC_Q_TYPE_ERROR,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRO_DISCARD_MSG,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD, decode_mqmd
from dlqhandler.qmgr.embedded.admin import Admin
from dlqhandler.qmgr.embedded.dynamic import DEFAULT_DYNAMIC_NAME, create_dynamic, model_attrs
from dlqhandler.qmgr.embedded.handle import EmbeddedQueue, EventKind, StoredRow
from dlqhandler.qmgr.embedded.images import encode_image, stored_message
from dlqhandler.qmgr.embedded.inquiry import inquire_object
from dlqhandler.qmgr.embedded.inserting import MessageRow, insert_triggered, insert_unarmed
from dlqhandler.qmgr.embedded.lookups import Lookups
from dlqhandler.qmgr.embedded.objects import QueueView, Value
from dlqhandler.qmgr.embedded.propctl import put_properties
from dlqhandler.qmgr.embedded.putting import Putter, qmgr_dead_letter, resolve_md
from dlqhandler.qmgr.embedded.recovery import hold_lock_file, recover_dead_connections
from dlqhandler.qmgr.embedded.remote import Remote, Route, Router
from dlqhandler.qmgr.embedded.reports import Kind, report_for, wants
from dlqhandler.qmgr.embedded.segments import check_segment
from dlqhandler.qmgr.embedded.store import AVAILABLE, TAKEN, QMgrPaths, Store, check_home
from dlqhandler.qmgr.embedded.trigger import Triggers
from dlqhandler.qmgr.embedded.uow import UnitOfWork, back_out, commit
from dlqhandler.qmgr.embedded.xqh import for_transmission
from dlqhandler.qmgr.port import (
    Answers,
    MessageHandle,
    ObjectType,
    PutOptions,
    QMgrInfo,
    QueueInfo,
)

__all__ = ["Clock", "EmbeddedQueueManager", "QueueEvent", "connect"]

Clock = Callable[[], float]
_RECOVERY_INTERVAL = 1.0
_ID_BLOCK = 256
_DEFAULT_PUT = PutOptions()
_ANY_INPUT = "SELECT 1 FROM handles WHERE queue = ? AND input LIMIT 1"
_EXCLUSIVE_INPUT = "SELECT 1 FROM handles WHERE queue = ? AND input = 2 LIMIT 1"


@dataclass(frozen=True, slots=True)
class QueueEvent:
    """Something happened to a queue that triggering (a later feature) reacts to.

    ``put``: a message arrived outside syncpoint; ``commit``: a commit made
    messages available; ``backout``: got messages went back; ``open``/``close``
    of a handle; ``alter``: an admin command defined or changed the queue.
    Triggering itself happens inside those operations' transactions
    (:mod:`dlqhandler.qmgr.embedded.trigger`); observers only watch.
    """

    kind: EventKind
    queue: str
    conn_id: str


Observer = Callable[[QueueEvent], None]


def connect(
    name: str | None = None,
    *,
    settings: Settings | None = None,
    home: Path | None = None,
    user: str | None = None,
    appl_name: str | None = None,
    clock: Clock | None = None,
    observer: Observer | None = None,
) -> EmbeddedQueueManager:
    """MQCONN to the embedded queue manager ``name`` (default: ``$DLQHANDLER_QMGR``).

    Raises MQIError 2058 (MQRC_Q_MGR_NAME_ERROR) when it does not exist.
    """
    s = settings or load_settings()
    qmgrs_dir = (home / "qmgrs") if home is not None else s.qmgrs_dir
    qm_name = name or s.default_qmgr
    if not qm_name:
        raise mqi_error(MQRC_Q_MGR_NAME_ERROR, "no queue manager named and DLQHANDLER_QMGR unset")
    check_home(qmgrs_dir)  # a home that names a file: ConfigError, not "no such QM"
    try:
        paths = QMgrPaths.of(qmgrs_dir, qm_name)
    except ConfigError as exc:
        raise mqi_error(MQRC_Q_MGR_NAME_ERROR, str(exc)) from exc
    return EmbeddedQueueManager(
        paths, user=user, appl_name=appl_name, clock=clock, observer=observer
    )


class EmbeddedQueueManager:
    """One connection to an embedded queue manager (implements ``QueueManager``)."""

    def __init__(
        self,
        paths: QMgrPaths,
        *,
        user: str | None = None,
        appl_name: str | None = None,
        clock: Clock | None = None,
        observer: Observer | None = None,
    ) -> None:
        if not paths.exists():
            raise mqi_error(MQRC_Q_MGR_NAME_ERROR, f"queue manager {paths.name} does not exist")
        self.conn_id = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._paths = paths
        self._putter = Putter.current(user, appl_name)
        self._lock_fd = hold_lock_file(
            paths,
            self.conn_id,
            {"pid": os.getpid(), "user": self._putter.user, "appl": self._putter.appl_name},
        )
        try:
            self.store = Store(paths)
        except BaseException:
            self._release_lock_file()
            raise
        row = self.store.db.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()
        self._name = str(row[0])
        self.clock: Clock = clock or time.time
        self._observer = observer
        self.mutex = self.store.guard
        self._uow = UnitOfWork()
        self._lookups = Lookups(self.store)
        if not self._lookups.authorised(self._putter.user, self._name, "CONNECT", "QMGR"):
            self.store.close()  # MQCONN refused: this connection never existed
            self._release_lock_file()
            raise mqi_error(
                MQRC_NOT_AUTHORIZED,
                f"{self._putter.user} has no CONNECT authority on queue manager {self._name}",
            )
        self._router = Router(self.store, self._lookups, self._name)
        self._handles: dict[int, EmbeddedQueue] = {}
        self._next_handle = 1
        self._ids = (0, 0)
        self._connected = True
        self._log = get_logger("qmgr", qmgr=self._name, conn=self.conn_id)
        self.triggers = Triggers(
            qmgr_name=self._name,
            conn_id=self.conn_id,
            user=self._putter.user,
            clock=self.clock,
            make_id=self._new_id,
            log=self._log,
        )
        self._recovered_at = time.monotonic()
        recover_dead_connections(
            self.store, self.conn_id, scan_db=True, on_closed=self.triggers.inputs_closed
        )

    # -- the port ---------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def user(self) -> str:
        """The user this connection runs as (default-context UserIdentifier)."""
        return self._putter.user

    def inquire(self) -> QMgrInfo:
        with self.mutex:
            self.check_connected()
            self._check_inquire_qmgr()
            attrs = self.admin().qmgr_attributes()
            extra = {k: str(v) for k, v in attrs.items() if k not in ("DEADQ", "CCSID")}
            return QMgrInfo(
                name=self._name,
                dead_letter_q_name=str(attrs["DEADQ"]),
                ccsid=int(attrs["CCSID"]),
                extra=extra,
            )

    def inquire_queue(self, queue: str) -> QueueInfo:
        with self.mutex:
            self.check_connected()
            record = self.admin().queue(queue)
            self._check_inquire(record.name)
            a = record.attrs
            attributes = {k: str(v) for k, v in a.items()}
            attributes.update({k: str(v) for k, v in record.status.items()})
            return QueueInfo(
                name=record.name,
                curdepth=record.status["CURDEPTH"],
                maxdepth=int(a["MAXDEPTH"]),
                maxmsgl=int(a["MAXMSGL"]),
                put_enabled=a["PUT"] == "ENABLED",
                get_enabled=a["GET"] == "ENABLED",
                attributes=attributes,
            )

    def inquire_object(self, objtype: ObjectType, name: str, selectors: Sequence[int]) -> Answers:
        with self.mutex:  # admin() checks the connection
            answers = inquire_object(self.admin(), objtype, name, selectors)
            if objtype == "queue":  # (it exists: IBM's 2085 first, as MQOPEN's)
                self._check_inquire(name.strip())
            elif objtype == "qmgr":
                self._check_inquire_qmgr()
            return answers

    def _check_inquire_qmgr(self) -> None:
        """MQOPEN of the queue manager object with MQOO_INQUIRE needs inq on it
        (SET AUTHREC OBJTYPE(QMGR); IBM's 2035; no record for the user: not limited)."""
        if not self._lookups.authorised(self.user, self._name, "INQ", "QMGR"):
            raise mqi_error(
                MQRC_NOT_AUTHORIZED,
                f"{self.user} has no INQ authority on queue manager {self._name}",
            )

    def _check_inquire(self, queue: str) -> None:
        """MQOPEN with MQOO_INQUIRE needs the inq authority (IBM's 2035, as for the other
        open options: a principal without authority records is not limited here)."""
        if not self._lookups.authorised(self.user, queue, "INQ"):
            raise mqi_error(MQRC_NOT_AUTHORIZED, f"{self.user} has no INQ authority on {queue}")

    def create_message_handle(self) -> MessageHandle:
        return MessageHandle()  # (a value of this process, bound to no connection)

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
    ) -> EmbeddedQueue:
        """The port's MQOPEN; ``qmgr`` (MQOD.ObjectQMgrName, blank: this queue manager)
        may name another queue manager for output (see :mod:`.remote`); ``dynamic_name``
        is MQOD.DynamicQName, used when ``queue`` names a model queue (the handle's
        ``name`` is then the dynamic queue's)."""
        with self.mutex:
            self.check_connected()
            route, model = self._route_or_model(queue, qmgr, reading=input or browse)
            opened = route.checked if route is not None else queue
            for wanted, authority in ((input, "GET"), (browse, "BROWSE"), (output, "PUT")):
                if wanted and not self._lookups.authorised(self.user, opened, authority):
                    raise mqi_error(
                        MQRC_NOT_AUTHORIZED, f"{self.user} has no {authority} authority on {opened}"
                    )
            number = self._next_handle
            self._next_handle += 1
            if model is not None:  # MQOPEN of a model queue creates a dynamic queue
                with self.store.write(durable=True) as db:
                    opened = create_dynamic(
                        db, model, dynamic_name, owner=(self.conn_id, number), now=self.clock()
                    )
                route = Route(opened, None, opened)
            assert route is not None
            view = self.queue_view(route.target)
            queue = view.name  # (an alias: its base queue)
            exclusive = view.input_exclusive(exclusive)  # (SHARE/NOSHARE, DEFSOPT)
            # handles.input: 0 no, 1 shared, 2 exclusive (MQOO_INPUT_EXCLUSIVE)
            row = (
                self.conn_id,
                number,
                queue,
                (2 if exclusive else 1) if input else 0,
                int(output),
            )
            if input:  # the first input handle on an initiation queue: condition 13.3
                if self._input_conflict(queue, exclusive=exclusive):
                    self.recover()  # (a dead connection's handle may be what is in the way)
                with self.store.write(durable=False) as db:
                    if self._input_conflict(queue, exclusive=exclusive, db=db):
                        raise mqi_error(
                            MQRC_OBJECT_IN_USE,
                            f"{queue} is open for input "
                            + ("elsewhere" if exclusive else "exclusively by another handle"),
                        )
                    first = db.execute(
                        "SELECT NOT EXISTS (SELECT 1 FROM handles WHERE queue = ? AND input)",
                        (queue,),
                    ).fetchone()[0]
                    db.execute("INSERT INTO handles VALUES (?, ?, ?, ?, ?)", row)
                    if first:
                        self.triggers.initq_opened(db, queue)
            else:
                self.store.execute("INSERT INTO handles VALUES (?, ?, ?, ?, ?)", row)
            handle = EmbeddedQueue(
                self,
                queue,
                number,
                input=input,
                browse=browse,
                output=output,
                opened_as=route.target,
                remote=route.remote,
                created=model is not None,
            )
            self._handles[number] = handle
            self.emit("open", queue)
            return handle

    def resolve(self, queue: str, qmgr: str = "") -> Route:
        """Queue name resolution for a put to ``queue`` at ``qmgr`` (see :mod:`.remote`)."""
        with self.mutex:
            self.check_connected()
            return self._router.route(queue, qmgr)

    def _open_route(self, queue: str, qmgr: str, *, reading: bool) -> Route:
        """Name resolution for MQOPEN. IBM: "If a queue is opened for any type of input,
        browse, or set, it resolves to a local queue if there is one, and fails if there
        is not one": a remote queue definition or another queue manager opened for input
        or browse is MQRC_OPTION_NOT_VALID_FOR_TYPE (2045)."""
        if not reading:
            return self._router.route(queue, qmgr)
        if qmgr.strip() not in ("", self._name):
            raise mqi_error(
                MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{queue} at {qmgr.strip()}: input or browse"
            )
        try:
            self.queue_view(queue)
        except MQIError as exc:
            if self._router.is_remote(queue, through_alias=exc.reason != MQRC_UNKNOWN_OBJECT_NAME):
                raise mqi_error(
                    MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{queue} is a remote queue: input or browse"
                ) from exc
            raise
        return Route(queue, None, queue)

    def _route_or_model(
        self, queue: str, qmgr: str, *, reading: bool
    ) -> tuple[Route | None, dict[str, Value] | None]:
        """What MQOPEN resolves ``queue`` at ``qmgr`` to, or else the attributes of the
        model queue it names (a model is a local object whose name no other queue has: it
        is looked for only when the name resolves to nothing, so an ordinary open makes no
        extra query); 2085 when it is neither."""
        try:
            return self._open_route(queue, qmgr, reading=reading), None
        except MQIError as exc:
            model = self._model_behind(exc, queue, qmgr)
            if model is None:
                raise
            return None, model

    def _model_behind(self, exc: MQIError, queue: str, qmgr: str) -> dict[str, Value] | None:
        """The attributes of the model queue ``queue`` names, when resolving it failed
        only for want of another queue of that name (2085, on this queue manager)."""
        if exc.reason != MQRC_UNKNOWN_OBJECT_NAME or qmgr.strip() not in ("", self._name):
            return None
        return model_attrs(self.store.db, queue)

    def deftype_of(self, queue: str) -> str:
        """A local queue's definition type (PREDEFINED, PERMDYN, TEMPDYN); "" when the
        queue is gone (a dynamic queue another handle deleted)."""
        try:
            return self.queue_view(queue).deftype
        except MQIError as exc:
            if exc.reason == MQRC_UNKNOWN_OBJECT_NAME:
                return ""
            raise

    def _input_conflict(
        self, queue: str, *, exclusive: bool, db: sqlite3.Connection | None = None
    ) -> bool:
        """Whether an input open of ``queue`` must fail with MQRC_OBJECT_IN_USE (IBM, 2042:
        "if the request is for shared input, but the object is already open for exclusive
        input; it also arises if the request is for exclusive input, but the object is
        already open for input (of any sort)"). ``exclusive`` is the open's effective
        sharing, after DEFSOPT and SHARE/NOSHARE (:meth:`QueueView.input_exclusive`)."""
        sql = _ANY_INPUT if exclusive else _EXCLUSIVE_INPUT
        return (db or self.store.db).execute(sql, (queue,)).fetchone() is not None

    def put1(
        self, queue: str, message: Message, options: PutOptions = _DEFAULT_PUT, *, qmgr: str = ""
    ) -> MQMD:
        with self.mutex:
            self.check_connected()
            try:
                route = self._router.route(queue, qmgr)
            except MQIError as exc:
                if self._model_behind(exc, queue, qmgr) is not None:
                    raise mqi_error(
                        MQRC_Q_TYPE_ERROR, f"{queue} is a model queue (MQPUT1)"
                    ) from exc
                raise
            if not self._lookups.authorised(self.user, route.checked, "PUT"):
                raise mqi_error(
                    MQRC_NOT_AUTHORIZED, f"{self.user} has no PUT authority on {route.checked}"
                )
            return self.put_message(route.target, message, options, remote=route.remote)

    def commit(self) -> None:
        with self.mutex:
            self.check_connected()
            uow = self._uow
            if not uow.active:
                self.store.release(durable=False)  # browse locks only: nothing to make final
                return
            try:
                commit(self.store, uow, self.conn_id)
            except MQIError as exc:
                if exc.reason == MQRC_BACKED_OUT:
                    self._uow = UnitOfWork()
                    self._end_groups(backed_out=True)
                raise
            self._uow = UnitOfWork()
            self._end_groups(backed_out=False)
            for queue in sorted(uow.put_queues):
                self.emit("commit", queue)

    def backout(self) -> None:
        with self.mutex:
            self.check_connected()
            uow = self._uow
            if not uow.active:
                self.store.release(durable=False)
                return
            back_out(self.store, uow, self.conn_id)
            self._uow = UnitOfWork()
            self._end_groups(backed_out=True)
            for queue in sorted(uow.got_queues):
                self.emit("backout", queue)

    def _end_groups(self, *, backed_out: bool) -> None:
        """The unit of work ended: each handle keeps or restores its group status."""
        for handle in self._handles.values():
            handle.end_unit_of_work(backed_out=backed_out)

    def disconnect(self) -> None:
        with self.mutex:
            if not self._connected:
                return
            try:
                for step in (self.backout, *(h.close for h in list(self._handles.values()))):
                    try:
                        step()
                    except MQIError as exc:
                        # Disk full: what could not be undone stays this connection's;
                        # once the lock file is released below, the next connection
                        # backs it out (as for a killed process).
                        self._log.warning(
                            "disconnect_cleanup_failed", reason=exc.reason, detail=exc.detail
                        )
            finally:
                self._connected = False
                self.store.close()
                self._release_lock_file()

    def __enter__(self) -> EmbeddedQueueManager:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.disconnect()

    # -- administration -----------------------------------------------------------
    def admin(self) -> Admin:
        """Admin commands (MQSC's DEFINE/ALTER/DELETE...) on this queue manager."""
        self.check_connected()
        return Admin(
            self.store,
            self._name,
            self.clock,
            on_alter=lambda queue: self.emit("alter", queue),
            recover=self.recover,
            triggers=self.triggers,
        )

    def recover(self) -> list[str]:
        """Back out the units of work of dead connections now; returns their ids."""
        with self.mutex:
            self._recovered_at = time.monotonic()
            return recover_dead_connections(
                self.store, self.conn_id, scan_db=True, on_closed=self.triggers.inputs_closed
            )

    # -- internals shared with EmbeddedQueue ----------------------------------------
    def check_connected(self) -> None:
        if not self._connected:
            raise mqi_error(MQRC_HCONN_ERROR, "connection is closed")

    def _release_lock_file(self) -> None:
        try:
            self._paths.lock_file(self.conn_id).unlink(missing_ok=True)
        finally:
            os.close(self._lock_fd)

    def emit(self, kind: EventKind, queue: str) -> None:
        if self._observer is not None:
            self._observer(QueueEvent(kind, queue, self.conn_id))

    def queue_view(self, queue: str, *, missing: int = MQRC_UNKNOWN_OBJECT_NAME) -> QueueView:
        return self._lookups.queue(queue, missing=missing)

    def maybe_recover(self) -> bool:
        """Back out dead connections if not done for a while; True if any were found."""
        if time.monotonic() - self._recovered_at < _RECOVERY_INTERVAL:
            return False
        self._recovered_at = time.monotonic()
        return bool(
            recover_dead_connections(
                self.store, self.conn_id, scan_db=False, on_closed=self.triggers.inputs_closed
            )
        )

    def new_id(self) -> bytes:
        """A new unique id (a MsgId, a GroupId, a CorrelId), as MQ makes them."""
        return self._new_id()

    def _new_id(self, db: sqlite3.Connection | None = None) -> bytes:
        """A new MsgId; ``db``: the open transaction to draw a new block of ids in."""
        low, high = self._ids
        if low >= high:
            sql = "UPDATE sequences SET value = value + ? WHERE name = 'msgid' RETURNING value"
            row = (
                db.execute(sql, (_ID_BLOCK,))
                if db is not None
                else self.store.run(sql, (_ID_BLOCK,))
            ).fetchone()
            high = int(row[0])
            low = high - _ID_BLOCK
        self._ids = (low + 1, high)
        prefix = self._name.encode("latin-1", "replace")[:12].ljust(12, b" ")
        return b"AMQ " + prefix + low.to_bytes(8, "big")

    def put_message(
        self,
        target: str,
        message: Message,
        options: PutOptions,
        *,
        remote: Remote | None,
        missing: int = MQRC_UNKNOWN_OBJECT_NAME,
        report: bool = False,
    ) -> MQMD:
        """MQPUT: check, resolve the MQMD (:mod:`.putting`), wrap it for a remote queue
        manager (:mod:`.xqh`), insert the row (:mod:`.inserting`, triggering included),
        and join the unit of work (:mod:`.uow`) or tell the observer. ``report``: a report
        the queue manager generates (a segment's report without data is no application's
        empty segment: IBM's 2253 is for an application's MQPUT)."""
        qv = self.queue_view(target, missing=missing)
        if not report:
            check_segment(message.md, len(message.body))
        if remote is not None:  # (the definitions on the way: see .remote)
            self._router.check_put(remote)
            qv = remote.defaults_of(qv)
        if not qv.put_enabled:
            raise mqi_error(MQRC_PUT_INHIBITED, target)
        alt = options.alternate_user
        if alt is not None and not self._lookups.authorised(alt, target, "PUT"):
            raise mqi_error(MQRC_NOT_AUTHORIZED, f"{alt} has no PUT authority on {target}")
        target = qv.name  # (an alias queue's messages go on its base queue)
        now = self.clock()
        try:  # (an MQRFH2 at the start of the data becomes properties: see .propctl)
            message, blob = put_properties(message, options, qv.propctl)  # (None: none)
        except DecodeError as exc:
            raise mqi_error(MQRC_MD_ERROR, str(exc)) from exc
        md = resolve_md(
            message.md,
            queue=qv,
            context=options.context,
            putter=self._putter,
            alternate_user=alt,
            now=now,
            new_msg_id=options.new_msg_id,
            make_id=self._new_id,
            qmgr_name=self._name,
            new_correl_id=options.new_correl_id,
        )
        if md.persistence == 1 and qv.deftype == "TEMPDYN":
            raise mqi_error(MQRC_PERSISTENT_NOT_ALLOWED, f"{target} is a temporary dynamic queue")
        stored, data = md, message.body
        try:
            if remote is not None and remote.qmgr:  # (a transmission queue)
                stored, data = for_transmission(remote.queue, remote.qmgr, md, data)
            length = len(data) + len(blob or b"")  # (IBM counts properties in)
            if length > self._lookups.max_msg_length():  # (the queue manager's limit first)
                raise mqi_error(
                    MQRC_MSG_TOO_BIG_FOR_Q_MGR,
                    f"{length} bytes > the queue manager's MAXMSGL"
                    f"({self._lookups.max_msg_length()})",
                )
            if length > qv.maxmsgl:
                raise mqi_error(
                    MQRC_MSG_TOO_BIG_FOR_Q, f"{length} bytes > MAXMSGL({qv.maxmsgl}) of {target}"
                )
            image = encode_image(stored)
        except DecodeError as exc:
            raise mqi_error(MQRC_MD_ERROR, str(exc)) from exc
        syncpoint = options.syncpoint
        arrived = remote is None or not remote.qmgr  # (not bound for another qmgr)
        coa = arrived and wants("coa", md) and self._destination(qv)
        if syncpoint and not report:  # (the COA it would make counts: IBM's 2024)
            self._uow.room(1 + coa, self._lookups.max_uncommitted())
        row = MessageRow.of(
            qv, stored, image, data, blob, now=now, owner=self.conn_id if syncpoint else None
        )
        durable = bool(row.persistent) and not syncpoint
        row_id = None
        if not qv.triggered:
            row_id = insert_unarmed(
                self.store, row, qv.maxdepth, syncpoint=syncpoint, durable=durable
            )
            if row_id is None and not self.queue_view(target, missing=missing).triggered:
                raise mqi_error(MQRC_Q_FULL, f"{target} is at MAXDEPTH({qv.maxdepth})")
        if row_id is None:  # armed for triggering (or just now)
            row_id, written = insert_triggered(
                self.store,
                self.triggers,
                row,
                durable=durable,
                syncpoint=syncpoint,
                missing=missing,
            )
            if syncpoint:
                self._uow.joined_triggers(self.store, written.pending, written.put)
        if syncpoint:
            self._uow.joined_put(self.store, row_id, queue=target, persistent=bool(row.persistent))
        else:
            self.emit("put", target)
        if coa:
            self.send_report("coa", md, data, syncpoint=syncpoint)  # (arrived: IBM's COA)
        return md

    def check_uncommitted(self, n: int) -> None:
        """MQIError 2024 unless ``n`` more messages fit in the unit of work (MAXUMSGS)."""
        self._uow.room(n, self._lookups.max_uncommitted())

    def joined_get(self, queue: str, message_id: int, persistent: bool) -> None:
        """Note a get under syncpoint in the unit of work."""
        self._uow.joined_get(self.store, message_id, queue=queue, persistent=persistent)

    def message_of(self, row: StoredRow) -> Message:
        """A stored row as MQGET returns it (see :mod:`.images`)."""
        return stored_message(row, self.clock)

    def discard_expired(self, message_id: int, handle: int, persistent: bool) -> None:
        """Remove an expired message (outside any unit of work) and send its report."""
        row = self.store.execute(
            "DELETE FROM messages WHERE id = ? AND state = ? AND (lock_conn IS NULL"
            " OR (lock_conn = ? AND lock_handle = ?)) RETURNING md, body",
            (message_id, AVAILABLE, self.conn_id, handle),
            durable=persistent,
        ).fetchone()
        if row is not None:  # else someone else discarded (and reported) it
            self._report_expiry(row[0], row[1])

    def discard_taken(
        self, message_id: int, image: bytes, body: bytes, *, persistent: bool, deleted: bool
    ) -> None:
        """Discard an expired message a get just claimed (or deleted), outside the UOW."""
        if not deleted:
            self.store.execute(
                "DELETE FROM messages WHERE id = ? AND owner = ? AND state = ?",
                (message_id, self.conn_id, TAKEN),
                durable=persistent,
            )
        self._report_expiry(image, body)

    def _report_expiry(self, image: bytes, body: bytes) -> None:
        md = decode_mqmd(image)
        self._log.debug("message_expired", msgid=md.msg_id.hex(), report=wants("expiration", md))
        self.send_report("expiration", md, bytes(body), syncpoint=False)

    # -- reports the queue manager generates (see .reports) -------------------------
    def send_report(self, kind: Kind, md: MQMD, body: bytes, *, syncpoint: bool) -> None:
        """Put the ``kind`` report ``md`` asks for on its ReplyToQ at ReplyToQMgr (in the
        unit of work when ``syncpoint``); one that cannot be put there goes to the
        dead-letter queue with an MQDLH giving the reason, unless the report carries
        MQRO_DISCARD_MSG (then it is discarded); one that cannot go there either is
        logged and dropped (never the caller's failure)."""
        report = report_for(kind, md, body, qmgr_name=self._name, now=self.clock())
        if report is None:
            return
        options = PutOptions(syncpoint=syncpoint, context="set_all")
        try:
            route = self._router.route(md.reply_to_q, md.reply_to_q_mgr)
            self.put_message(route.target, report, options, remote=route.remote, report=True)
            return
        except MQIError as exc:
            reason = exc.reason
        if report.md.report & MQRO_DISCARD_MSG:
            self._log.info(f"{kind}_report_discarded", reason=reason)
            return
        deadq = self._deadq()
        try:
            if not deadq:
                raise mqi_error(MQRC_UNKNOWN_OBJECT_NAME, "no dead-letter queue (DEADQ)")
            dead = qmgr_dead_letter(
                report.md,
                report.body,
                reason=reason,
                dest_q_name=md.reply_to_q.strip(),
                dest_q_mgr_name=md.reply_to_q_mgr.strip() or self._name,
                qmgr_name=self._name,
                now=self.clock(),
            )
            self.put_message(deadq, dead, options, remote=None, report=True)
        except MQIError as exc:
            self._log.warning(
                f"{kind}_report_failed",
                reply_to_q=md.reply_to_q,
                reply_to_q_mgr=md.reply_to_q_mgr,
                reason=reason,
                dlq_reason=exc.reason,
            )

    def _destination(self, qv: QueueView) -> bool:
        """Whether a message on ``qv`` is on its destination queue (for COA and COD):
        not on a transmission queue, not on the dead-letter queue."""
        if qv.xmitq:
            return False
        return qv.name != self._deadq()

    def _deadq(self) -> str:
        """The queue manager's DEADQ (blank: none)."""
        return str(self.admin().qmgr_attributes().get("DEADQ", "")).strip()

    def delivered(self, queue: str, message: Message, *, syncpoint: bool) -> None:
        """A destructive get of ``message`` from ``queue``: its COD report, if asked for
        and ``queue`` is its destination (in the get's unit of work)."""
        md = message.md
        if wants("cod", md) and self._destination(self.queue_view(queue)):
            self.send_report("cod", md, message.body, syncpoint=syncpoint)

    def forget_handle(self, number: int) -> None:
        self._handles.pop(number, None)
