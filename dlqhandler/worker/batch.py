"""The handler's batched unit of work: several messages taken, committed together.

The actor (:mod:`.actor`) takes messages into the open unit of work (up to
``batch_size``; a group, an audited action or a message close to expiry gets a unit of
its own) and registers what to report once it commits. :class:`Batch` owns that unit
(:class:`~dlqhandler.acting.UnitOfWork`) and the attempt store's view of it: attempt
records are looked up at most once per unit while the status queue holds none
(:mod:`dlqhandler.qmgr.attempts`), and a unit during which a record appeared unseen is
backed out rather than committed. A unit also stays within the queue manager's
MaxUncommittedMsgs: :meth:`Batch.fits` says whether an action's most (its
:meth:`~dlqhandler.acting.UnitOfWork.cost`) still fits, else the actor commits first.

A commit whose outcome is unknown (:data:`~dlqhandler.acting.COMMIT_UNKNOWN`: the
connection broke during MQCMIT) runs none of the unit's effects: its messages are counted
neither moved nor failed, but named (``commit_outcome_unknown``, the summary's
``outcome unknown``), and the error ends the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dlqhandler.acting import COMMIT_UNKNOWN, UnitOfWork
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import reason_name
from dlqhandler.qmgr.attempts import AttemptRecord, AttemptStore, Subject
from dlqhandler.worker.stats import RunStats

__all__ = ["Batch"]


class Batch:
    """The open unit of work: how many messages it holds, and what to do at its commit."""

    def __init__(self, unit: UnitOfWork, store: AttemptStore, stats: RunStats, log: Any) -> None:
        self.unit = unit
        self._store = store
        self._stats = stats
        self._log = log
        self.size = 0
        self.uncommitted = 0  # the most the unit's actions can have added (see fits)
        self._effects: list[Callable[[], None]] = []
        self._msg_ids: list[bytes] = []  # what the unit takes off the DLQ when it commits
        self._store_asked = False  # the attempt store's new_unit was asked for this unit

    def lookup(self, subject: Subject) -> AttemptRecord | None:
        """The subject's attempt record (no read while the status queue holds none:
        checked once per unit of work)."""
        if not self._store_asked:
            self._store.new_unit()
            self._store_asked = True
        return self._store.lookup(subject)

    def fits(self, n: int) -> bool:
        """Whether an action on ``n`` messages fits in the open unit of work under the
        queue manager's MaxUncommittedMsgs (an empty unit takes anything: an action too
        big on its own fails with MQRC_SYNCPOINT_LIMIT_REACHED, counted as a failure)."""
        unit = self.unit
        return self.size == 0 or self.uncommitted + unit.cost(n) <= unit.max_uncommitted

    def taken(self, msg_ids: list[bytes], effects: list[Callable[[], None]]) -> None:
        """Messages (their MsgIds) were taken into the unit; ``effects`` run when it
        commits."""
        n = len(msg_ids)
        self.size += n
        self.uncommitted += self.unit.cost(n)
        self._effects.extend(effects)
        self._msg_ids.extend(msg_ids)

    def commit(self) -> None:
        """Commit the messages taken (their effects run), or back them out when an
        attempt record appeared while look-ups were skipped."""
        if self.size == 0:
            return
        self._store_asked = False
        if not self._store.unit_valid():
            self._log.info("unit_backed_out_status_records_appeared", messages=self.size)
            self.backout()
            return
        effects, msg_ids = self._effects, self._msg_ids
        self._reset()
        try:
            self.unit.commit()
        except MQIError as exc:
            if exc.reason in COMMIT_UNKNOWN:
                self._unknown(exc, msg_ids)
            raise
        self._stats.commits += 1
        for effect in effects:
            effect()

    def _unknown(self, exc: MQIError, msg_ids: list[bytes]) -> None:
        """The commit's outcome is unknown: its messages may have left the DLQ or not."""
        named = [m.hex() for m in msg_ids]
        self._stats.unknown_outcome.extend(named)
        self._log.error(
            "commit_outcome_unknown",
            reason=exc.reason,
            reason_name=reason_name(exc.reason),
            messages=len(named),
            msgids=named,
        )

    def backout(self) -> None:
        self.unit.backout()
        self.backed_out()

    def backed_out(self) -> None:
        """The unit of work was backed out (here or by :func:`dlqhandler.acting.attempt`)."""
        self._store_asked = False
        had = self.size
        self._reset()
        if had:
            self._stats.backouts += 1

    def _reset(self) -> None:
        self.size = 0
        self.uncommitted = 0
        self._effects = []
        self._msg_ids = []
