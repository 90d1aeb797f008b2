"""The DLQ handler loop: runmqdlq's semantics under units of work.

One pass browses the DLQ from the first message to the last, each message
locked (MQGMO_LOCK) while it is examined, so concurrent handlers never act on
the same message. For each message:

1. decode the MQDLH; a message without one is reported (rate-limited) and left;
2. read its durable attempt count; a message that failed less than RETRYINT
   seconds ago is left for later;
3. decide with the compiled rules (first match, RETRY totals, fall-through,
   implicit IGNORE);
4. act (:mod:`dlqhandler.worker.actor`): PUT1 to the target first, then the
   destructive get of the message under the cursor, both under syncpoint. A
   failed put never touches the DLQ message: one attempt is counted on the
   status queue and the message stays. Several messages share one unit of work
   (``batch_size``) without losing per-message isolation; message groups (and
   segmented messages) move whole, in logical order, in their own unit.

Between passes the handler waits for new messages (browse-next with a wait),
for the next due retry, or for the rescan interval (10 x RETRYINT); WAIT(NO)
ends after a full pass with no useful work and no pending retries; WAIT(n)
after n idle seconds; WAIT(YES) runs until stopped. A new rules table is
swapped in between units of work and triggers a rescan. A triggered run that
made no progress keeps the DLQ open (and watched) a while before it ends, so
closing it does not re-trigger it at once (:mod:`dlqhandler.worker.backoff`).

Operator options (``dlqhandler run``):

* a selector (``--msgid``, ``--match``; :class:`~dlqhandler.worker.selection.Selector`)
  limits the run to the messages it selects; every other message is left
  untouched and no attempt is counted for it. A run with a selector ends after
  one full pass unless the table says WAIT(YES) (then it stays resident and
  handles only what the selector selects): an admin who names one message
  wants it dealt with now, not a daemon;
* ``max_rate`` (``--max-rate``) caps the messages acted on per second; the wait
  for a token never holds a unit of work open (see :mod:`dlqhandler.worker.actor`);
* ``metrics`` (:class:`~dlqhandler.worker.metrics.HandlerMetrics`) get every
  outcome, a heartbeat between MQ calls (``/healthz``), the rules table in force,
  and every 10 seconds the DLQ's depth (MQINQ) and the age of its oldest message
  (as of the last full pass, which browses every message).

Memory does not grow with the queue: the handler keeps no per-message state
beyond a few bounded structures (the per-pass set of groups seen, the LRU of
MsgIds recently reported without an MQDLH, the attempt store's sweep
candidates) and the current batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dlqhandler.acting import AuditTrail
from dlqhandler.errors import MQIError
from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import MQRC_NO_MSG_AVAILABLE, MQRC_OBJECT_IN_USE, reason_name
from dlqhandler.qmgr.attempts import AttemptStore, Subject
from dlqhandler.qmgr.port import GetOptions, Queue, QueueManager
from dlqhandler.rules import RuleSet
from dlqhandler.worker.actor import QUIET_END, Actor, PassState
from dlqhandler.worker.options import DEFAULT_BATCH_SIZE, HandlerOptions
from dlqhandler.worker.selection import RateLimiter, Selector
from dlqhandler.worker.stats import RunStats

if TYPE_CHECKING:
    from dlqhandler.worker.metrics import HandlerMetrics

__all__ = ["DEFAULT_BATCH_SIZE", "Handler", "HandlerOptions", "StopReason"]

_BEAT_S = 1.0  # how often an idle hold tells the metrics the loop is alive


class StopReason:
    WAIT_EXPIRED = "wait_expired"
    STOPPED = "stopped"
    DRY_RUN_DONE = "dry_run_done"
    SELECTION_DONE = "selection_done"  # one pass with --msgid/--match (not WAIT(YES))
    CONNECTION_BROKEN = "connection_broken"
    FATAL = "fatal"


class Handler:
    """Applies a compiled rules table to one dead-letter queue."""

    def __init__(
        self,
        qmgr: QueueManager,
        ruleset: RuleSet,
        options: HandlerOptions,
        *,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.time,
        log: Any = None,
        linger: Callable[[RunStats], float] | None = None,
        selector: Selector | None = None,
        metrics: HandlerMetrics | None = None,
        limiter: RateLimiter | None = None,
        audit: AuditTrail | None = None,
    ) -> None:
        self.qmgr = qmgr
        self.options = options
        self.stats = RunStats(dry_run=options.dry_run)
        self.stop_event = stop or threading.Event()
        self.stop_reason = StopReason.WAIT_EXPIRED
        self.fatal_error: MQIError | None = None
        self._clock = clock
        self._linger = linger  # a triggered run's closed-loop guard (worker.backoff)
        self._selector = selector or Selector()
        self._metrics = metrics
        self._last_sample: float | None = None
        self._depth_refused: int | None = None  # the reason the last depth sample failed
        self._oldest: float | None = None  # dead-letter time of the oldest message left
        if limiter is None and options.max_rate is not None and not options.dry_run:
            limiter = RateLimiter(options.max_rate, sleep=self._nap)
        self._ruleset = ruleset
        self._next_ruleset: RuleSet | None = None
        self._rescan = False
        self._lock = threading.Lock()
        self._log = log or get_logger("worker", queue=options.input_queue)
        self._dlq: Queue = qmgr.open(options.input_queue, input=not options.dry_run, browse=True)
        try:
            self._other, members = self._second_handle(qmgr, options)
        except MQIError:
            self._dlq.close()
            raise
        try:
            self._store = AttemptStore(qmgr, options.status_queue, readonly=options.dry_run)
        except MQIError:
            self._other.close()
            self._dlq.close()
            raise
        self._actor = Actor(
            qmgr,
            options,
            self.stats,
            self._store,
            dlq=self._dlq,
            other=self._other,
            members=members,
            ruleset=ruleset,
            clock=clock,
            log=self._log,
            selector=self._selector,
            limiter=limiter,
            stop=self.stop_event,
            metrics=metrics,
            audit=audit,
        )
        self._last_sweep = clock()
        self._no_dlh_logged = 0

    # -- public ----------------------------------------------------------------
    @property
    def ruleset(self) -> RuleSet:
        return self._ruleset

    def swap_rules(self, ruleset: RuleSet) -> None:
        """Install a new table (thread-safe); it takes effect between units of work."""
        with self._lock:
            self._next_ruleset = ruleset

    def run(self) -> RunStats:
        """Process the DLQ until WAIT says stop, ``stop`` is set, or MQ fails."""
        last_useful = self._clock()
        try:
            while not self.stop_event.is_set():
                p = self._scan()
                now = self._clock()
                if p.useful:
                    last_useful = now
                self._end_pass(p, now)
                if self.stop_event.is_set():
                    break
                if self.options.dry_run:
                    self.stop_reason = StopReason.DRY_RUN_DONE
                    return self.stats
                wait = self._ruleset.control.wait
                if self._selector.active and wait != "YES":
                    self.stop_reason = StopReason.SELECTION_DONE
                    return self.stats
                idle_limit = None if wait == "YES" else (0 if wait == "NO" else int(wait))
                if (
                    idle_limit is not None
                    and not p.useful
                    and p.pending_due is None
                    and now - last_useful >= idle_limit
                ):
                    if self._hold():
                        last_useful = self._clock()
                        continue
                    self.stop_reason = StopReason.WAIT_EXPIRED
                    return self.stats
                retryint = self._ruleset.control.retryint
                deadline = now + max(1, 10 * retryint)
                if p.pending_due is not None:
                    # A little slack lets retries due close together share one pass.
                    deadline = min(deadline, p.pending_due + min(1.0, 0.2 * retryint))
                elif idle_limit is not None:
                    deadline = min(deadline, last_useful + idle_limit)
                if self._idle(deadline):
                    last_useful = self._clock()
            self.stop_reason = StopReason.STOPPED
        except MQIError as exc:
            self._mq_error(exc)
        finally:
            if self.stop_reason not in (StopReason.FATAL, StopReason.CONNECTION_BROKEN):
                try:
                    self._actor.commit()
                    self.stats.failed = self._actor.unresolved()
                except MQIError as exc:  # the last commit failed: nothing of it is done
                    self._mq_error(exc)
            if self.stop_reason == StopReason.FATAL:
                self._hold_after_error()
            self._close()
        return self.stats

    def _mq_error(self, exc: MQIError) -> None:
        """The run ends on an MQ error: back the open unit of work out (a commit that
        failed is never taken as done) and say why."""
        try:
            self._actor.backout()
        except MQIError as failed:  # disk full: the queue manager recovers the unit
            self._log.error("backout_failed", reason=failed.reason, detail=failed.detail)
        if exc.reason in QUIET_END:
            self.stop_reason = StopReason.CONNECTION_BROKEN
        else:
            self.stop_reason = StopReason.FATAL
            self.fatal_error = exc
        self._log.error(
            "handler_mq_error",
            reason=exc.reason,
            reason_name=reason_name(exc.reason),
            detail=exc.detail,
        )

    # -- passes ----------------------------------------------------------------
    def _scan(self) -> PassState:
        """One full pass from the first message."""
        p = PassState()
        self._rescan = False
        self._actor.new_pass()
        options = GetOptions(browse="first", lock=True, syncpoint=False)
        while not self.stop_event.is_set():
            try:
                msg = self._dlq.get(options)
            except MQIError as exc:
                if exc.reason == MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            options = GetOptions(browse="next", lock=True, syncpoint=False)
            self._tick()
            self._maybe_swap_rules()
            self._actor.examine(msg, p)
        else:
            p.complete = False
        self._actor.commit()
        self._dlq.unlock()
        return p

    def _end_pass(self, p: PassState, now: float) -> None:
        self.stats.passes += 1
        if p.complete or self.stats.passes == 1:
            self.stats.ignored, self.stats.no_dlh = p.ignored, p.no_dlh
            self.stats.waiting = p.waiting
            self.stats.not_selected = p.not_selected
        if p.no_dlh:
            level = self._log.info if p.no_dlh != self._no_dlh_logged else self._log.debug
            level(
                "pass_messages_without_dlh",
                count=p.no_dlh,
                reports_suppressed=self._actor.reports_suppressed,
            )
        self._no_dlh_logged = p.no_dlh
        if p.complete:
            self._oldest = p.oldest
            self._sample(force=True)
        if (
            p.complete
            and not self.options.dry_run
            and now - self._last_sweep >= self.options.sweep_interval
        ):
            self._last_sweep = now
            removed = self._store.sweep(self._present)
            self.stats.status_records_collected += removed
            if removed:
                self._log.info("status_records_collected", removed=removed)

    def _second_handle(
        self, qmgr: QueueManager, options: HandlerOptions
    ) -> tuple[Queue, Queue | None]:
        """The handle that browses a group's other members, and the one that gets them
        when it is not that one.

        Normally a second input handle does both (the loop's cursor stays on the message
        it examines). On a DLQ defined DEFSOPT(EXCL) or NOSHARE the first open made this
        handler its only reader, as runmqdlq is there, and a second input open is
        MQRC_OBJECT_IN_USE (2042): the second handle then only browses, and the members
        are got by their ids on the first (no other handle can get from the queue, so
        nothing the lock on the loop's message guards is lost)."""
        try:
            return qmgr.open(options.input_queue, input=not options.dry_run, browse=True), None
        except MQIError as exc:
            if exc.reason != MQRC_OBJECT_IN_USE or options.dry_run:
                raise
        self._log.info("dlq_open_exclusive", queue=options.input_queue)
        return qmgr.open(options.input_queue, input=False, browse=True), self._dlq

    def _present(self, subject: Subject) -> bool:
        """Whether a status record's message (or group) is still on the DLQ."""
        options = (
            GetOptions(browse="first", group_id=subject.group_id, syncpoint=False)
            if subject.group_id
            else GetOptions(
                browse="first", msg_id=subject.msg_id, correl_id=subject.correl_id, syncpoint=False
            )
        )
        try:
            self._other.get(options)
        except MQIError as exc:
            if exc.reason == MQRC_NO_MSG_AVAILABLE:
                return False
            raise
        return True

    def _idle(self, deadline: float) -> bool:
        """Wait for new messages until ``deadline``; process any that arrive.

        Returns True when something useful was done.
        """
        p = PassState()
        while not self.stop_event.is_set() and not self._rescan:
            remaining = deadline - self._clock()
            if remaining <= 0:
                break
            self._tick()
            self._maybe_swap_rules()
            # While a batch is open, take what is already there, then commit and wait.
            wait_ms = (
                0
                if self._actor.in_unit
                else max(1, int(min(remaining * 1000, self.options.poll_ms)))
            )
            try:
                msg = self._dlq.get(
                    GetOptions(browse="next", lock=True, syncpoint=False, wait_ms=wait_ms)
                )
            except MQIError as exc:
                if exc.reason == MQRC_NO_MSG_AVAILABLE:
                    self._actor.commit()
                    continue
                raise
            self._maybe_swap_rules()
            self._actor.examine(msg, p)
        self._actor.commit()
        if p.oldest is not None and (self._oldest is None or p.oldest < self._oldest):
            self._oldest = p.oldest
        return p.useful

    def _hold(self) -> bool:
        """WAIT says end, but ``linger`` may keep the DLQ open (and watched) a while longer
        (:mod:`dlqhandler.worker.backoff`). True when the loop should go on: something
        useful was done meanwhile (the next pass decides whether to hold on), or the
        rules were swapped. Watched in slices of ``poll_ms``, so a hold ends promptly."""
        while self._linger is not None and not self.stop_event.is_set():
            seconds = min(self._linger(self.stats), self.options.poll_ms / 1000)
            if seconds <= 0:
                break
            if self._idle(self._clock() + seconds) or self._rescan:
                return True
        return False

    def _hold_after_error(self) -> None:
        """A failed triggered run is re-triggered as soon as it closes the DLQ (condition 12,
        note 2: the abend): ``linger`` may keep it open, idle, for a while first. The metrics
        say so meanwhile (``/healthz`` beats and names the error, ``/readyz`` is 503)."""
        try:
            seconds = self._linger(self.stats) if self._linger is not None else 0.0
        except MQIError:
            return
        if seconds <= 0:
            return
        end = time.monotonic() + seconds
        error = self.fatal_error
        reason = reason_name(error.reason) if error is not None else "unknown"
        if self._metrics is not None:
            self._metrics.hold_after_error(reason)
        self._log.info("holding_after_error", seconds=round(seconds, 3), reason_name=reason)
        beat = _BEAT_S if self._metrics is None else min(_BEAT_S, self._metrics.stuck_after_s / 4)
        try:
            while (left := end - time.monotonic()) > 0 and not self.stop_event.is_set():
                self.stop_event.wait(min(left, beat))
                if self._metrics is not None:
                    self._metrics.beat()
        finally:
            if self._metrics is not None:
                self._metrics.hold_after_error(None)

    # -- rules and shutdown --------------------------------------------------------
    def _maybe_swap_rules(self) -> None:
        if self._next_ruleset is None:
            return
        self._actor.commit()
        with self._lock:
            ruleset, self._next_ruleset = self._next_ruleset, None
        self._ruleset = ruleset
        self._actor.use(ruleset)
        self._rescan = True
        self.stats.reloads += 1
        if self._metrics is not None:
            self._metrics.rules(ruleset.sha256, reloaded=True)
        self._log.info("rules_swapped", sha256=ruleset.sha256, rules=len(ruleset.rules))
        inputq = ruleset.control.inputq
        if inputq and inputq != self.options.input_queue:
            self._log.warning(
                "rules_inputq_ignored",
                inputq=inputq,
                detail="the input queue changes only on restart",
            )

    # -- metrics -------------------------------------------------------------------
    def _tick(self) -> None:
        """Between MQ calls: the loop is alive; sample the DLQ when one is due."""
        if self._metrics is not None:
            self._metrics.beat()
            self._sample()

    def _sample(self, *, force: bool = False) -> None:
        """DLQ depth (MQINQ) and oldest age to the metrics, at most every 10 seconds."""
        if self._metrics is None:
            return
        now = self._clock()
        if not force and self._last_sample is not None and now - self._last_sample < 10.0:
            return
        self._last_sample = now
        try:
            depth = self.qmgr.inquire_queue(self.options.input_queue).curdepth
        except MQIError as exc:
            # Not the last depth, nor 0: a stale or zero depth would keep DLQNotEmpty quiet
            # while the queue fills. Said once per reason (the next MQGET says whether the
            # queue itself is still usable).
            self._metrics.depth_unknown()
            if exc.reason != self._depth_refused:
                self._depth_refused = exc.reason
                self._log.warning(
                    "dlq_depth_unknown",
                    reason=exc.reason,
                    detail=f"MQINQ of {self.options.input_queue} failed with {exc}; the "
                    "dlqhandler_dlq_depth metric is NaN until an inquiry succeeds",
                )
            return
        self._depth_refused = None
        age = 0.0 if depth == 0 else (None if self._oldest is None else now - self._oldest)
        self._metrics.queue_state(depth, age)

    def _nap(self, seconds: float) -> None:
        """The --max-rate wait: ends early on stop, and is not mistaken for a stuck loop."""
        self.stop_event.wait(seconds)
        if self._metrics is not None:
            self._metrics.beat()

    def _close(self) -> None:
        for closer in (self._store.close, self._other.close, self._dlq.close):
            try:
                closer()
            except MQIError:
                self._log.warning("close_failed")
