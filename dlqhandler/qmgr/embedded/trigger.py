"""Trigger events: when the embedded queue manager writes a trigger message (MQTM).

The conditions are numbered as in the seed document "Conditions for a trigger
event" (the WebSphere MQ Application Programming Guide). Where that copy lost
its bulleted lists (conditions 3, 6, 7, 11 and 12), IBM MQ's documentation of
the same page fills them in.

1. A message is put on the queue.
2. Its priority is at least TRIGMPRI (0: every message qualifies).
3. Qualifying messages already there: 0 for FIRST, any for EVERY, TRIGDPTH - 1
   for DEPTH. Committed and uncommitted messages count (note 1); messages got
   under syncpoint do not (they have left the queue).
4. FIRST and DEPTH only: nothing has the queue open for input (IPPROCS 0).
5. z/OS only (InhibitGet of the application queue): not applied, as on MQ for
   distributed platforms.
6. PROCESS names an existing process definition. A transmission queue may
   leave PROCESS blank (IBM: a triggered channel needs no process definition);
   its trigger message then carries no process data.
7. INITQ names an existing local queue with PUT and GET enabled and USAGE
   NORMAL.
8. A trigger monitor has the initiation queue open for input (IPPROCS > 0).
9. TRIGGER is on.
10. TRIGTYPE is not NONE. A message put in a unit of work: the trigger message
    becomes available when the unit of work ends: at commit, or, for FIRST and
    DEPTH, at backout too (an EVERY trigger message goes with the backout).
11. FIRST/DEPTH: a qualifying message arrives on a queue that was not empty
    (FIRST, and only once TRIGINT milliseconds have passed since this queue's
    last trigger message) or already had TRIGDPTH or more (DEPTH), and
    conditions 2 to 10 except 3 hold.
12. FIRST/DEPTH: the last input handle closes (MQCLOSE, disconnect, or the
    recovery of a connection that died, the "abend" of note 2) with at least
    1 (FIRST) or TRIGDPTH (DEPTH) qualifying messages; conditions 6 to 10.
13. DEFINE REPLACE/ALTER switches TRIGGER on, or, TRIGGER being on, changes
    TRIGTYPE, TRIGMPRI or (DEPTH) TRIGDPTH, with at least 1 (FIRST, EVERY)
    or TRIGDPTH (DEPTH) qualifying messages; conditions 4 to 10 except 8.

    13.1 An initiation queue's PUT goes from DISABLED to ENABLED: one trigger
         message for each queue it serves that has enough qualifying
         messages; conditions 4 to 10.
    13.2 A queue's GET goes from DISABLED to ENABLED with enough messages;
         conditions 4 to 10 except 5.
    13.3 The first input open of an initiation queue (no other input handle
         on it): one trigger message for each queue it serves that has enough
         messages; conditions 4 to 10 except 8.
14. MSGDLVSQ(FIFO): a message counts at the queue's DEFPRTY, not its own
    priority. The stored ordering priority is exactly that, so the counts
    here need nothing more.

Notes at the end of the document: (1) trigger messages for events other than
an arrival (12, 13.x) are put outside any unit of work, and an EVERY queue
gets one, not one per message; (2) segments count as separate messages
(nothing segments a message here).

DEPTH: after a trigger event TRIGGER is switched off (NOTRIGGER), as in MQ.

A trigger message is an MQTM (:mod:`dlqhandler.mq.mqtm`), Format ``MQTRIG``,
a non-persistent datagram with unlimited expiry, at the initiation queue's
default priority, with the queue manager's context (PutApplType MQAT_QMGR).
ApplType, ApplId, EnvData and UserData come from the process definition. A
trigger message the initiation queue cannot take (full, or MAXMSGL under 684)
goes to the dead-letter queue with an MQDLH (reason 2053 or 2030), as IBM MQ
does; if that fails too it is dropped and logged. A dead-lettered trigger
message arrives on the DLQ like any message (the DLQ may be triggered), but a
trigger message that arrival writes is never dead-lettered again. Trigger
messages are not themselves evaluated for triggering of the initiation queue.

Concurrency: every evaluation runs inside the SQLite write transaction that
changes what it looks at (inserts the message, removes the handle, alters the
queue), so counts are exact however many processes put, and one FIRST event
writes one trigger message. ``trigger_state`` keeps per queue the time of its
last trigger message (for TRIGINT, on the connection's clock) and a count,
updated in the transaction that writes the trigger message. The seed note
says a queue manager restart resets the TRIGINT timer; an embedded queue
manager never restarts, so the time persists.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from dlqhandler.errors import DecodeError
from dlqhandler.mq.constants import (
    MQAT_QMGR,
    MQMT_DATAGRAM,
    MQRC_MSG_TOO_BIG_FOR_Q,
    MQRC_Q_FULL,
)
from dlqhandler.mq.mqmd import MQMD, encode_mqmd
from dlqhandler.mq.mqtm import MQFMT_TRIGGER, MQTM, encode_mqtm
from dlqhandler.qmgr.embedded.objects import MAX_INT, PROCESS_ATTRS, QUEUE_ATTRS, Value, defaults
from dlqhandler.qmgr.embedded.putting import effective_priority, put_timestamp, qmgr_dead_letter
from dlqhandler.qmgr.embedded.store import (
    AVAILABLE,
    INSERT_MESSAGE,
    PUT_PENDING,
    TRIGGER_PENDING,
)

__all__ = ["APPL_TYPES", "TriggerSpec", "Triggers", "Written", "served_queues"]

TriggerType = Literal["FIRST", "EVERY", "DEPTH", "NONE"]
_TYPES: dict[str, TriggerType] = {"FIRST": "FIRST", "EVERY": "EVERY", "DEPTH": "DEPTH"}
Condition = str  # "3", "11", "13.1"... as the document numbers them

# MQSC APPLTYPE -> MQAT_* (DEF is the platform default: UNIX here).
APPL_TYPES: dict[str, int] = {
    "CICS": 1,
    "MVS": 2,
    "IMS": 3,
    "OS2": 4,
    "DOS": 5,
    "UNIX": 6,
    "DEF": 6,
    "OS400": 8,
    "WINDOWS": 9,
    "WINDOWSNT": 11,
    "NSK": 13,
    "USER": 25,
    "SYSTEM": 35,
}
_QUEUE_DEFAULTS = defaults(QUEUE_ATTRS)
_PROCESS_DEFAULTS = defaults(PROCESS_ATTRS)
# Messages on the queue (not got under syncpoint: state 2 = TAKEN) of enough priority.
_DEPTH_SQL = (
    "SELECT count(*) FROM (SELECT 1 FROM messages WHERE queue = ? AND state != 2"
    " AND priority >= ? LIMIT ?)"
)
_INSERT = INSERT_MESSAGE + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_RECORD = (
    "INSERT INTO trigger_state VALUES (?, ?, 1) ON CONFLICT (queue) DO UPDATE"
    " SET last_trigger = excluded.last_trigger, triggers = triggers + 1"
)
_NOTRIGGER = "UPDATE queues SET attrs = json_set(attrs, '$.TRIGGER', 'NOTRIGGER') WHERE name = ?"


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    """The trigger attributes of one local queue."""

    queue: str
    control: bool  # TRIGGER / NOTRIGGER
    type: TriggerType
    depth: int
    msg_priority: int
    data: str
    initq: str
    process: str
    xmitq: bool

    @classmethod
    def of(cls, queue: str, attrs: Mapping[str, Value]) -> TriggerSpec:
        a = {**_QUEUE_DEFAULTS, **attrs}
        return cls(
            queue=queue,
            control=a["TRIGGER"] == "TRIGGER",
            type=_TYPES.get(str(a["TRIGTYPE"]), "NONE"),
            depth=int(a["TRIGDPTH"]),
            msg_priority=int(a["TRIGMPRI"]),
            data=str(a["TRIGDATA"]),
            initq=str(a["INITQ"]),
            process=str(a["PROCESS"]),
            xmitq=a["USAGE"] == "XMITQ",
        )

    @property
    def armed(self) -> bool:
        """Conditions 9 and 10: TRIGGER on and TRIGTYPE not NONE."""
        return self.control and self.type != "NONE"

    @property
    def needed(self) -> int:
        """Qualifying messages an event other than an arrival needs: 1, or TRIGDPTH."""
        return self.depth if self.type == "DEPTH" else 1

    @property
    def blocked_by_servers(self) -> bool:
        """Condition 4 applies (FIRST and DEPTH; EVERY triggers while the queue is open)."""
        return self.type in ("FIRST", "DEPTH")


@dataclass(frozen=True, slots=True)
class Written:
    """The trigger messages one event wrote, by what a unit of work does with them.

    ``pending``: available when the unit of work ends, committed or backed out
    (FIRST, DEPTH); ``put``: available at commit, removed by a backout (EVERY).
    Outside a unit of work both are empty: the messages are available at once.
    """

    pending: tuple[int, ...] = ()
    put: tuple[int, ...] = ()

    def __add__(self, other: Written) -> Written:
        return Written(self.pending + other.pending, self.put + other.put)

    def __bool__(self) -> bool:
        return bool(self.pending or self.put)


@dataclass(frozen=True, slots=True)
class _Queue:
    name: str
    attrs: dict[str, Value]
    curdepth: int

    @property
    def defprty(self) -> int:
        return int(self.attrs["DEFPRTY"])


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a trigger message goes and what it says (conditions 6 and 7 passed)."""

    initq: _Queue
    process: dict[str, Value] | None


def _load_queue(db: sqlite3.Connection, name: str) -> _Queue | None:
    row = db.execute("SELECT attrs, curdepth FROM queues WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    return _Queue(name, {**_QUEUE_DEFAULTS, **json.loads(row[0])}, int(row[1]))


def _qualifying(db: sqlite3.Connection, queue: str, priority: int, cap: int) -> int:
    """Messages of at least ``priority`` on the queue, committed or not, counted up to cap."""
    return int(db.execute(_DEPTH_SQL, (queue, priority, max(cap, 1))).fetchone()[0])


def _input_count(db: sqlite3.Connection, queue: str) -> int:
    return int(
        db.execute("SELECT count(*) FROM handles WHERE queue = ? AND input", (queue,)).fetchone()[0]
    )


def served_queues(db: sqlite3.Connection, initq: str) -> list[tuple[str, dict[str, Value]]]:
    """(name, attributes) of every queue whose INITQ is ``initq``, by name."""
    rows = db.execute(
        "SELECT name, attrs FROM queues WHERE json_extract(attrs, '$.INITQ') = ? ORDER BY name",
        (initq,),
    ).fetchall()
    return [(str(name), json.loads(attrs)) for name, attrs in rows]


def _qmgr_attr(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM qmgr_attrs WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


class Triggers:
    """Trigger evaluation for one connection: its clock, identity and MsgId source.

    Every method takes the open write transaction (``db``) of the operation it
    reacts to and writes trigger messages in it.
    """

    def __init__(
        self,
        *,
        qmgr_name: str,
        conn_id: str,
        user: str,
        clock: Callable[[], float],
        make_id: Callable[[sqlite3.Connection], bytes],
        log: Any,
    ) -> None:
        self._qmgr = qmgr_name
        self._conn = conn_id
        self._user = user
        self._clock = clock
        self._make_id = make_id
        self._log = log

    # -- the events --------------------------------------------------------------------
    def message_arrived(
        self,
        db: sqlite3.Connection,
        queue: str,
        attrs: Mapping[str, Value],
        priority: int,
        *,
        syncpoint: bool,
    ) -> Written:
        """Conditions 1-11, before the message (stored ``priority``) is inserted."""
        return self._arrival(
            db, TriggerSpec.of(queue, attrs), priority, syncpoint=syncpoint, dead_letter=True
        )

    def inputs_closed(self, db: sqlite3.Connection, queues: Iterable[str]) -> None:
        """Condition 12, after input handles on ``queues`` went (close, disconnect, death)."""
        for name in queues:
            if _input_count(db, name) > 0:
                continue  # not the only application serving the queue
            queue = _load_queue(db, name)
            if queue is None:
                continue
            spec = TriggerSpec.of(name, queue.attrs)
            if spec.blocked_by_servers:
                self._maybe(db, spec, "12", skip=(4,), check_depth=True)

    def initq_opened(self, db: sqlite3.Connection, initq: str) -> None:
        """Condition 13.3: the first input handle on ``initq`` was just opened."""
        for name, attrs in served_queues(db, initq):
            self._maybe(db, TriggerSpec.of(name, attrs), "13.3", skip=(8,), check_depth=True)

    def queue_altered(
        self,
        db: sqlite3.Connection,
        name: str,
        old: Mapping[str, Value] | None,
        new: Mapping[str, Value],
    ) -> None:
        """Conditions 13, 13.1 and 13.2, after ``new`` replaced ``old`` in this transaction."""
        if old is None:
            return  # a new queue holds no messages and serves nobody yet
        old, new = {**_QUEUE_DEFAULTS, **old}, {**_QUEUE_DEFAULTS, **new}
        before, after = TriggerSpec.of(name, old), TriggerSpec.of(name, new)
        changed = after.control and (
            not before.control
            or before.type != after.type
            or before.msg_priority != after.msg_priority
            or (after.type == "DEPTH" and before.depth != after.depth)
        )
        written = changed and self._maybe(db, after, "13", skip=(8,), check_depth=True)
        get_enabled = old.get("GET") == "DISABLED" and new.get("GET") == "ENABLED"
        if get_enabled and not written:
            self._maybe(db, after, "13.2", skip=(5,), check_depth=True)
        if old.get("PUT") == "DISABLED" and new.get("PUT") == "ENABLED":
            for served, attrs in served_queues(db, name):
                self._maybe(db, TriggerSpec.of(served, attrs), "13.1", skip=(), check_depth=True)

    # -- evaluation --------------------------------------------------------------------
    def _arrival(
        self,
        db: sqlite3.Connection,
        spec: TriggerSpec,
        priority: int,
        *,
        syncpoint: bool,
        dead_letter: bool,
    ) -> Written:
        if not spec.armed or priority < spec.msg_priority:
            return Written()  # 9, 10; 2 (and 14: a FIFO queue stores DEFPRTY)
        condition: Condition | None = "3"
        if spec.type != "EVERY":  # 3, note 1: committed and uncommitted messages count
            before = _qualifying(db, spec.queue, spec.msg_priority, spec.needed)
            if before >= spec.needed:
                condition = (
                    "11" if spec.type == "DEPTH" or self._interval_passed(db, spec) else None
                )
            elif before != spec.needed - 1:
                condition = None
        if condition is None:
            return Written()
        target = self._target(db, spec, skip=())
        if isinstance(target, str):
            self._not_written(spec, condition, target)
            return Written()
        state = AVAILABLE
        if syncpoint:
            state = PUT_PENDING if spec.type == "EVERY" else TRIGGER_PENDING
        return self._write(db, spec, target, condition, state=state, dead_letter=dead_letter)

    def _maybe(
        self,
        db: sqlite3.Connection,
        spec: TriggerSpec,
        condition: Condition,
        *,
        skip: tuple[int, ...],
        check_depth: bool,
    ) -> bool:
        """An event other than an arrival: enough messages and the other conditions."""
        if not spec.armed:
            return False
        if (
            check_depth
            and _qualifying(db, spec.queue, spec.msg_priority, spec.needed) < spec.needed
        ):
            return False
        target = self._target(db, spec, skip=skip)
        if isinstance(target, str):
            self._not_written(spec, condition, target)
            return False
        self._write(db, spec, target, condition, state=AVAILABLE, dead_letter=True)
        return True

    def _interval_passed(self, db: sqlite3.Connection, spec: TriggerSpec) -> bool:
        """Condition 11 for FIRST: TRIGINT ms since this queue's last trigger message."""
        row = db.execute(
            "SELECT last_trigger FROM trigger_state WHERE queue = ?", (spec.queue,)
        ).fetchone()
        if row is None:
            return True
        interval = int(_qmgr_attr(db, "TRIGINT") or MAX_INT) / 1000
        return self._clock() - float(row[0]) >= interval

    def _target(
        self, db: sqlite3.Connection, spec: TriggerSpec, *, skip: tuple[int, ...]
    ) -> _Target | str:
        """Conditions 4 and 6-8 (minus ``skip``): the target, or why there is none."""
        if 4 not in skip and spec.blocked_by_servers and _input_count(db, spec.queue) > 0:
            return "4"
        process: dict[str, Value] | None = None
        if spec.process or not spec.xmitq:
            row = (
                db.execute("SELECT attrs FROM processes WHERE name = ?", (spec.process,)).fetchone()
                if spec.process
                else None
            )
            if row is None:
                return "6"
            process = {**_PROCESS_DEFAULTS, **json.loads(row[0])}
        initq = _load_queue(db, spec.initq) if spec.initq else None
        if (
            initq is None
            or initq.attrs["PUT"] != "ENABLED"
            or initq.attrs["GET"] != "ENABLED"
            or initq.attrs["USAGE"] != "NORMAL"
        ):
            return "7"
        if 8 not in skip and _input_count(db, initq.name) == 0:
            return "8"
        return _Target(initq, process)

    def _not_written(self, spec: TriggerSpec, condition: Condition, failed: str) -> None:
        self._log.debug(
            "trigger_not_written", queue=spec.queue, condition=condition, failed_condition=failed
        )

    # -- writing -----------------------------------------------------------------------
    def _write(
        self,
        db: sqlite3.Connection,
        spec: TriggerSpec,
        target: _Target,
        condition: Condition,
        *,
        state: int,
        dead_letter: bool,
    ) -> Written:
        process = target.process or {}
        tm = MQTM(
            q_name=spec.queue,
            process_name=spec.process,
            trigger_data=spec.data,
            appl_type=APPL_TYPES.get(str(process.get("APPLTYPE", "")), 0),
            appl_id=str(process.get("APPLICID", "")),
            env_data=str(process.get("ENVRDATA", "")),
            user_data=str(process.get("USERDATA", "")),
        )
        now = self._clock()
        date, time_ = put_timestamp(now)
        md = MQMD(
            format=MQFMT_TRIGGER,
            msg_type=MQMT_DATAGRAM,
            persistence=0,
            expiry=-1,
            priority=target.initq.defprty,
            coded_char_set_id=819,
            msg_id=self._make_id(db),
            user_identifier=self._user[:12],
            put_appl_type=MQAT_QMGR,
            put_appl_name=self._qmgr[:28],
            put_date=date,
            put_time=time_,
        )
        try:
            body = encode_mqtm(tm)
        except DecodeError as exc:  # a process text that is not Latin-1
            self._log.warning("trigger_message_dropped", queue=spec.queue, error=str(exc))
            return Written()
        initq = target.initq
        reason = (
            MQRC_Q_FULL
            if initq.curdepth >= int(initq.attrs["MAXDEPTH"])
            else MQRC_MSG_TOO_BIG_FOR_Q
            if len(body) > int(initq.attrs["MAXMSGL"])
            else 0
        )
        if reason == 0:
            written = self._insert(
                db, initq.name, order=initq.defprty, state=state, md=md, body=body, now=now
            )
            self._log.debug(
                "trigger_message_written",
                queue=spec.queue,
                initq=initq.name,
                process=spec.process,
                trigtype=spec.type,
                condition=condition,
            )
        elif dead_letter:
            written = self._dead_letter(
                db, md, body, reason=reason, initq=initq.name, state=state, now=now
            )
        else:
            written = Written()
            self._log.warning(
                "trigger_message_dropped", queue=spec.queue, initq=initq.name, reason=reason
            )
        db.execute(_RECORD, (spec.queue, now))
        if spec.type == "DEPTH":
            db.execute(_NOTRIGGER, (spec.queue,))
        return written

    def _insert(
        self,
        db: sqlite3.Connection,
        queue: str,
        *,
        order: int,
        state: int,
        md: MQMD,
        body: bytes,
        now: float,
    ) -> Written:
        owner = None if state == AVAILABLE else self._conn
        cursor = db.execute(
            _INSERT,
            (
                queue,
                order,
                state,
                owner,
                md.msg_id,
                md.correl_id,
                md.group_id,
                md.msg_seq_number,
                md.offset,
                md.msg_flags,
                0,
                now,
                md.expiry,
                None,
                encode_mqmd(md),
                body,
            ),
        )
        row_id = int(cursor.lastrowid or 0)
        if state == TRIGGER_PENDING:
            return Written(pending=(row_id,))
        if state == PUT_PENDING:
            return Written(put=(row_id,))
        return Written()

    def _dead_letter(
        self,
        db: sqlite3.Connection,
        md: MQMD,
        body: bytes,
        *,
        reason: int,
        initq: str,
        state: int,
        now: float,
    ) -> Written:
        """Put a trigger message the initiation queue refused on the dead-letter queue."""
        deadq = _qmgr_attr(db, "DEADQ") or ""
        dlq = _load_queue(db, deadq) if deadq else None
        message = qmgr_dead_letter(
            md,
            body,
            reason=reason,
            dest_q_name=initq,
            dest_q_mgr_name=self._qmgr,
            qmgr_name=self._qmgr,
            now=now,
        )
        if (
            dlq is None
            or dlq.attrs["PUT"] != "ENABLED"
            or dlq.curdepth >= int(dlq.attrs["MAXDEPTH"])
            or len(message.body) > int(dlq.attrs["MAXMSGL"])
        ):
            self._log.warning(
                "trigger_message_dropped", initq=initq, reason=reason, deadq=deadq or None
            )
            return Written()
        order = dlq.defprty if dlq.attrs["MSGDLVSQ"] == "FIFO" else effective_priority(md.priority)
        # The dead letter is an arrival on the DLQ; what that writes is not dead-lettered.
        nested = self._arrival(
            db,
            TriggerSpec.of(dlq.name, dlq.attrs),
            order,
            syncpoint=state != AVAILABLE,
            dead_letter=False,
        )
        self._log.warning(
            "trigger_message_dead_lettered", initq=initq, reason=reason, deadq=dlq.name
        )
        return (
            self._insert(
                db, dlq.name, order=order, state=state, md=message.md, body=message.body, now=now
            )
            + nested
        )
