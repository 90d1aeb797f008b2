"""Carrying out decisions: one message (or one group) at a time, under units of work.

:class:`Actor` is what the loop in :mod:`dlqhandler.worker.handler` calls for
each message it browses (locked) from the DLQ:

* a message without a valid MQDLH is counted and reported (rate-limited);
* otherwise its durable attempt count is read and the rules decide; an action
  whose last failed attempt is under RETRYINT old waits for a later pass; a
  message whose rules are spent (IGNORE) is left at once;
* the action is carried out by :mod:`dlqhandler.acting`, as ``drain --apply``
  carries it out. RETRY/FWD: PUT1 to the target first, then the destructive get
  of the locked message under the cursor, both under syncpoint - a failed put
  never touches the DLQ message, it only counts an attempt (outside syncpoint,
  so every handler sees it at once); DISCARD is the get alone;
* several messages share a unit of work (``batch_size``); a message close to
  expiry gets one of its own; a group or segmented message is moved whole, in
  logical order, in a unit of its own, with one attempt count for the group:
  every member is got first, and a failed put is counted while the group is
  still held, then backed out (:mod:`dlqhandler.acting.group`; the handler's side
  in :mod:`dlqhandler.worker.group_acting`);
* with a selector (``--msgid``/``--match``) a message that is not selected is left
  untouched: no attempt count is read or written, nothing is logged about it. A
  group is selected when any of its members is (it moves whole). A message
  without a valid MQDLH is never selected (it could not be acted on anyway);
* with ``--max-rate`` each message acted on (each member of a group) takes a token
  first; when none is there the open unit of work is committed before waiting,
  so the wait never holds uncommitted messages;
* outcomes go to the metrics, when there are any: per rule line, action and
  outcome (``ok``, ``failed``, ``backed_out``, ``not_done`` in a dry run), failed
  attempts by MQ reason code. IGNORE is not counted: a message left on the queue
  would be counted again on every pass.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dlqhandler.acting import (
    PLAN_ERRORS,
    Acted,
    AuditTrail,
    Outgoing,
    UnitOfWork,
    act_on_message,
    plan,
    refusal,
)
from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq.ages import dead_lettered_at, put_at
from dlqhandler.mq.constants import reason_name
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.qmgr.attempts import (
    AttemptRecord,
    AttemptStore,
    Subject,
    message_subject,
)
from dlqhandler.qmgr.port import Queue, QueueManager
from dlqhandler.rules import Decision, Matcher, RuleSet
from dlqhandler.worker.group_acting import handle_group
from dlqhandler.worker.groups import in_group
from dlqhandler.worker.options import HandlerOptions
from dlqhandler.worker.passes import PassState, still_on_queue
from dlqhandler.worker.reporting import ReportLimiter
from dlqhandler.worker.selection import RateLimiter, Selector
from dlqhandler.worker.stats import RunStats

if TYPE_CHECKING:
    from dlqhandler.worker.metrics import HandlerMetrics

__all__ = ["QUIET_END", "Actor", "PassState"]  # PassState: from .passes

# MQ reasons that end the handler quietly (spec §5.4): CONNECTION_BROKEN,
# Q_MGR_QUIESCING, Q_MGR_STOPPING. Every other unexpected MQ error is fatal.
QUIET_END = frozenset({2009, 2161, 2162})


@dataclass
class _Batch:
    size: int = 0
    effects: list[Callable[[], None]] = field(default_factory=list)


class Actor:
    """Decides and acts for the messages the loop hands it; owns the unit of work.

    ``dlq`` is the loop's browse handle (its cursor is on the message being
    examined, which it has locked); ``other`` a second handle on the DLQ for
    the other members of a group.
    """

    def __init__(
        self,
        qmgr: QueueManager,
        options: HandlerOptions,
        stats: RunStats,
        store: AttemptStore,
        *,
        dlq: Queue,
        other: Queue,
        ruleset: RuleSet,
        clock: Callable[[], float],
        log: Any,
        selector: Selector | None = None,
        limiter: RateLimiter | None = None,
        stop: threading.Event | None = None,
        metrics: HandlerMetrics | None = None,
        audit: AuditTrail | None = None,
    ) -> None:
        self.qmgr = qmgr
        self._audit = audit
        self._selector = selector or Selector()
        self._limiter = limiter
        self._stop = stop
        self._metrics = metrics
        self.options = options
        self.stats = stats
        self._store = store
        self._unit = UnitOfWork(
            qmgr,
            store,
            clock,
            fatal=QUIET_END,
            audit_queue=audit.queue if audit is not None else None,
        )
        self._dlq, self._other = dlq, other
        self._clock = clock
        self._log = log
        self._qmgr_name = qmgr.name
        self._no_dlh = ReportLimiter(
            interval=options.no_dlh_report_interval, per_pass=options.no_dlh_reports_per_pass
        )
        self._batch = _Batch()
        # Messages (or groups) whose last action failed: by attempt-record key.
        self._unresolved: dict[bytes, Subject] = {}
        self._unit_open = False  # the attempt store's new_unit was asked for this unit
        self._ruleset = ruleset
        self._matcher = Matcher(ruleset)

    def use(self, ruleset: RuleSet) -> None:
        """Decide with ``ruleset`` from now on (call between units of work)."""
        self._ruleset = ruleset
        self._matcher = Matcher(ruleset)

    def unresolved(self) -> int:
        """How many messages (a group counts once) whose last action here failed are
        still on the DLQ (another handler may have acted on them since)."""
        return still_on_queue(self._other, self._unresolved.values())

    def new_pass(self) -> None:
        self._no_dlh.new_pass()

    @property
    def in_unit(self) -> bool:
        """Whether a unit of work is open (a batch not yet committed)."""
        return self._batch.size > 0

    @property
    def reports_suppressed(self) -> int:
        """Warnings about messages without an MQDLH held back so far."""
        return self._no_dlh.suppressed

    def examine(self, raw: Message, p: PassState) -> None:
        """Decide and act for the message under the cursor; note it if it stays."""
        md = raw.md
        try:
            msg = decode_dead_letter(md, raw.body, raw.properties, behind_rfh2=True)
        except MalformedMessageError as exc:
            p.no_dlh += 1
            p.left(put_at(md.put_date, md.put_time))
            # said in a table run, and in a one-off run for a message its --msgid names
            named = not self._selector.active or md.msg_id in self._selector.msg_ids
            if named and self._no_dlh.allow(md.msg_id, self._clock()):
                self._log.warning(
                    "message_without_dlh",
                    msgid=md.msg_id.hex(),
                    detail=str(exc),
                    length=len(raw.body),
                )
            return
        if not self._examine(msg, p):
            p.left(dead_lettered_at(msg))

    def _examine(self, msg: Message, p: PassState) -> bool:
        """True when the message was taken into the unit of work (it leaves the DLQ)."""
        md = msg.md
        if in_group(md):
            return handle_group(self, msg, p)
        if not self._selector.selects(msg):
            p.not_selected += 1
            return False
        subject = message_subject(md.msg_id, md.correl_id)
        record = self._lookup(subject)
        attempts = record.attempts if record is not None else 0
        decision = self._matcher.decide(msg, attempts)
        if decision.action.kind != "IGNORE" and not self._due(record, p):
            return False
        log = self._log.bind(
            msgid=md.msg_id.hex(),
            reason=msg.dlh.reason if msg.dlh else None,
            destq=msg.dlh.dest_q_name if msg.dlh else None,
            rule_line=decision.rule.line if decision.rule else None,
            action=decision.action.kind,
            attempts=attempts,
        )
        if decision.action.kind == "IGNORE":
            p.ignored += 1
            log.debug("message_ignored", implicit=decision.implicit, outcome="left")
            return False
        if self.options.dry_run:
            if not self._dry_run(msg, decision, log):
                self._unresolved[subject.key] = subject
            return False
        p.useful = True
        if not self._pace(1):
            return False
        near_expiry = 0 < md.expiry <= self.options.near_expiry_tenths
        if near_expiry:
            self.commit()  # its unit of work holds it alone: a failure touches nothing else
        taken = self._act(msg, decision, subject, record, log)
        # An audited action has a unit of work of its own: a record that cannot be put
        # backs out that action alone.
        if near_expiry or self._audit is not None or self._batch.size >= self.options.batch_size:
            self.commit()
        return taken

    def _pace(self, n: int) -> bool:
        """Take ``n`` --max-rate tokens. When one must be waited for, the unit of work is
        committed and the browse lock given up first: a wait holds neither uncommitted
        messages nor a lock. The message is then acted on unlocked; if another handler
        takes it meanwhile, its get fails and the unit backs out (``message_vanished``).
        False when the handler is stopping."""
        if self._limiter is None:
            return True
        for _ in range(n):
            if self._limiter.try_acquire():
                continue
            self.commit()
            self._dlq.unlock()
            if not self._limiter.acquire(self._stop):
                return False
        return True

    def _count(self, line: int | None, action: str, outcome: str) -> None:
        if self._metrics is not None:
            self._metrics.decision(line, action, outcome)

    def _due(self, record: AttemptRecord | None, p: PassState) -> bool:
        """False (and note when) if the last failed attempt was under RETRYINT ago.

        Asked only when the decision is to act: a message whose rules are spent
        (IGNORE) is left at once, without keeping WAIT(NO) waiting for it.
        """
        retryint = self._ruleset.control.retryint
        if record is None or self._clock() - record.last_attempt >= retryint:
            return True
        p.wait_for(record.last_attempt + retryint)
        return False

    def _dry_run(self, msg: Message, decision: Decision, log: Any) -> bool:
        """Log and count what the run would do; False when it would be refused (a loop,
        an unusable target), counted as the run counts that failure, not as done."""
        target: str | None = None
        line = decision.rule.line if decision.rule else None
        try:
            out = self._plan(decision, msg)
        except PLAN_ERRORS as exc:
            self.stats.record_failure(line, refusal(exc))
            self._count(line, decision.action.kind, "would_fail")
            log.warning(
                "dry_run_decision",
                target=None,
                refused=refusal(exc),
                detail=str(exc),
                outcome="would_fail",
            )
            return False
        target = self._where(out)
        self.stats.record_action(line, decision.action.kind)
        self._count(line, decision.action.kind, "not_done")
        log.info("dry_run_decision", target=target, outcome="not_done")
        return True

    def _plan(self, decision: Decision, msg: Message) -> Outgoing | None:
        return plan(
            decision,
            msg,
            input_queue=self.options.input_queue,
            local_qmgr=self._qmgr_name,
            max_hops=self.options.max_hops,
        )

    def _where(self, out: Outgoing | None) -> str | None:
        return None if out is None else out.where(self._qmgr_name)

    def _act(
        self,
        msg: Message,
        decision: Decision,
        subject: Subject,
        record: AttemptRecord | None,
        log: Any,
    ) -> bool:
        """Carry out one decision inside the current unit of work; True when the
        message was taken (it leaves the DLQ when the unit of work commits)."""
        line = decision.rule.line if decision.rule else None
        kind = decision.action.kind
        try:
            out = self._plan(decision, msg)
        except PLAN_ERRORS as exc:
            self._failed(
                subject,
                self._unit.count_failure(subject, record),
                line=line,
                action=kind,
                reason=refusal(exc),
                detail=str(exc),
                log=log,
            )
            return False
        target = self._where(out)
        acted = act_on_message(
            self._unit,
            out,
            subject,
            record,
            take=lambda: self._unit.take(self._dlq, msg, under_cursor=True),
            audit=self._audit_record(msg, kind, target),
        )
        if acted.outcome == "unaudited":
            self._unaudited(acted, subject, [(line, kind)], log)
            return False
        if acted.error is not None and acted.record is not None:  # the put failed
            error = acted.error
            quiet = kind == "RETRY" and msg.dlh is not None and error.reason == msg.dlh.reason
            self._failed(
                subject,
                acted.record,
                line=line,
                action=kind,
                reason=reason_name(error.reason),
                detail=error.detail,
                log=log,
                quiet=quiet,
                target=target,
                code=error.reason,
            )
            return False
        if acted.outcome == "vanished":
            # Expired or removed under our lock: the put must not stand alone.
            self.stats.vanished += 1
            self._count(line, kind, "backed_out")
            log.warning("message_vanished", target=target, outcome="backed_out")
            self._backed_out()
            return True
        self._unresolved.pop(subject.key, None)
        self._batch.size += 1
        self._batch.effects.append(functools.partial(self._done, line, kind, log, target))
        return True

    def _audit_record(self, msg: Message, kind: str, target: str | None) -> Message | None:
        """The action's audit record, when this run is audited (--reason)."""
        if self._audit is None:
            return None
        return self._audit.message(msg, kind, target)

    def _unaudited(
        self, acted: Acted, subject: Subject, actions: list[tuple[int | None, str]], log: Any
    ) -> None:
        """The audit record could not be put: the action was backed out with it (never
        done without its record); the message stays, reported as failed."""
        error = acted.error
        reason = "AUDIT_" + (reason_name(error.reason) if error is not None else "FAILED")
        self._backed_out()
        self._unresolved[subject.key] = subject
        for line, kind in actions:
            self.stats.record_failure(line, reason)
            self._count(line, kind, "backed_out")
        log.warning(
            "audit_put_failed",
            audit_queue=self._unit.audit_queue,
            reason_code=error.reason if error is not None else None,
            reason_name=reason,
            detail=error.detail if error is not None else None,
            outcome="backed_out",
        )

    def _taken(self, n: int, effects: list[Callable[[], None]]) -> None:
        """``n`` messages were taken into the unit of work; ``effects`` run at its commit."""
        self._batch.size += n
        self._batch.effects.extend(effects)

    def _done(self, line: int | None, kind: str, log: Any, target: str | None) -> None:
        self.stats.record_action(line, kind)
        self._count(line, kind, "ok")
        event = {
            "RETRY": "message_retried",
            "FWD": "message_forwarded",
            "DISCARD": "message_discarded",
        }[kind]
        log.info(event, target=target, outcome="ok")

    def _failed(
        self,
        subject: Subject,
        new: AttemptRecord,
        *,
        line: int | None,
        action: str,
        reason: str,
        detail: str,
        log: Any,
        quiet: bool = False,
        target: str | None = None,
        code: int | None = None,
    ) -> AttemptRecord:
        """Report a failed attempt, already counted (``new``) while the message was held."""
        self._unresolved[subject.key] = subject
        if not new.counted:  # another handler counted an attempt this decision missed
            log.info(
                "put_failed_uncounted",
                reason_code=code,
                reason_name=reason,
                attempts=new.attempts,
                outcome="left",
            )
            return new
        self.stats.record_failure(line, reason)
        self._count(line, action, "failed")
        if self._metrics is not None:
            self._metrics.put_failure(code if code is not None else reason)
        # runmqdlq stays silent when a RETRY fails again for the reason the message was
        # dead-lettered (queue still full...): an info event, not a warning.
        level = log.info if quiet else log.warning
        level(
            "put_failed",
            reason_code=code,
            reason_name=reason,
            detail=detail,
            target=target,
            attempts=new.attempts,
            quiet=quiet,
            outcome="failed",
        )
        return new

    # -- units of work -------------------------------------------------------------
    def _lookup(self, subject: Subject) -> AttemptRecord | None:
        """The subject's attempt record; no read while the status queue holds none (see
        :mod:`dlqhandler.qmgr.attempts`: checked once per unit of work)."""
        if not self._unit_open:
            self._store.new_unit()
            self._unit_open = True
        return self._store.lookup(subject)

    def commit(self) -> None:
        if self._batch.size == 0:
            return
        self._unit_open = False
        if not self._store.unit_valid():  # a record appeared while look-ups were skipped
            self._log.info("unit_backed_out_status_records_appeared", messages=self._batch.size)
            self.backout()
            return
        batch, self._batch = self._batch, _Batch()
        self._unit.commit()
        self.stats.commits += 1
        for effect in batch.effects:
            effect()

    def backout(self) -> None:
        self._unit.backout()
        self._backed_out()

    def _backed_out(self) -> None:
        """The unit of work was backed out (here or by :mod:`dlqhandler.acting`)."""
        self._unit_open = False
        batch, self._batch = self._batch, _Batch()
        if batch.size:
            self.stats.backouts += 1
