"""The handler's account of what it did: counts, metrics, log events, what is unresolved.

:class:`Books` is told the result of every decision the actor (:mod:`.actor`) carries
out, and keeps the one account of it: the run's :class:`~dlqhandler.worker.stats.RunStats`
(the summary), the Prometheus metrics (per rule line, action and
:class:`~dlqhandler.outcomes.Outcome`; failed attempts by MQ reason), the log events, and
the messages (each member of a group) whose last action here failed and that may still be on
the DLQ. IGNORE is not counted in the metrics: a message left on the queue would be
counted again on every pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from dlqhandler.acting import Attempt
from dlqhandler.mq.constants import reason_name
from dlqhandler.mq.message import Message
from dlqhandler.outcomes import Outcome
from dlqhandler.qmgr.attempts import Subject
from dlqhandler.qmgr.port import Queue
from dlqhandler.rules import Decision
from dlqhandler.worker.passes import still_on_queue
from dlqhandler.worker.stats import RunStats

if TYPE_CHECKING:
    from dlqhandler.worker.metrics import HandlerMetrics

__all__ = ["Books", "line_of", "message_log"]

_DONE_EVENTS = {
    "RETRY": "message_retried",
    "FWD": "message_forwarded",
    "DISCARD": "message_discarded",
}


def line_of(decision: Decision) -> int | None:
    """The deciding rule's line (None: the implicit IGNORE)."""
    return decision.rule.line if decision.rule is not None else None


def message_log(log: Any, msg: Message, decision: Decision, **more: Any) -> Any:
    """``log`` bound to a message and its decision (the fields every event carries)."""
    return log.bind(
        msgid=msg.md.msg_id.hex(),
        reason=msg.dlh.reason if msg.dlh else None,
        destq=msg.dlh.dest_q_name if msg.dlh else None,
        rule_line=line_of(decision),
        action=decision.action.kind,
        **more,
    )


class Books:
    """The stats, metrics, log events and unresolved messages of one handler run."""

    def __init__(self, stats: RunStats, metrics: HandlerMetrics | None, audit_queue: str | None):
        self.stats = stats
        self._metrics = metrics
        self._audit_queue = audit_queue
        # Messages (or groups) whose last action failed: by attempt-record key.
        self._unresolved: dict[bytes, Subject] = {}

    # -- what is unresolved ----------------------------------------------------------
    def unresolved(self, subject: Subject) -> None:
        """``subject``'s last action failed (or would be refused): it may still be there."""
        self._unresolved[subject.key] = subject

    def resolved(self, subject: Subject) -> None:
        self._unresolved.pop(subject.key, None)

    def still_unresolved(self, queue: Queue) -> int:
        """How many unresolved messages (each member of a group) are still on ``queue``
        (another handler may have acted on them since)."""
        return still_on_queue(queue, self._unresolved.values())

    # -- counting --------------------------------------------------------------------
    def count(self, decision: Decision, outcome: Outcome) -> None:
        """One decision's outcome in the metrics."""
        if self._metrics is not None:
            self._metrics.decision(line_of(decision), decision.action.kind, outcome)

    def done(self, decision: Decision, log: Any, target: str | None) -> None:
        """An action committed: counted, and its event logged."""
        self.stats.record_action(line_of(decision), decision.action.kind)
        self.count(decision, Outcome.OK)
        log.info(_DONE_EVENTS[decision.action.kind], target=target, outcome=Outcome.OK)

    def dry_run(self, decision: Decision, log: Any, target: str | None) -> None:
        """A dry run: what the action would do."""
        self.stats.record_action(line_of(decision), decision.action.kind)
        self.count(decision, Outcome.NOT_DONE)
        log.info("dry_run_decision", target=target, outcome=Outcome.NOT_DONE)

    def would_fail(self, decision: Decision, log: Any, refusal: str, detail: str) -> None:
        """A dry run: the action would be refused."""
        self.stats.record_failure(line_of(decision), refusal)
        self.count(decision, Outcome.WOULD_FAIL)
        log.warning(
            "dry_run_decision",
            target=None,
            refused=refusal,
            detail=detail,
            outcome=Outcome.WOULD_FAIL,
        )

    def vanished(self, decisions: Iterable[Decision]) -> None:
        """A message (or a group's member) was gone when it was to be taken."""
        self.stats.vanished += 1
        for d in decisions:
            self.count(d, Outcome.BACKED_OUT)

    def failed(
        self,
        subject: Subject,
        attempt: Attempt,
        decision: Decision,
        log: Any,
        *,
        target: str | None,
        quiet: bool = False,
    ) -> None:
        """A failed (or refused) attempt, already counted on the status queue while the
        message was held (``attempt.record``): in the summary, the metrics and the log."""
        self.unresolved(subject)
        new = attempt.record
        assert new is not None
        code = attempt.error.reason if attempt.error is not None else None
        reason = attempt.refusal or reason_name(code or 0)
        if not new.counted:  # another handler counted an attempt this decision missed
            log.info(
                "put_failed_uncounted",
                reason_code=code,
                reason_name=reason,
                attempts=new.attempts,
                outcome=Outcome.LEFT,
            )
            return
        self.stats.record_failure(line_of(decision), reason)
        self.count(decision, Outcome.FAILED)
        if self._metrics is not None:
            self._metrics.put_failure(code if code is not None else reason)
        # runmqdlq stays silent when a RETRY fails again for the reason the message was
        # dead-lettered (queue still full...): an info event, not a warning.
        level = log.info if quiet else log.warning
        level(
            "put_failed",
            reason_code=code,
            reason_name=reason,
            detail=attempt.error.detail if attempt.error is not None else attempt.detail,
            target=target,
            attempts=new.attempts,
            quiet=quiet,
            outcome=Outcome.FAILED,
        )

    def unaudited(self, subject: Subject, attempt: Attempt, log: Any) -> None:
        """The audit record could not be put: the action was backed out with it (never
        done without its record); the message stays, reported as failed."""
        error = attempt.error
        reason = "AUDIT_" + (reason_name(error.reason) if error is not None else "FAILED")
        self.unresolved(subject)
        for _m, d in attempt.decided:
            self.stats.record_failure(line_of(d), reason)
            self.count(d, Outcome.BACKED_OUT)
        log.warning(
            "audit_put_failed",
            audit_queue=self._audit_queue,
            reason_code=error.reason if error is not None else None,
            reason_name=reason,
            detail=error.detail if error is not None else None,
            outcome=Outcome.BACKED_OUT,
        )
