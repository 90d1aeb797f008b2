"""Deciding and acting for each message the handler's loop browses, one at a time.

:class:`Actor` is what the loop in :mod:`dlqhandler.worker.handler` calls for each
message it browses (locked) from the DLQ:

* a message without a valid MQDLH is counted and reported (rate-limited);
* otherwise its durable attempt count is read and the rules decide; an action whose
  last failed attempt is under RETRYINT old waits for a later pass; a message whose
  rules are spent (IGNORE) is left at once. A one-off action counts only its own
  attempts (:meth:`Actor.attempts`);
* the decision is carried out by :func:`dlqhandler.acting.attempt`, as ``drain
  --apply`` carries it out. RETRY/FWD: PUT1 to the target first, then the destructive
  get of the locked message under the cursor, both under syncpoint - a failed put never
  touches the DLQ message, it only counts an attempt (outside syncpoint, so every
  handler sees it at once); DISCARD is the get alone;
* several messages share a unit of work (``batch_size``, :mod:`.batch`); a message close
  to expiry gets one of its own; a group or segmented message is moved whole, in logical
  order, in a unit of its own, with one attempt count for the group: its other members
  are browsed on a second handle (:func:`dlqhandler.worker.groups.browse_group`), every
  member is got first, and a failed put is counted while the group is still held, then
  backed out;
* with a selector (``--msgid``/``--match``) a message that is not selected is left
  untouched: no attempt count is read or written, nothing is logged about it. A group
  is selected when any of its members is (it moves whole). A message without a valid
  MQDLH is never selected (it could not be acted on anyway);
* with ``--max-rate`` each message acted on (each member of a group) takes a token
  first; when none is there the open unit of work is committed before waiting, so the
  wait never holds uncommitted messages;
* what came of each decision is booked by :class:`~dlqhandler.worker.books.Books`
  (summary, metrics, log events).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dlqhandler.acting import (
    PLAN_ERRORS,
    Attempt,
    AuditTrail,
    Outgoing,
    Result,
    UnitOfWork,
    attempt,
    plan,
    refusal,
)
from dlqhandler.acting.plan import Landings
from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq.ages import dead_lettered_at, put_at
from dlqhandler.mq.constants import reason_name
from dlqhandler.mq.groups import in_group
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.outcomes import Outcome
from dlqhandler.qmgr.attempts import (
    AttemptRecord,
    AttemptStore,
    Subject,
    group_subject,
    message_subject,
)
from dlqhandler.qmgr.port import Queue, QueueManager
from dlqhandler.rules import Decision, Matcher, RuleSet
from dlqhandler.worker.batch import Batch
from dlqhandler.worker.books import Books, message_log
from dlqhandler.worker.groups import browse_group, is_complete, logical_order
from dlqhandler.worker.options import HandlerOptions
from dlqhandler.worker.passes import PassState
from dlqhandler.worker.reporting import ReportLimiter
from dlqhandler.worker.selection import RateLimiter, Selector
from dlqhandler.worker.stats import RunStats

if TYPE_CHECKING:
    from dlqhandler.worker.metrics import HandlerMetrics

__all__ = ["QUIET_END", "Actor", "PassState"]  # PassState: from .passes

# MQ reasons that end the handler quietly (spec §5.4): CONNECTION_BROKEN,
# Q_MGR_QUIESCING, Q_MGR_STOPPING. Every other unexpected MQ error is fatal.
QUIET_END = frozenset({2009, 2161, 2162})


class Actor:
    """Decides and acts for the messages the loop hands it; owns the unit of work.

    ``dlq`` is the loop's browse handle (its cursor is on the message being
    examined, which it has locked); ``other`` a second handle on the DLQ that browses
    the other members of a group (the loop's cursor stays where it is) and gets them,
    unless ``members`` names the handle that gets them (``dlq``, on a DLQ this handler
    holds exclusively: see :class:`dlqhandler.worker.handler.Handler`).
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
        members: Queue | None = None,
        ruleset: RuleSet,
        clock: Callable[[], float],
        log: Any,
        selector: Selector | None = None,
        limiter: RateLimiter | None = None,
        stop: threading.Event | None = None,
        metrics: HandlerMetrics | None = None,
        audit: AuditTrail | None = None,
    ) -> None:
        self.options = options
        self.stats = stats
        self._qmgr_name = qmgr.name
        self._audit = audit
        self._selector = selector or Selector()
        self._limiter = limiter
        self._stop = stop
        unit = UnitOfWork(
            qmgr,
            store,
            clock,
            fatal=QUIET_END,
            audit_queue=audit.queue if audit is not None else None,
        )
        self._batch = Batch(unit, store, stats, log)
        self._books = Books(stats, metrics, unit.audit_queue)
        self._dlq, self._other = dlq, other
        self._members = members if members is not None else other
        self._clock = clock
        self._log = log
        self._no_dlh = ReportLimiter(
            interval=options.no_dlh_report_interval, per_pass=options.no_dlh_reports_per_pass
        )
        self._control = options.control.roles()
        self._qm = qmgr
        self._landings = Landings(qmgr, clock)
        # A one-off run: each subject's attempt count when the run first saw it.
        self._before: dict[bytes, int] = {}
        self.use(ruleset)

    # -- the loop's calls ----------------------------------------------------------
    def use(self, ruleset: RuleSet) -> None:
        """Decide with ``ruleset`` from now on (call between units of work)."""
        self._ruleset = ruleset
        self._matcher = Matcher(ruleset)
        # a one-off discard (--action discard): its table's one rule discards what is selected
        self._discards = self.options.oneoff and any(
            r.action.kind == "DISCARD" for r in ruleset.rules
        )

    def unresolved(self) -> int:
        """How many messages (each member of a group) whose last action here failed are
        still on the DLQ (another handler may have acted on them since)."""
        return self._books.still_unresolved(self._other)

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

    def commit(self) -> None:
        self._batch.commit()

    def backout(self) -> None:
        self._batch.backout()

    def examine(self, raw: Message, p: PassState) -> None:
        """Decide and act for the message under the cursor; note it if it stays."""
        md = raw.md
        named = self._selector.saw(md.msg_id)
        try:
            msg = decode_dead_letter(md, raw.body, raw.properties)
        except MalformedMessageError as exc:
            p.no_dlh += 1
            p.left(put_at(md.put_date, md.put_time))
            # said in a table run, and in a one-off run for a message its --msgid names
            if (named or not self._selector.active) and self._no_dlh.allow(
                md.msg_id, self._clock()
            ):
                self._log.warning(
                    "message_without_dlh",
                    msgid=md.msg_id.hex(),
                    detail=str(exc),
                    length=len(raw.body),
                )
            return
        taken = self._group(msg, p) if in_group(md) else self._single(msg, p)
        if not taken:
            p.left(dead_lettered_at(msg))

    # -- what the rules count --------------------------------------------------------
    def attempts(self, subject: Subject, record: AttemptRecord | None) -> int:
        """The failed attempts the rules count for ``subject`` (its ``record``).

        A table run counts every attempt on the status queue, whoever made it (RETRY(n)
        holds across handlers, runs and drains). A one-off action is the administrator's
        explicit order: attempts that earlier runs left do not hold it back, only the
        ones this run makes count (its one-rule table's RETRY(1): one try per message).
        The record itself stays in use: a failure adds to it, a success clears it.
        """
        attempts = record.attempts if record is not None else 0
        if not self.options.oneoff:
            return attempts
        return attempts - self._before.setdefault(subject.key, attempts)

    def _due(
        self, subject: Subject, record: AttemptRecord | None, p: PassState, messages: int = 1
    ) -> bool:
        """False (and note when, and that ``messages`` wait: a group's members) if the last
        failed attempt was under RETRYINT ago.

        Asked only when the decision is to act: a message whose rules are spent
        (IGNORE) is left at once, without keeping WAIT(NO) waiting for it. An attempt
        an earlier run made does not delay a one-off action.
        """
        retryint = self._ruleset.control.retryint
        if record is None or self._clock() - record.last_attempt >= retryint:
            return True
        if self.options.oneoff and self._before.get(subject.key) == record.attempts:
            return True
        p.wait_for(record.last_attempt + retryint, messages)
        return False

    # -- one message, one group ----------------------------------------------------------
    def _single(self, msg: Message, p: PassState) -> bool:
        """True when the message was taken into the unit of work (it leaves the DLQ)."""
        if not self._selector.selects(msg):
            p.not_selected += 1
            return False
        subject = message_subject(msg.md.msg_id, msg.md.correl_id)
        return self._decide_and_act(subject, [msg], p, self._log)

    def _group(self, first: Message, p: PassState) -> bool:
        """Move a whole group in logical order in one unit of work, or leave it. True
        when the group was moved (or at least is not left by this handler)."""
        gid = first.md.group_id
        if not p.groups.add(gid):
            return False
        log = self._log.bind(groupid=gid.hex())
        members, bad = browse_group(self._other, first)
        for m in members:
            self._selector.saw(m.md.msg_id)
        if bad is not None:
            self._selector.saw(bad)
        if bad is not None or not is_complete(members):
            for msg_id in [m.md.msg_id for m in members] + ([bad] if bad is not None else []):
                self._selector.left_in_group(msg_id, gid)
        if bad is not None:
            p.no_dlh += 1
            p.ignored += len(members)
            log.warning("group_member_without_dlh", msgid=bad.hex(), outcome=Outcome.LEFT)
            return False
        if not is_complete(members):
            p.ignored += len(members)
            log.info("group_incomplete", present=len(members), outcome=Outcome.LEFT)
            return False
        members = logical_order(members)
        chosen = [self._selector.selects(m) for m in members]  # each one counted
        if not any(chosen):
            self._selector.took_group(gid, chosen)
            p.not_selected += len(members)
            return False
        if not all(chosen) and self._discards:
            # A group moves whole or not at all, and a one-off discard of the whole group
            # would remove messages the administrator did not select: it is left, and said.
            self._selector.refused_group(gid, chosen)
            p.not_selected += len(members)
            log.warning("group_partly_selected", selected=sum(chosen), outcome=Outcome.LEFT)
            return False
        self._selector.took_group(gid, chosen)
        return self._decide_and_act(group_subject(gid), members, p, log, first=first)

    def _decide_and_act(
        self,
        subject: Subject,
        members: list[Message],
        p: PassState,
        log: Any,
        *,
        first: Message | None = None,
    ) -> bool:
        """Decide for a message (or every member of a group, ``first`` the one under the
        cursor), then leave it, say what a dry run would do, or carry it out. True when
        it was taken."""
        group = first is not None
        record = self._batch.lookup(subject)
        attempts = self.attempts(subject, record)
        decided = [(m, self._matcher.decide(m, attempts)) for m in members]
        ignore = any(d.action.kind == "IGNORE" for _m, d in decided)
        if not ignore and not self._due(subject, record, p, len(members)):
            return False
        if group:
            log = log.bind(members=len(members), attempts=attempts)
        else:
            log = message_log(log, members[0], decided[0][1], attempts=attempts)
        if ignore:
            p.ignored += len(members)
            if group:
                log.debug("group_ignored", outcome=Outcome.LEFT)
            else:
                implicit = decided[0][1].implicit
                log.debug("message_ignored", implicit=implicit, outcome=Outcome.LEFT)
            return False
        if self.options.dry_run:
            fine = [
                self._dry_run(m, d, message_log(log, m, d) if group else log) for m, d in decided
            ]
            if not all(fine):
                self._books.unresolved(subject)
            return False
        p.useful = True
        near_expiry = not group and 0 < members[0].md.expiry <= self.options.near_expiry_tenths
        if group or near_expiry or not self._batch.fits(len(members)):
            # a unit of work of its own: a failure touches nothing else (or the open
            # one is as full as MaxUncommittedMsgs lets it be)
            self.commit()
        if not self._pace(len(members)):
            return False
        result = attempt(
            self._batch.unit,
            decided,
            subject,
            record,
            plan=self._plan,
            take=self._taker(first),
            group=group,
            audit=self._audit_record if self._audit is not None else None,
        )
        taken = self._book(subject, result, log, group=group)
        # An audited action has a unit of work of its own: a record that cannot be put
        # backs out that action alone.
        full = self._batch.size >= self.options.batch_size
        if group or near_expiry or self._audit is not None or full:
            self.commit()
        return taken

    def _taker(self, first: Message | None) -> Callable[[Message], bool]:
        """The destructive get of a locked message: under the loop's cursor (a single
        message, a group's ``first``), or a group's other member by its ids."""
        take = self._batch.unit.take
        if first is None:
            return lambda m: take(self._dlq, m, under_cursor=True)
        return lambda m: take(
            self._dlq if m is first else self._members, m, under_cursor=m is first
        )

    def _book(self, subject: Subject, result: Attempt, log: Any, *, group: bool) -> bool:
        """Book what came of an attempt; True when the message (group) was taken, or
        vanished from under the lock (it is not left by this handler)."""
        decided = result.decided
        if result.result is Result.UNAUDITED:
            self._batch.backed_out()
            self._books.unaudited(subject, result, log)
            return False
        if result.result in (Result.FAILED, Result.REFUSED):
            self._failed(subject, result, log, group=group)
            return False
        if result.result is Result.VANISHED:
            # Expired or removed under our lock: the put must not stand alone.
            self._batch.backed_out()
            self._books.vanished(d for _m, d in decided)
            assert result.member is not None
            if group:
                log.warning(
                    "group_member_vanished",
                    msgid=result.member.md.msg_id.hex(),
                    outcome=Outcome.BACKED_OUT,
                )
                return False
            target = self._where(result.puts[0])
            log.warning("message_vanished", target=target, outcome=Outcome.BACKED_OUT)
            return True
        self._books.resolved(subject)
        effects: list[Callable[[], None]] = [
            functools.partial(
                self._books.done, d, message_log(log, m, d) if group else log, self._where(out)
            )
            for (m, d), out in zip(decided, result.puts, strict=True)
        ]
        if group:
            effects.append(functools.partial(self._group_moved, log))
        self._batch.taken([m.md.msg_id for m, _d in decided], effects)
        return True

    def _failed(self, subject: Subject, result: Attempt, log: Any, *, group: bool) -> None:
        """A put that failed, or a decision refused: counted while the message was held."""
        member = result.member
        assert member is not None
        assert result.record is not None
        puts = result.puts or (None,) * len(result.decided)  # none planned when refused
        m, d, out = next(
            (m, d, out) for (m, d), out in zip(result.decided, puts, strict=True) if m is member
        )
        error = result.error
        if result.result is Result.FAILED and (group or result.backed_out):
            self._batch.backed_out()  # counted while it was held, then backed out
        quiet = (
            not group
            and error is not None
            and d.action.kind == "RETRY"
            and m.dlh is not None
            and error.reason == m.dlh.reason
        )
        self._books.failed(
            subject,
            result,
            d,
            message_log(log, m, d) if group else log,
            target=self._where(out),
            quiet=quiet,
        )
        if group:
            log.warning(
                "group_failed",
                failed_msgid=m.md.msg_id.hex(),
                reason_name=result.refusal or reason_name(error.reason if error else 0),
                attempts=result.record.attempts,
                outcome=Outcome.LEFT,
            )

    def _group_moved(self, log: Any) -> None:
        self.stats.groups_moved += 1
        log.info("group_moved", outcome=Outcome.OK)

    def _dry_run(self, msg: Message, decision: Decision, log: Any) -> bool:
        """Log and count what the run would do; False when it would be refused (a loop,
        an unusable target), counted as the run counts that failure, not as done."""
        try:
            out = self._plan(decision, msg)
        except PLAN_ERRORS as exc:
            self._books.would_fail(decision, log, refusal(exc), str(exc))
            return False
        self._books.dry_run(decision, log, self._where(out))
        return True

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

    def _plan(self, decision: Decision, msg: Message) -> Outgoing | None:
        out = plan(
            decision,
            msg,
            input_queue=self.options.input_queue,
            local_qmgr=self._qmgr_name,
            max_hops=self.options.max_hops,
            control_queues=self._control,
        )
        self._landings.refuse_loop(out, self.options.input_queue)
        return out

    def _where(self, out: Outgoing | None) -> str | None:
        return None if out is None else out.where(self._qmgr_name)

    def _audit_record(
        self, msg: Message, decision: Decision, out: Outgoing | None
    ) -> Message | None:
        """The action's audit record, when this run is audited (--reason)."""
        if self._audit is None:
            return None
        return self._audit.message(msg, decision.action.kind, self._where(out))
