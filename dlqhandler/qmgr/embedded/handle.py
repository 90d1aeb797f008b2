"""An open queue handle of the embedded queue manager (implements ``Queue``).

A handle keeps what MQ keeps per object handle: the browse cursor (position
of the last browsed message), at most one browse lock (MQGMO_LOCK; released
when the cursor moves, by MQGMO_UNLOCK, by a get under the cursor or by
close), and separate group positions for logical-order browsing and getting.

Waiting (``wait_ms``) polls: each round retries the get, then sleeps until
SQLite's ``data_version`` says another connection committed something
(checked every few milliseconds, backing off to 50 ms) or the wait ends.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Literal, Protocol

from dlqhandler.mq.constants import (
    MQRC_GET_INHIBITED,
    MQRC_HMSG_ERROR,
    MQRC_HOBJ_ERROR,
    MQRC_INCOMPLETE_GROUP,
    MQRC_INCOMPLETE_MSG,
    MQRC_INCONSISTENT_BROWSE,
    MQRC_INCONSISTENT_UOW,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NO_MSG_UNDER_CURSOR,
    MQRC_NOT_OPEN_FOR_BROWSE,
    MQRC_NOT_OPEN_FOR_INPUT,
    MQRC_NOT_OPEN_FOR_OUTPUT,
    MQRC_OPTIONS_ERROR,
    MQRC_Q_DELETED,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.qmgr.embedded.dynamic import CloseDelete, check_delete, delete_dynamic
from dlqhandler.qmgr.embedded.objects import QueueView
from dlqhandler.qmgr.embedded.propctl import deliver
from dlqhandler.qmgr.embedded.remote import Remote
from dlqhandler.qmgr.embedded.segments import (
    SEGMENTS_OF,
    PutGroup,
    logical_put,
    reassembled,
    whole,
)
from dlqhandler.qmgr.embedded.selection import (
    BATCH,
    Candidate,
    GroupState,
    Query,
    candidate_query,
    group_state_after,
)
from dlqhandler.qmgr.embedded.store import Store
from dlqhandler.qmgr.embedded.trigger import Triggers
from dlqhandler.qmgr.port import GetOptions, PutOptions

__all__ = ["Connection", "EmbeddedQueue", "EventKind", "StoredRow"]

EventKind = Literal["put", "commit", "backout", "open", "close", "alter"]
# md image, body, BackoutCount, expiry time, properties (see .propctl)
StoredRow = tuple[bytes, bytes, int, float | None, bytes | None]

# "Mine to take": available (state 0) and not locked by another handle.
# A stored message as _message reads it (props: NULL for a message without properties).
_ROW = "md, body, backout_count, expires_at, props"
_LOCK = (
    "UPDATE messages SET lock_conn = ?, lock_handle = ? WHERE id = ? AND state = 0"
    " AND (lock_conn IS NULL OR (lock_conn = ? AND lock_handle = ?))"
    " RETURNING md, body, backout_count, expires_at, props"
)
_PEEK = (
    "SELECT md, body, backout_count, expires_at, props FROM messages WHERE id = ?"
    " AND state = 0 AND (lock_conn IS NULL OR (lock_conn = ? AND lock_handle = ?))"
)
_TAKE = (
    "UPDATE messages SET state = 2, owner = ?, lock_conn = NULL, lock_handle = NULL"
    " WHERE id = ? AND state = 0"
    " AND (lock_conn IS NULL OR (lock_conn = ? AND lock_handle = ?))"
    " RETURNING md, body, backout_count, expires_at, props"
)
_REMOVE = (
    "DELETE FROM messages WHERE id = ? AND state = 0"
    " AND (lock_conn IS NULL OR (lock_conn = ? AND lock_handle = ?))"
    " RETURNING md, body, backout_count, expires_at, props"
)
# The same, for the message this handle has locked and already read (only what can change).
_TAKE_LOCKED = _TAKE.replace(_ROW, "backout_count, expires_at")
_REMOVE_LOCKED = _REMOVE.replace(_ROW, "backout_count, expires_at")
# The first match in one statement; the subquery is candidate_query's (bound values only).
_TAKE_FIRST = (
    "UPDATE messages SET state = 2, owner = :me, lock_conn = NULL, lock_handle = NULL WHERE id ="
)
_REMOVE_FIRST = "DELETE FROM messages WHERE id ="
_RETURN_ALL = "RETURNING md, body, backout_count, expires_at, persistent, id, props"
_LOCK_FIRST = "UPDATE messages SET lock_conn = :conn, lock_handle = :handle WHERE id ="
_RETURN_CANDIDATE = (
    "RETURNING md, body, backout_count, expires_at, props, id, priority,"
    " expires_at,"
    " persistent, msg_flags, group_id, msg_seq_number, seg_offset"
)
_DEFAULT_GET = GetOptions()
_DEFAULT_PUT = PutOptions()
_FIRST_POLL, _MAX_POLL = 0.002, 0.05
_RECOVERY_CHECK = 1.0  # seconds between looks for dead connections while waiting


class Connection(Protocol):
    """What a handle needs of its connection (the embedded queue manager's internals)."""

    conn_id: str
    store: Store
    triggers: Triggers
    clock: Callable[[], float]

    @property
    def mutex(self) -> AbstractContextManager[None]: ...
    def check_connected(self) -> None: ...
    def emit(self, kind: EventKind, queue: str) -> None: ...
    def queue_view(self, queue: str, *, missing: int = ...) -> QueueView: ...
    def maybe_recover(self) -> bool: ...
    def put_message(
        self,
        target: str,
        message: Message,
        options: PutOptions,
        *,
        remote: Remote | None,
        missing: int = ...,
    ) -> MQMD: ...
    def check_uncommitted(self, n: int) -> None: ...
    def joined_get(self, queue: str, message_id: int, persistent: bool) -> None: ...
    def message_of(self, row: StoredRow) -> Message: ...
    def discard_expired(self, message_id: int, handle: int, persistent: bool) -> None: ...
    def discard_taken(
        self, message_id: int, image: bytes, body: bytes, *, persistent: bool, deleted: bool
    ) -> None: ...
    def forget_handle(self, number: int) -> None: ...
    def new_id(self) -> bytes: ...
    def deftype_of(self, queue: str) -> str: ...
    def delivered(self, queue: str, message: Message, *, syncpoint: bool) -> None: ...


class EmbeddedQueue:
    """An MQOPEN handle: browse cursor, browse lock, group positions."""

    def __init__(
        self,
        qm: Connection,
        name: str,
        number: int,
        *,
        input: bool,
        browse: bool,
        output: bool,
        opened_as: str | None = None,
        remote: Remote | None = None,
        created: bool = False,
    ) -> None:
        self._qm = qm
        self._created = created  # MQOPEN of a model queue made this dynamic queue
        self._remote = remote  # a remote queue: puts go on a transmission queue (.remote)
        self._name = name  # the local queue (an alias's base queue)
        self._opened = opened_as or name  # the name MQOPEN was given (its inhibits count)
        self._number = number
        self._input, self._browse, self._output = input, browse, output
        self._open = True
        self._cursor: Candidate | None = None
        self._locked: int | None = None
        # What a browse with MQGMO_LOCK returned: (row id, message, its stored row). A
        # locked message cannot change in the store (no other handle can lock, get or
        # back it out), so the get under the cursor claims it without reading it again.
        self._read: tuple[int, Message, StoredRow] | None = None
        self._browse_group: GroupState | None = None
        self._logical_pos: tuple[int, int] | None = None
        self._get_group: GroupState | None = None
        self._get_group_syncpoint = False  # the syncpoint of the gets in _get_group
        self._last_get_logical = False  # the last successful get was MQGMO_LOGICAL_ORDER
        self._get_warning = 0  # the MQCC_WARNING reason of the last successful get (0: none)
        self._last_browse_logical: bool | None = None  # (None: no browse yet)
        # The get and put group status as the unit of work found it (MQBACK restores it).
        self._before_uow: tuple[GroupState | None, bool, PutGroup | None] | None = None
        self._put_group: PutGroup | None = None  # MQPMO_LOGICAL_ORDER status
        self._last_put_logical = False  # the last successful put was MQPMO_LOGICAL_ORDER
        self._put_warning = 0  # the MQCC_WARNING reason of the last successful put (0: none)
        self._hardenbo = False  # the queue's HARDENBO, as of this call
        self._propctl = "COMPAT"  # the queue's PROPCTL, as of this call

    @property
    def name(self) -> str:
        return self._name

    @property
    def created(self) -> bool:
        """Whether this handle's MQOPEN created its queue (a dynamic queue, from a model
        queue: ``name`` is the dynamic queue's)."""
        return self._created

    @property
    def opened_as(self) -> str:
        """The queue MQOPEN opened: an alias's own name (``name`` is its base queue's), the
        dynamic queue a model's open created."""
        return self._opened

    # -- the port -------------------------------------------------------------------
    def get(self, options: GetOptions = _DEFAULT_GET, *, peek: bool = False) -> Message:
        """MQGET. ``peek`` (a destructive get only, not the port's): the message this get
        would return, left where it is, with no report, no unit of work and no move of
        the handle's group position - what the MQI stand-in reads to learn a message's
        length before it takes it, in logical order too (MQRC_TRUNCATED_MSG_FAILED takes
        nothing)."""
        qm = self._qm
        with qm.mutex:
            self._check(options)
            if peek and (options.browse is not None or options.under_cursor):
                raise mqi_error(MQRC_OPTIONS_ERROR, "peek is for a destructive get")
            self._check_logical(options)
            deadline = None if options.wait_ms < 0 else time.monotonic() + options.wait_ms / 1e3
            while True:
                version = qm.store.data_version() if options.wait_ms else 0
                message = self._attempt(options, peek=peek)
                if message is not None:
                    if options.browse is None and not peek:  # (a destructive get: IBM's COD)
                        qm.delivered(self._name, message, syncpoint=options.syncpoint)
                        self._got(options)
                    elif options.browse in ("first", "next"):
                        self._last_browse_logical = options.logical_order
                    # (a message without properties, the most, is returned as it is)
                    if message.properties or options.msg_handle is not True:
                        return deliver(message, options, self._propctl)
                    return message
                if options.under_cursor or options.browse == "under_cursor":
                    raise mqi_error(MQRC_NO_MSG_UNDER_CURSOR, self._name)
                if qm.maybe_recover():
                    continue  # a dead connection's messages may be back
                if deadline is not None and time.monotonic() >= deadline:
                    raise mqi_error(MQRC_NO_MSG_AVAILABLE, self._name)
                qm.store.release(durable=False)  # never wait holding the write lock
                self._sleep_until_change(version, deadline)
                qm.store.next_attempt()

    def put(self, message: Message, options: PutOptions = _DEFAULT_PUT) -> MQMD:
        qm = self._qm
        with qm.mutex:
            self._check_open()
            if not self._output:
                raise mqi_error(MQRC_NOT_OPEN_FOR_OUTPUT, self._name)
            if not options.logical_order:
                out = qm.put_message(
                    self._opened, message, options, remote=self._remote, missing=MQRC_Q_DELETED
                )
                self._put_warning = self.unfinished_put if self._last_put_logical else 0
                self._last_put_logical = False
                return out
            out = self._put_logical(message, options)
            self._put_warning, self._last_put_logical = 0, True
            return out

    def _put_logical(self, message: Message, options: PutOptions) -> MQMD:
        """MQPMO_LOGICAL_ORDER: the queue manager numbers the message from this handle's
        group status (:mod:`.segments`), which moves only when the put succeeds."""
        qm = self._qm
        md = message.md
        qv = qm.queue_view(self._opened, missing=MQRC_Q_DELETED)
        if self._remote is not None:  # (a remote definition's defaults: see .remote)
            qv = self._remote.defaults_of(qv)
        persistence = qv.defpsist if md.persistence == 2 else md.persistence  # (AS_Q_DEF)
        numbered, status = logical_put(
            self._put_group,
            md,
            length=len(message.body),
            persistence=persistence,
            syncpoint=options.syncpoint,
            make_id=qm.new_id,
        )
        out = qm.put_message(
            self._opened,
            dataclasses.replace(message, md=numbered),
            options,
            remote=self._remote,
            missing=MQRC_Q_DELETED,
        )
        if options.syncpoint:
            self._in_unit_of_work()
        self._put_group = status
        return out

    @property
    def put_warning(self) -> int:
        """The warning IBM gives the last successful MQPUT on this handle (0: none): a put
        without MQPMO_LOGICAL_ORDER right after one with it, while that left a logical
        message (MQRC_INCOMPLETE_MSG, 2242) or a group (MQRC_INCOMPLETE_GROUP, 2241)
        unfinished. The put is made and the group status kept (the port cannot return a
        warning; the MQI shows it)."""
        return self._put_warning

    @property
    def get_warning(self) -> int:
        """The warning IBM gives the last successful destructive MQGET on this handle (0:
        none): a get without MQGMO_LOGICAL_ORDER right after one with it, while that left a
        logical message (MQRC_INCOMPLETE_MSG, 2242) or a group (MQRC_INCOMPLETE_GROUP,
        2241) unfinished. The message is got and the group status kept (the port cannot
        return a warning; the MQI shows it)."""
        return self._get_warning

    @property
    def unfinished_get(self) -> int:
        """MQRC_INCOMPLETE_MSG / MQRC_INCOMPLETE_GROUP when logical-order gets left a
        logical message or a group unfinished on this handle, else 0."""
        if self._get_group is None:
            return 0
        return MQRC_INCOMPLETE_GROUP if self._get_group.segment_done else MQRC_INCOMPLETE_MSG

    def end_unit_of_work(self, *, backed_out: bool) -> None:
        """MQCMIT keeps the group status the unit of work's gets and puts left; MQBACK
        restores the status they found (IBM, MQBACK usage notes: "the group and segment
        information is restored to the value that it had previously")."""
        if backed_out and self._before_uow is not None:
            self._get_group, self._get_group_syncpoint, self._put_group = self._before_uow
        self._before_uow = None

    def _in_unit_of_work(self) -> None:
        """A get or put under syncpoint is about to move the group status: keep what the
        unit of work found, once."""
        if self._before_uow is None:
            self._before_uow = (self._get_group, self._get_group_syncpoint, self._put_group)

    def _check_logical(self, o: GetOptions) -> None:
        """IBM's refusals of a get in or out of logical order, before anything is read:
        MQRC_INCONSISTENT_BROWSE (2259) for a browse-next whose MQGMO_LOGICAL_ORDER differs
        from the previous browse's; MQRC_INCONSISTENT_UOW (2245) for a logical-order get
        inside a group or logical message whose MQGMO_SYNCPOINT differs from its earlier
        gets'."""
        if o.browse == "next" and self._last_browse_logical not in (None, o.logical_order):
            raise mqi_error(
                MQRC_INCONSISTENT_BROWSE, "MQGMO_LOGICAL_ORDER differs from the last browse"
            )
        if (
            o.browse is None
            and not o.under_cursor
            and o.logical_order
            and self._get_group is not None
            and o.syncpoint != self._get_group_syncpoint
        ):
            raise mqi_error(MQRC_INCONSISTENT_UOW, "syncpoint differs from the group's gets")

    def _got(self, o: GetOptions) -> None:
        """After a successful destructive get: its warning (see ``get_warning``)."""
        self._get_warning = (
            0 if o.logical_order or not self._last_get_logical else (self.unfinished_get)
        )
        self._last_get_logical = o.logical_order

    @property
    def unfinished_put(self) -> int:
        """MQRC_INCOMPLETE_MSG / MQRC_INCOMPLETE_GROUP when a logical-order put left a
        logical message or a group unfinished on this handle (what MQCLOSE warns of), else 0."""
        return 0 if self._put_group is None else self._put_group.unfinished

    def unlock(self) -> None:
        with self._qm.mutex:
            self._check_open()
            self._release_lock()

    def close(self, delete: CloseDelete = "") -> None:
        """MQCLOSE; ``delete`` is MQCO_DELETE ("delete") or MQCO_DELETE_PURGE ("purge").
        Closing the handle that created a temporary dynamic queue deletes the queue
        (see :func:`.dynamic.check_delete`); a close that fails leaves the handle open."""
        qm = self._qm
        with qm.mutex:
            if not self._open:
                return
            key = (qm.conn_id, self._number)
            deftype = qm.deftype_of(self._name)
            drop = (deftype != "PREDEFINED" or bool(delete)) and (
                deftype != "" and check_delete(qm.store.db, self._name, deftype, key, delete)
            )
            self._release_lock()
            if self._input:  # the last input handle closing may be a trigger event (12)
                with qm.store.write(durable=False) as db:
                    db.execute("DELETE FROM handles WHERE conn = ? AND handle = ?", key)
                    qm.triggers.inputs_closed(db, [self._name])
            else:
                qm.store.execute("DELETE FROM handles WHERE conn = ? AND handle = ?", key)
            if drop:
                with qm.store.write(durable=True) as db:
                    delete_dynamic(db, self._name)
            self._open = False
            qm.forget_handle(self._number)
            qm.emit("close", self._name)

    # -- helpers --------------------------------------------------------------------
    def _check_open(self) -> None:
        self._qm.check_connected()
        if not self._open:
            raise mqi_error(MQRC_HOBJ_ERROR, f"{self._name} handle is closed")

    def _check(self, o: GetOptions) -> None:
        self._check_open()
        if o.browse is not None and not self._browse:
            raise mqi_error(MQRC_NOT_OPEN_FOR_BROWSE, self._name)
        if o.browse is None and not self._input:
            raise mqi_error(MQRC_NOT_OPEN_FOR_INPUT, self._name)
        if o.browse is not None and o.under_cursor:
            raise mqi_error(MQRC_OPTIONS_ERROR, "browse and under_cursor together")
        if o.lock and o.browse is None:
            raise mqi_error(MQRC_OPTIONS_ERROR, "lock needs a browse")
        if o.lock and o.complete_msg:  # (docs/ibmmq.md: a lock holds one message here)
            raise mqi_error(MQRC_OPTIONS_ERROR, "MQGMO_LOCK with MQGMO_COMPLETE_MSG")
        # Checked here, before anything is read or taken: a call that fails changes nothing.
        if o.properties == "in_handle" and o.msg_handle is False:
            raise mqi_error(MQRC_HMSG_ERROR, "MQGMO_PROPERTIES_IN_HANDLE without a message handle")

    def _sleep_until_change(self, version: int, deadline: float | None) -> None:
        """Sleep until another connection commits, the wait ends or recovery is due."""
        store, delay = self._qm.store, _FIRST_POLL
        recovery = time.monotonic() + _RECOVERY_CHECK
        deadline = recovery if deadline is None else min(deadline, recovery)
        while store.data_version() == version:
            now = time.monotonic()
            if now >= deadline:
                return
            time.sleep(min(delay, deadline - now))
            delay = min(delay * 2, _MAX_POLL)

    def _release_lock(self) -> None:
        if self._locked is not None:
            self._qm.store.mark(
                "UPDATE messages SET lock_conn = NULL, lock_handle = NULL"
                " WHERE id = ? AND lock_conn = ? AND lock_handle = ?",
                (self._locked, self._qm.conn_id, self._number),
            )
            self._locked = None

    def _attempt(self, o: GetOptions, *, peek: bool = False) -> Message | None:
        qv = self._qm.queue_view(self._opened, missing=MQRC_Q_DELETED)
        if not qv.get_enabled:
            raise mqi_error(MQRC_GET_INHIBITED, self._name)
        self._hardenbo = qv.hardenbo
        self._propctl = qv.propctl
        if o.syncpoint and o.browse is None and not peek:  # (MAXUMSGS, before taking)
            self._qm.check_uncommitted(1)
        if o.under_cursor:
            return self._get_under_cursor(o)
        if o.browse is not None:
            return self._browse_one(o)
        return self._get_one(o, peek=peek)

    def _query(
        self,
        o: GetOptions,
        *,
        after: tuple[int, int] | None,
        in_group: GroupState | None,
        limit: int = BATCH,
    ) -> Query:
        return candidate_query(
            queue=self._name,
            conn=self._qm.conn_id,
            handle=self._number,
            after=after,
            msg_id=o.msg_id,
            correl_id=o.correl_id,
            group_id=o.group_id,
            logical=o.logical_order,
            in_group=in_group,
            all_available=o.all_msgs_available and in_group is None,
            segments="complete" if o.complete_msg else "all" if o.all_segments_available else "",
            limit=limit,
        )

    def _candidates(self, query: Query) -> list[Candidate]:
        rows = self._qm.store.db.execute(query.sql, query.params).fetchall()
        return [Candidate(*row) for row in rows]

    def _expired(self, c: Candidate) -> bool:
        """Discard ``c`` if it has expired (MQ discards what a get or browse passes)."""
        if c.expires_at is None or c.expires_at > self._qm.clock():
            return False
        self._qm.discard_expired(c.id, self._number, bool(c.persistent))
        return True

    def _browse_one(self, o: GetOptions) -> Message | None:
        if o.browse == "under_cursor":
            return self._browse_under_cursor(o)
        first = o.browse == "first"
        self._release_lock()  # the cursor moves: a lock it held goes
        if o.logical_order:
            in_group = None if first else self._browse_group
            after = None if first or in_group is not None else self._logical_pos
        else:
            in_group = None
            after = None if first or self._cursor is None else self._cursor.position
        if o.lock and not o.logical_order and not o.all_segments_available:
            return self._lock_next(o, after)
        store, conn, number = self._qm.store, self._qm.conn_id, self._number
        skipped = False
        while True:
            batch = self._candidates(self._query(o, after=after, in_group=in_group))
            if not batch:
                return None
            for c in batch:
                if self._expired(c):
                    continue
                parts = self._segments(c, o, in_group)
                if parts is not None and not parts:
                    skipped = True
                    continue  # a logical message with segments still missing
                if parts:
                    message = self._peek_whole(parts)
                    if message is None:
                        continue
                    self._cursor = c
                    if o.logical_order:
                        if in_group is None:
                            self._logical_pos = c.position
                        self._browse_group = group_state_after(_whole_candidate(c))
                    return message
                if o.lock:
                    row = store.mark(_LOCK, (conn, number, c.id, conn, number)).fetchone()
                else:
                    row = store.db.execute(_PEEK, (c.id, conn, number)).fetchone()
                if row is None:
                    continue  # taken meanwhile: the next candidate
                self._cursor = c
                if o.logical_order:
                    if in_group is None:
                        self._logical_pos = c.position
                    self._browse_group = group_state_after(c)
                return self._locked_read(c.id, row) if o.lock else self._qm.message_of(row)
            if in_group is not None and skipped:
                return None  # the group's next logical message is not whole yet
            if in_group is None:  # none of this batch: look further
                after = batch[-1].position

    def _browse_under_cursor(self, o: GetOptions) -> Message | None:
        """MQGMO_BROWSE_MSG_UNDER_CURSOR: a copy of the message the last browse returned,
        left on the queue; the cursor does not move, so a lock it holds stays (with
        ``lock`` it is taken now). None (MQRC_NO_MSG_UNDER_CURSOR): no browse yet, or the
        message has gone, expired or been locked by another handle since."""
        c = self._cursor
        if c is None or self._expired(c):
            return None
        store, conn, number = self._qm.store, self._qm.conn_id, self._number
        if self._locked == c.id and self._read is not None:
            return self._read[1]  # (locked by this handle: it cannot have changed)
        if o.lock:
            row = store.mark(_LOCK, (conn, number, c.id, conn, number)).fetchone()
            return None if row is None else self._locked_read(c.id, row)
        row = store.db.execute(_PEEK, (c.id, conn, number)).fetchone()
        return None if row is None else self._qm.message_of(row)

    def _lock_next(self, o: GetOptions, after: tuple[int, int] | None) -> Message | None:
        """Browse with MQGMO_LOCK (not in logical order) in one statement: lock the next
        visible message and return it. Outside a unit of work's hold the lock is final at
        once (a short transaction of its own): what the caller decides then must not hold
        the write lock. Inside one it joins the hold (:meth:`.Store.mark`). An expired
        message is discarded and the cursor moves past it."""
        qm = self._qm
        while True:
            query = self._query(o, after=after, in_group=None, limit=1)
            sql = f"{_LOCK_FIRST} (SELECT id FROM ({query.sql})) {_RETURN_CANDIDATE}"  # noqa: S608 - constant fragments, bound values
            row = qm.store.mark(sql, query.params).fetchone()
            if row is None:
                return None
            c = Candidate(*row[5:])
            if c.expires_at is not None and c.expires_at <= qm.clock():
                qm.discard_expired(c.id, self._number, bool(c.persistent))
                after = c.position
                continue
            self._cursor = c
            return self._locked_read(c.id, row[:5])

    def _locked_read(self, message_id: int, row: StoredRow) -> Message:
        """The message a browse with MQGMO_LOCK returns; the handle now holds its lock and
        what it read (see ``_read``)."""
        message = self._qm.message_of(row)
        self._locked = message_id
        self._read = (message_id, message, row)
        return message

    def _get_first(self, o: GetOptions) -> Message | None:
        """A plain destructive get in one statement: claim (or delete) the first match.

        A message that turns out to have expired is discarded and the next one taken.
        """
        qm = self._qm
        query = candidate_query(
            queue=self._name,
            conn=qm.conn_id,
            handle=self._number,
            msg_id=o.msg_id,
            correl_id=o.correl_id,
            group_id=o.group_id,
            columns="m.id",
            limit=1,
        )
        if o.syncpoint:
            sql = f"{_TAKE_FIRST} ({query.sql}) {_RETURN_ALL}"
        else:
            sql = f"{_REMOVE_FIRST} ({query.sql}) {_RETURN_ALL}"
        params = {**query.params, "me": qm.conn_id}
        while True:
            row = (
                qm.store.run(sql, params)
                if o.syncpoint
                else qm.store.execute(sql, params, durable=True)
            ).fetchone()
            if row is None:
                return None
            image, body, backout_count, expires_at, persistent, message_id, props = row
            if expires_at is not None and expires_at <= qm.clock():
                qm.discard_taken(
                    message_id, image, body, persistent=bool(persistent), deleted=not o.syncpoint
                )
                continue
            if o.syncpoint:
                self._claimed(message_id, bool(persistent))
            if self._locked == message_id:
                self._locked = None
            return qm.message_of((image, body, backout_count, expires_at, props))

    def _get_one(self, o: GetOptions, *, peek: bool = False) -> Message | None:
        if not (peek or o.logical_order or o.complete_msg or o.all_segments_available):
            return self._get_first(o)
        in_group = self._get_group if o.logical_order else None
        after: tuple[int, int] | None = None  # (past candidates skipped: see the loop's end)
        skipped = False
        while True:
            batch = self._candidates(self._query(o, after=after, in_group=in_group))
            if not batch:
                return None
            for c in batch:
                if self._expired(c):
                    continue
                parts = self._segments(c, o, in_group)
                if parts is not None and not parts:
                    skipped = True
                    continue  # a logical message with segments still missing
                if peek:
                    message = self._peek_whole(parts) if parts else self._peek_one(c.id)
                    if message is None:
                        continue
                    return message
                if parts:
                    message = self._take_whole(parts, c, syncpoint=o.syncpoint)
                    c = _whole_candidate(c)
                else:
                    message = self._take(c.id, persistent=bool(c.persistent), syncpoint=o.syncpoint)
                if message is None:
                    continue
                if o.logical_order:
                    if o.syncpoint:
                        self._in_unit_of_work()
                    self._get_group = group_state_after(c)
                    self._get_group_syncpoint = o.syncpoint
                return message
            if in_group is not None and skipped:
                return None  # the group's next logical message is not whole yet
            if in_group is None:  # none of this batch: look further (an incomplete logical
                after = batch[-1].position  # message stays where it is)

    # -- segments (MQGMO_ALL_SEGMENTS_AVAILABLE, MQGMO_COMPLETE_MSG: see .segments) ------
    def _segments(
        self, c: Candidate, o: GetOptions, in_group: GroupState | None
    ) -> list[int] | None:
        """For a segment under ALL_SEGMENTS_AVAILABLE or COMPLETE_MSG: [] when its logical
        message is not whole yet, else (COMPLETE_MSG, from its first segment) the row ids
        of all its segments in order; None when the candidate is returned as it is. Inside
        the handle's current logical message (logical order) the options are ignored, as
        IBM ignores MQGMO_ALL_MSGS_AVAILABLE inside a current group; COMPLETE_MSG still
        joins the group's next logical message."""
        if not (o.complete_msg or o.all_segments_available) or not c.msg_flags & 6:
            return None
        if in_group is not None and not (o.complete_msg and in_group.segment_done):
            return None
        rows = self._qm.store.db.execute(
            SEGMENTS_OF,
            (self._name, c.group_id, c.msg_seq_number, self._qm.conn_id, self._number),
        ).fetchall()
        ids = whole([tuple(r) for r in rows])
        if ids is None:
            return []
        return ids if o.complete_msg and c.offset == 0 else None

    def _peek_one(self, row_id: int) -> Message | None:
        """A copy of one available message (None: it went meanwhile)."""
        qm = self._qm
        row = qm.store.db.execute(_PEEK, (row_id, qm.conn_id, self._number)).fetchone()
        return None if row is None else qm.message_of(row)

    def _peek_whole(self, ids: list[int]) -> Message | None:
        """A browse of a whole logical message (None: a segment went meanwhile)."""
        db, conn, number = self._qm.store.db, self._qm.conn_id, self._number
        parts = []
        for row_id in ids:
            row = db.execute(_PEEK, (row_id, conn, number)).fetchone()
            if row is None:
                return None
            parts.append(self._qm.message_of(row))
        return reassembled(parts)

    def _take_whole(self, ids: list[int], c: Candidate, *, syncpoint: bool) -> Message | None:
        """Get every segment of a logical message in one transaction (all or none: None
        when one went meanwhile) and return them reassembled."""
        qm = self._qm
        persistent = bool(c.persistent)
        conn, number = qm.conn_id, self._number
        if syncpoint:  # every segment counts (MAXUMSGS)
            qm.check_uncommitted(len(ids))
        parts: list[Message] = []
        try:
            with qm.store.join() if syncpoint else qm.store.write(durable=persistent) as db:
                for row_id in ids:
                    if syncpoint:
                        row = db.execute(_TAKE, (conn, row_id, conn, number)).fetchone()
                    else:
                        row = db.execute(_REMOVE, (row_id, conn, number)).fetchone()
                    if row is None:
                        raise _SegmentGoneError
                    parts.append(qm.message_of(row))
        except _SegmentGoneError:
            return None
        if syncpoint:
            for row_id in ids:
                self._claimed(row_id, persistent)
        if self._locked in ids:
            self._locked = None
        return reassembled(parts)

    def _get_under_cursor(self, o: GetOptions) -> Message | None:
        c = self._cursor
        if c is None:
            return None
        if self._expired(c):  # (IBM's 2034; the cursor stays where it was)
            return None
        parts = self._segments(c, o, None)
        if parts:
            return self._take_whole(parts, c, syncpoint=o.syncpoint)
        if parts is not None:
            return None  # (its logical message is no longer whole)
        message = self._take(c.id, persistent=bool(c.persistent), syncpoint=o.syncpoint)
        if message is not None and self._locked == c.id:
            self._locked = None
        return message

    def _claimed(self, message_id: int, persistent: bool) -> None:
        """A get under syncpoint claimed ``message_id``: note it in the unit of work. On a
        HARDENBO queue the claim is committed before MQGET returns (forced to disk for a
        persistent message: hardened, as IBM says), so a killed process gives the message
        back with BackoutCount + 1; on NOHARDENBO it stays in the held transaction (see
        :mod:`.store`)."""
        qm = self._qm
        qm.joined_get(self._name, message_id, persistent)
        if self._hardenbo:
            qm.store.release(durable=persistent)

    def _take(self, message_id: int, *, persistent: bool, syncpoint: bool) -> Message | None:
        """Claim one message for this connection's unit of work (or delete it now)."""
        qm = self._qm
        params = (message_id, qm.conn_id, self._number)
        read = self._read if self._locked == message_id else None  # (set together)
        if syncpoint:
            sql = _TAKE if read is None else _TAKE_LOCKED
            row = qm.store.run(sql, (qm.conn_id, *params)).fetchone()
            if row is not None:
                self._claimed(message_id, persistent)
        else:
            sql = _REMOVE if read is None else _REMOVE_LOCKED
            row = qm.store.execute(sql, params, durable=persistent).fetchone()
        if row is None:
            return None
        if self._locked == message_id:
            self._locked = None
        if read is None:
            return qm.message_of(row)
        self._read = None
        _, message, (image, body, backout_count, expires_at, props) = read
        if row[0] == backout_count and expires_at is None:
            return message  # as browsed: nothing in it can have changed
        return qm.message_of((image, body, row[0], row[1], props))


class _SegmentGoneError(Exception):
    """A segment of the logical message being got went meanwhile (undo the others)."""


def _whole_candidate(c: Candidate) -> Candidate:
    """A reassembled logical message as logical order sees it: its only segment."""
    return dataclasses.replace(c, msg_flags=(c.msg_flags & ~2) | 4)
