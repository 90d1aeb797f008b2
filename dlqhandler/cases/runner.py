"""Run cases: what the table does with each case's message, against what the case expects.

The decision is ``run``'s own, from the same functions: :meth:`Matcher.decide
<dlqhandler.rules.Matcher.decide>` with the case's attempt count (first match, a RETRY(n)
used up falls through to the next matching rule, an implicit IGNORE when no rule is
chosen) and, for a FWD, :func:`~dlqhandler.rules.resolve_target` for the queue and queue
manager after ``&DESTQ``/``&REPLYQ``/``&DESTQM``/``&REPLYQM`` substitution (a name that
cannot be used there is what ``run`` would fail on: reported as the outcome). Nothing
about matching is decided here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from dlqhandler.cases.model import Case
from dlqhandler.mq import Message
from dlqhandler.rules import Decision, InvalidTargetError, Matcher, ResolvedTarget, RuleSet
from dlqhandler.rules import resolve_target as _resolve

__all__ = ["Coverage", "Outcome", "Result", "coverage", "outcome", "run_cases"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What ``run`` does with a message: the decision and, for a FWD, where it puts the
    message (``target``) or why it cannot (``target_problem``)."""

    decision: Decision
    target: ResolvedTarget | None = None
    target_problem: str | None = None

    @property
    def rule_line(self) -> int | None:
        """The line the deciding rule starts on (None: the implicit IGNORE)."""
        return self.decision.rule.line if self.decision.rule is not None else None


# The DLQ ``run`` reads when the table has no INPUTQ: the queue manager's DEADQ, usually this.
ASSUMED_DEADQ = "SYSTEM.DEAD.LETTER.QUEUE"
# ``run``'s control queues by default (--status-queue, --audit-queue; the constants live in
# qmgr and acting, which cases may not import: a test holds these equal to them). No
# action may put a dead letter there.
CONTROL_QUEUES = {"DLQHANDLER.STATUS": "status queue", "DLQHANDLER.AUDIT": "audit queue"}


def outcome(matcher: Matcher, message: Message, attempts: int) -> Outcome:
    """The decision for ``message`` encountered ``attempts`` times before, and its target.

    A FWD whose target (after substitution) is the input dead-letter queue (the table's
    INPUTQ, else :data:`ASSUMED_DEADQ`) or one of :data:`CONTROL_QUEUES` on the local
    queue manager (blank, or the table's INPUTQM) has no usable target: ``run`` refuses
    that put (a forward loop; a control queue) and the message stays."""
    decision = matcher.decide(message, attempts)
    if decision.action.kind != "FWD" or decision.rule is None:
        return Outcome(decision)
    try:
        target = _resolve(decision.rule, message)
    except InvalidTargetError as exc:
        return Outcome(decision, None, str(exc))
    control = matcher.ruleset.control
    dlq = control.inputq or ASSUMED_DEADQ
    if target.qmgr in ("", control.inputqm or ""):
        role = CONTROL_QUEUES.get(target.queue)
        if target.queue == dlq:
            problem = f"{target.queue} is the input dead-letter queue: run refuses it as a loop"
            return Outcome(decision, None, problem)
        if role is not None:
            problem = f"{target.queue} is the handler's {role} (by default): run refuses it"
            return Outcome(decision, None, problem)
    return Outcome(decision, target)


@dataclass(frozen=True, slots=True)
class Result:
    """One case run: the outcome, and which expectations it missed (empty: it passed)."""

    case: Case
    outcome: Outcome
    missed: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.missed


def _missed(case: Case, got: Outcome) -> tuple[str, ...]:
    e = case.expect
    d = got.decision
    missed: list[str] = []
    if d.action.kind != e.action:
        missed.append("action")
    if e.rule is not None and (got.rule_line or "none") != e.rule:
        missed.append("rule")
    if e.fwdq is not None and (got.target is None or got.target.queue != e.fwdq):
        missed.append("fwdq")
    if e.fwdqm is not None and (got.target is None or got.target.qmgr != e.fwdqm):
        missed.append("fwdqm")
    if e.header is not None and (d.action.kind != "FWD" or d.action.header != e.header):
        missed.append("header")
    return tuple(missed)


def run_cases(matcher: Matcher, cases: Iterable[Case]) -> list[Result]:
    """Every case's outcome and what it missed, in order."""
    results = []
    for case in cases:
        got = outcome(matcher, case.message, case.attempts)
        results.append(Result(case, got, _missed(case, got)))
    return results


@dataclass(frozen=True, slots=True)
class Coverage:
    """How many cases each rule decided (by the line it starts on), in table order."""

    decided: tuple[tuple[int, int], ...]  # (rule line, cases) for every rule

    @property
    def covered(self) -> int:
        return sum(1 for _, n in self.decided if n)

    @property
    def percent(self) -> float:
        """Rules that decided at least one case, as a percentage (100 for no rules)."""
        return 100.0 * self.covered / len(self.decided) if self.decided else 100.0

    @property
    def unreached(self) -> tuple[int, ...]:
        return tuple(line for line, n in self.decided if not n)


def coverage(ruleset: RuleSet, results: Iterable[Result]) -> Coverage:
    """The cases each rule of ``ruleset`` decided, passed or failed."""
    counts = Counter(r.outcome.rule_line for r in results)
    return Coverage(tuple((rule.line, counts[rule.line]) for rule in ruleset.rules))
