"""Durable attempt counts, kept on a status queue in the queue manager.

runmqdlq keeps its per-message counters in process memory, so a restart or a
second handler instance starts every RETRY count again. dlqhandler keeps one
small status message per DLQ message (or message group) that has had a failed
attempt, on a status queue (default ``DLQHANDLER.STATUS``) of the same queue
manager:

* CorrelId = a 24-byte digest of the DLQ message's (MsgId, CorrelId), or of
  its GroupId for a group, so a record is found by CorrelId on IBM MQ and the
  embedded queue manager alike;
* data = JSON ``{"n": attempts, "last": unix seconds, "msgid", "correlid"}``
  (``"groupid"`` for a group).

A failed attempt leaves the DLQ message where it is, so its record is written
*outside* syncpoint, at once: the new record is put first, then the old one
removed, and a reader takes the highest count it finds. Another handler that
locks the message next therefore always sees the count (the lock on the DLQ
message serialises the handlers). A successful action removes the record inside
the unit of work that removes the DLQ message, so both commit or back out
together.

No record is cached: a look-up reads the queue (one indexed MQGET by CorrelId),
because another instance may have changed the record. But a message with no
history must not cost a read: :meth:`AttemptStore.new_unit` asks once per unit
of work (MQINQ CURDEPTH) whether the status queue holds any record at all, and
while it holds none look-ups read nothing. A record another handler writes
meanwhile (its first failure) would then be missed, so :meth:`AttemptStore.
unit_valid` asks again before the commit: a unit that skipped look-ups while
a record appeared is backed out and its messages are examined again. A failure
after a skipped look-up reads the record first; if one appeared, the failure
is not counted (the decision did not see it) and the unit is not valid. Records whose
DLQ message left by other means are collected by :meth:`AttemptStore.sweep`:
a record is removed when two sweeps some time apart both found its message
gone; the candidates carried between sweeps are capped, so memory stays
bounded however many records there are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_NO_MSG_AVAILABLE,
    MQRC_NOT_AUTHORIZED,
    MQRC_UNKNOWN_OBJECT_NAME,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.qmgr.port import GetOptions, PutOptions, Queue, QueueManager, browse_all

__all__ = [
    "DEFAULT_STATUS_QUEUE",
    "AttemptRecord",
    "AttemptStore",
    "Subject",
    "group_subject",
    "message_subject",
    "put_record",
    "read_records",
    "recorded_attempts",
    "remove_record",
]

DEFAULT_STATUS_QUEUE = "DLQHANDLER.STATUS"
R = TypeVar("R")
MAX_SWEEP_CANDIDATES = 10_000
_NOW = PutOptions(syncpoint=False, context="default")


@dataclass(frozen=True, slots=True)
class Subject:
    """What a record counts attempts for: one DLQ message, or one message group."""

    key: bytes  # the status record's CorrelId
    msg_id: bytes = b""
    correl_id: bytes = b""
    group_id: bytes = b""

    def describe(self) -> dict[str, str]:
        if self.group_id:
            return {"groupid": self.group_id.hex()}
        return {"msgid": self.msg_id.hex(), "correlid": self.correl_id.hex()}


def message_subject(msg_id: bytes, correl_id: bytes) -> Subject:
    """The subject for a DLQ message, keyed like runmqdlq's history: (MsgId, CorrelId)."""
    key = hashlib.blake2b(msg_id + correl_id, digest_size=24).digest()
    return Subject(key, msg_id=msg_id, correl_id=correl_id)


def group_subject(group_id: bytes) -> Subject:
    """The subject for a whole message group (its members share one count)."""
    key = hashlib.blake2b(b"group:" + group_id, digest_size=24).digest()
    return Subject(key, group_id=group_id)


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """Failed attempts so far, when the last one was made (unix seconds), and the
    MsgIds of the status messages that hold it (usually one)."""

    attempts: int
    last_attempt: float
    status_ids: tuple[bytes, ...] = ()
    counted: bool = True  # False: record_failure counted nothing (another's record won)


class AttemptStore:
    """Attempt counts on a status queue.

    ``readonly`` (``--dry-run``) reads the records but never writes; a missing
    status queue then reads as "no attempts yet".
    """

    def __init__(
        self, qmgr: QueueManager, queue: str = DEFAULT_STATUS_QUEUE, *, readonly: bool = False
    ) -> None:
        self._qmgr = qmgr
        self.queue_name = queue
        self.readonly = readonly
        self._q: Queue | None
        try:
            self._q = qmgr.open(queue, input=not readonly, browse=True, output=not readonly)
        except MQIError as exc:
            if not (readonly and exc.reason == MQRC_UNKNOWN_OBJECT_NAME):
                raise
            self._q = None
        self._candidates: dict[bytes, bytes] = {}  # status MsgId -> record key
        self._none = False  # new_unit found the status queue empty
        self._skipped = False  # a look-up relied on that
        self._stale = False  # ... and a record appeared before this handler wrote one
        self._inquirable = True  # False: MQINQ of the status queue was refused (2035)

    # -- reads -------------------------------------------------------------------
    def lookup(self, subject: Subject) -> AttemptRecord | None:
        """The record for ``subject``, or None when it never failed."""
        if self._q is None:
            return None
        if self._none:
            self._skipped = True
            return None
        found = read_records(self._q, subject.key, _parse, lambda r: r.attempts)
        if found is None:
            return None
        best, ids = found
        base = best or AttemptRecord(0, 0.0)
        return AttemptRecord(base.attempts, base.last_attempt, ids)

    def new_unit(self) -> None:
        """A unit of work begins: one MQINQ says whether any record exists at all."""
        self._none = self._q is not None and self._depth() == 0
        self._skipped = self._stale = False

    def unit_valid(self) -> bool:
        """Before the commit: False when a look-up this unit skipped may have missed a
        record another instance wrote meanwhile (back out and examine again)."""
        if not self._skipped:
            return True
        return not self._stale and (not self._none or self._depth() == 0)

    def _depth(self) -> int | None:
        """The status queue's depth; None when this user may not inquire it (2035): the
        empty-queue shortcut is then off and every look-up reads the queue, so a run
        needs no inq authority on its status queue (None is never 0: nothing skipped)."""
        if not self._inquirable:
            return None
        try:
            return self._qmgr.inquire_queue(self.queue_name).curdepth
        except MQIError as exc:
            if exc.reason != MQRC_NOT_AUTHORIZED:
                raise
            self._inquirable = False
            return None

    # -- writes ------------------------------------------------------------------
    def record_failure(
        self, subject: Subject, previous: AttemptRecord | None, now: float
    ) -> AttemptRecord:
        """Count one more failed attempt, at once (outside any unit of work)."""
        if self._q is None or self.readonly:
            return AttemptRecord((previous.attempts if previous else 0) + 1, now)
        if self._none:  # look-ups were skipped: read this one for real before counting
            self._stale = self._skipped and self._depth() != 0  # someone else wrote
            self._none = False
            found = self.lookup(subject)
            if found is not None and previous is None:
                # Another instance counted an attempt meanwhile, which the decision did
                # not see: count nothing; the message is examined again with its record.
                self._stale = True
                return AttemptRecord(
                    found.attempts, found.last_attempt, found.status_ids, counted=False
                )
        attempts = (previous.attempts if previous else 0) + 1
        status_id = put_record(
            self._q, subject.key, {"n": attempts, "last": round(now, 3), **subject.describe()}
        )
        for old in previous.status_ids if previous else ():
            remove_record(self._q, old, syncpoint=False)
        return AttemptRecord(attempts, now, (status_id,))

    def clear(self, previous: AttemptRecord | None) -> None:
        """Remove a record inside the current unit of work (the message left the DLQ)."""
        if previous is None or self._q is None or self.readonly:
            return
        for status_id in previous.status_ids:
            remove_record(self._q, status_id, syncpoint=True)

    # -- garbage collection -------------------------------------------------------
    def sweep(self, present: Callable[[Subject], bool]) -> int:
        """Remove records whose DLQ message was gone at this sweep and the last one.

        ``present(subject)`` says whether the message (or any member of the
        group) is still on the DLQ. Returns how many records were removed.
        """
        if self._q is None or self.readonly:
            return 0
        previous, self._candidates = self._candidates, {}
        removed = 0
        for msg in browse_all(self._q):
            subject = _subject_of(msg)
            if subject is None or present(subject):
                continue
            status_id = msg.md.msg_id
            if previous.get(status_id) == subject.key:
                removed += remove_record(self._q, status_id, syncpoint=False)
            elif len(self._candidates) < MAX_SWEEP_CANDIDATES:
                self._candidates[status_id] = subject.key
        return removed

    def close(self) -> None:
        if self._q is not None:
            self._q.close()


def put_record(q: Queue, key: bytes, data: dict[str, object]) -> bytes:
    """Put one persistent JSON status record under CorrelId ``key`` at once (outside
    any unit of work); returns its MsgId."""
    md = MQMD(correl_id=key, format="MQSTR", persistence=1, coded_char_set_id=1208)
    return q.put(Message(md, json.dumps(data).encode()), _NOW).msg_id


def remove_record(q: Queue, status_id: bytes, *, syncpoint: bool) -> bool:
    """Remove one status record by MsgId; False when another process removed it first."""
    try:
        q.get(GetOptions(msg_id=status_id, syncpoint=syncpoint))
    except MQIError as exc:
        if exc.reason == MQRC_NO_MSG_AVAILABLE:
            return False
        raise
    return True


def read_records(
    q: Queue, key: bytes, parse: Callable[[bytes], R | None], rank: Callable[[R], int]
) -> tuple[R | None, tuple[bytes, ...]] | None:
    """The status messages under CorrelId ``key``: the highest-ranked record that
    parses (None if none does) and every one's MsgId; None when there are none.

    A writer puts the new record before it removes the old, so a reader may see
    both for a moment: the highest count wins.
    """
    best: R | None = None
    ids: list[bytes] = []
    for msg in browse_all(q, correl_id=key):
        ids.append(msg.md.msg_id)
        record = parse(msg.body)
        if record is not None and (best is None or rank(record) > rank(best)):
            best = record
    return (best, tuple(ids)) if ids else None


def recorded_attempts(qmgr: QueueManager, queue: str = DEFAULT_STATUS_QUEUE) -> dict[bytes, int]:
    """Every record on the status ``queue``, browsed once: its key (the subject's
    CorrelId) and the highest count found under it (as :meth:`AttemptStore.lookup`
    reads one). Raises MQIError when the queue cannot be browsed."""
    q = qmgr.open(queue, input=False, browse=True)
    try:
        counts: dict[bytes, int] = {}
        for msg in browse_all(q):
            record = _parse(msg.body)
            key = msg.md.correl_id
            if record is not None and record.attempts > counts.get(key, 0):
                counts[key] = record.attempts
        return counts
    finally:
        q.close()


def _parse(body: bytes) -> AttemptRecord | None:
    try:
        data = json.loads(body)
        return AttemptRecord(int(data["n"]), float(data["last"]))
    except (ValueError, KeyError, TypeError):
        return None


def _subject_of(msg: Message) -> Subject | None:
    """The subject a status message is about, or None if it is not one of ours."""
    try:
        data = json.loads(msg.body)
        if "groupid" in data:
            subject = group_subject(bytes.fromhex(data["groupid"]))
        else:
            subject = message_subject(bytes.fromhex(data["msgid"]), bytes.fromhex(data["correlid"]))
    except (ValueError, KeyError, TypeError):
        return None
    return subject if subject.key == msg.md.correl_id else None
