"""Backing off when a triggered handler cannot empty its DLQ (the closed loop).

A dead-letter queue triggered with TRIGTYPE(FIRST) is triggered again when
the last application serving it closes it with messages left (condition 12
of "Conditions for a trigger event"). A handler whose rules table leaves
messages (IGNORE, RETRY counts used up, no matching rule, no MQDLH) ends,
closes the DLQ, and is started again at once, forever: the closed loop of
that condition's note 1.

dlqhandler breaks it without giving up on new messages. A *triggered* run
(``dlqhandler run "<MQTMC2>"``) that made no progress does not close the DLQ
when WAIT says it may end: it keeps the queue open for input (so no FIRST
trigger can fire) and goes on watching it for ``hold`` seconds, processing
any message that arrives, then ends. The hold doubles with each consecutive
run that made no progress: ``base``, ``2 x base``, ``4 x base`` ... capped at
``cap`` (defaults 10 s and 600 s; ``dlqhandler run --trigger-backoff MAX
--trigger-backoff-base BASE``; MAX 0 turns it off). So a DLQ left non-empty
costs at most one handler start per ``cap`` seconds, and new messages are
still handled within a poll interval.

*No progress* means: the run (hold included) moved or discarded nothing
(RETRY, FWD and DISCARD all count; a failed attempt does not) and messages
are still on the DLQ. Messages that arrived meanwhile and were left too do
not count as progress: counting them would let a trickle of messages the
table ignores reset the backoff and bring the loop back. A run that ends
with the DLQ empty cannot loop and needs no hold. A triggered run that ends
on an MQ error (GET inhibited, say) is re-triggered the same way when it
closes the queue (that condition's note 2, the abend), so it too holds the
queue open, idle, before it exits. A run stopped by a signal is not counted.

The count survives the process: it is one small record per input queue on
the handler's status queue (``DLQHANDLER.STATUS``, shared with the attempt
counts of :mod:`dlqhandler.qmgr.attempts`, whose sweep leaves it alone):

* CorrelId = a 24-byte digest of ``"trigger:" + queue name``;
* data = JSON ``{"trigger": queue, "idle_runs": n, "last": unix seconds,
  "left": depth, "hold": seconds}``.

It is written when a hold starts (so an interrupted hold still counts) and
removed when a triggered run makes progress. Concurrent triggered runs on
one queue (TRIGTYPE EVERY) may overwrite each other's record: the reader
takes the highest count, which only errs towards a longer hold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dlqhandler.errors import MQIError
from dlqhandler.logs import get_logger
from dlqhandler.qmgr.attempts import put_record, read_records, remove_record
from dlqhandler.qmgr.port import Queue, QueueManager
from dlqhandler.worker.stats import RunStats

__all__ = [
    "DEFAULT_BACKOFF_BASE",
    "DEFAULT_BACKOFF_MAX",
    "BackoffPolicy",
    "TriggerRecord",
    "TriggerRecords",
    "TriggeredRun",
    "hold_seconds",
]

DEFAULT_BACKOFF_BASE = 10.0
DEFAULT_BACKOFF_MAX = 600.0


@dataclass(frozen=True, slots=True)
class BackoffPolicy:
    """Hold ``base`` seconds after the first run without progress, doubling, at most
    ``cap``; ``cap`` (or ``base``) 0 turns the backoff off."""

    base: float = DEFAULT_BACKOFF_BASE
    cap: float = DEFAULT_BACKOFF_MAX

    @property
    def enabled(self) -> bool:
        return self.base > 0 and self.cap > 0


def hold_seconds(idle_runs: int, policy: BackoffPolicy) -> float:
    """How long a run holds the DLQ when ``idle_runs`` runs before it made no progress."""
    if not policy.enabled:
        return 0.0
    return min(policy.cap, policy.base * 2.0 ** min(max(idle_runs, 0), 32))


@dataclass(frozen=True, slots=True)
class TriggerRecord:
    """Consecutive triggered runs without progress, when the last one held, and the
    MsgIds of the status messages holding the record (usually one)."""

    idle_runs: int
    last: float
    left: int | None = None
    hold: float = 0.0
    status_ids: tuple[bytes, ...] = ()


def _key(queue: str) -> bytes:
    return hashlib.blake2b(b"trigger:" + queue.encode("utf-8"), digest_size=24).digest()


class TriggerRecords:
    """The no-progress count of one input queue, on the status queue."""

    def __init__(self, qmgr: QueueManager, status_queue: str, input_queue: str) -> None:
        self.input_queue = input_queue
        self._key = _key(input_queue)
        self._q: Queue = qmgr.open(status_queue, input=True, browse=True, output=True)

    def read(self) -> TriggerRecord | None:
        """The record, or None when the last triggered run made progress (or none ran)."""
        found = read_records(self._q, self._key, _parse, lambda r: r.idle_runs)
        if found is None:
            return None
        best, ids = found
        base = best or TriggerRecord(0, 0.0)
        return TriggerRecord(base.idle_runs, base.last, base.left, base.hold, ids)

    def write(
        self,
        idle_runs: int,
        *,
        now: float,
        left: int | None,
        hold: float,
        previous: TriggerRecord | None,
    ) -> TriggerRecord:
        """Replace the record (put the new one first, then remove the old), at once."""
        status_id = put_record(
            self._q,
            self._key,
            {
                "trigger": self.input_queue,
                "idle_runs": idle_runs,
                "last": round(now, 3),
                "left": left,
                "hold": hold,
            },
        )
        self.remove(previous)
        return TriggerRecord(idle_runs, now, left, hold, (status_id,))

    def remove(self, record: TriggerRecord | None) -> None:
        """Remove the record at once (another run may have removed it meanwhile)."""
        for status_id in record.status_ids if record else ():
            remove_record(self._q, status_id, syncpoint=False)

    def close(self) -> None:
        self._q.close()


def _parse(body: bytes) -> TriggerRecord | None:
    try:
        data = json.loads(body)
        left = data.get("left")
        return TriggerRecord(
            int(data["idle_runs"]),
            float(data["last"]),
            None if left is None else int(left),
            float(data.get("hold", 0)),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class TriggeredRun:
    """The closed-loop guard of one triggered run.

    The handler calls :meth:`linger` each time WAIT says it may end; a result
    above zero means "keep the DLQ open and watch it that many seconds more".
    :meth:`finish` (after the run) resets the count when the run made
    progress. ``depth()`` returns the DLQ's current depth; ``clock`` is
    injectable for tests.
    """

    def __init__(
        self,
        records: TriggerRecords,
        policy: BackoffPolicy,
        *,
        depth: Callable[[], int],
        clock: Callable[[], float],
        log: Any = None,
    ) -> None:
        self._records = records
        self._policy = policy
        self._depth = depth
        self._clock = clock
        self._log = log or get_logger("backoff", queue=records.input_queue)
        self._deadline: float | None = None
        self._record: TriggerRecord | None = None
        self.hold = 0.0  # seconds this run decided to hold (0: it did not)

    def linger(self, stats: RunStats) -> float:
        """Seconds more to hold the DLQ open before ending (0: end now)."""
        if stats.acted > 0 or not self._policy.enabled:
            return 0.0
        if self._deadline is None:
            left = self._known_depth()
            if left == 0:
                return 0.0  # closing an empty queue triggers nothing
            previous = self._records.read()
            idle_runs = previous.idle_runs if previous else 0
            now = self._clock()
            self.hold = hold_seconds(idle_runs, self._policy)
            self._deadline = now + self.hold
            self._record = self._records.write(
                idle_runs + 1, now=now, left=left, hold=self.hold, previous=previous
            )
            self._log.warning(
                "trigger_loop_backoff",
                idle_runs=idle_runs + 1,
                hold_seconds=self.hold,
                left_on_queue=left,
                detail="a triggered run left messages it cannot process; the"
                " DLQ stays open (and watched) so it is not"
                " re-triggered at once",
            )
        return max(0.0, self._deadline - self._clock())

    def _known_depth(self) -> int | None:
        """The DLQ's depth, or None when the inquiry is refused (2035 without +inq): the
        queue may hold messages, so the run holds as if it did, and says why."""
        try:
            return self._depth()
        except MQIError as exc:
            self._log.warning(
                "trigger_depth_unknown",
                reason=exc.reason,
                detail=f"MQINQ of {self._records.input_queue} failed with {exc}; the run "
                "holds as if messages were left (grant +inq on the DLQ to let it tell)",
            )
            return None

    def finish(self, stats: RunStats, left: int | None) -> None:
        """After the run: progress (something acted, or the DLQ is empty) resets the count."""
        if not (stats.acted > 0 or left == 0):
            return
        record = self._record or self._records.read()
        if record is None:
            return
        self._records.remove(record)
        self._record = None
        self._log.info(
            "trigger_backoff_reset",
            previous_idle_runs=record.idle_runs,
            acted=stats.acted,
            left_on_queue=left,
        )

    def close(self) -> None:
        self._records.close()
