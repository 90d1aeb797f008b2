"""Run cases: what the table does with each case's message, against what the case expects.

The decision is ``run``'s own, from the same functions: :meth:`Matcher.decide
<dlqhandler.rules.Matcher.decide>` with the case's attempt count (first match, a RETRY(n)
used up falls through to the next matching rule, an implicit IGNORE when no rule is
chosen) and, for a FWD, :func:`~dlqhandler.rules.outgoing.plan_outgoing` for the queue
and queue manager after ``&DESTQ``/``&REPLYQ``/``&DESTQM``/``&REPLYQM`` substitution and
what ``run`` refuses (reported as the outcome), with the queues ``run`` is started with
(:class:`RunAs`). Nothing about matching or refusing is decided here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from dlqhandler.cases.model import Case, RunSetup
from dlqhandler.mq import Message
from dlqhandler.rules import (
    ControlData,
    Decision,
    InvalidTargetError,
    Matcher,
    ResolvedTarget,
    RuleSet,
    resolve_target,
)
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS, ActionError, plan_outgoing, refusal

__all__ = [
    "ASSUMED_DEADQ",
    "DEFAULT_AUDIT_QUEUE",
    "DEFAULT_MAX_HOPS",
    "DEFAULT_STATUS_QUEUE",
    "Coverage",
    "Outcome",
    "Result",
    "RunAs",
    "coverage",
    "outcome",
    "run_as",
    "run_cases",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What ``run`` does with a message: the decision and, for a RETRY or FWD, where it
    puts the message (``target``) or, when ``run`` refuses the put, the failure reason it
    gives (``refusal``, one of :data:`~dlqhandler.rules.outgoing.REFUSALS`) and why
    (``target_problem``): the message then stays on the DLQ, one attempt counted
    (``target`` is then where the put was to go, None when a name was unusable)."""

    decision: Decision
    target: ResolvedTarget | None = None
    target_problem: str | None = None
    refusal: str | None = None
    local_qmgr: str = ""  # the local queue manager's name, when the run knows it
    # run refuses the put only if started on the target's queue manager, which the case
    # does not name (no INPUTQM): what run on it would say, else None
    depends_on_qmgr: str | None = None

    def qmgr_names(self) -> tuple[str, ...]:
        """The names of the queue manager the put goes to: blank and the local queue
        manager's name are one (``run`` puts to FWDQM(QM1) on QM1 as to FWDQM(' '))."""
        if self.target is None:
            return ()
        if self.target.qmgr in ("", self.local_qmgr):
            return ("", self.local_qmgr) if self.local_qmgr else ("",)
        return (self.target.qmgr,)

    @property
    def rule_line(self) -> int | None:
        """The line the deciding rule starts on (None: the implicit IGNORE)."""
        return self.decision.rule.line if self.decision.rule is not None else None


# ``run``'s defaults (the constants live in qmgr, acting and worker, which cases may not
# import: a test holds these equal to them). The DLQ ``run`` reads when neither INPUTQ
# nor the table names one is the queue manager's DEADQ, usually this.
ASSUMED_DEADQ = "SYSTEM.DEAD.LETTER.QUEUE"
DEFAULT_STATUS_QUEUE = "DLQHANDLER.STATUS"
DEFAULT_AUDIT_QUEUE = "DLQHANDLER.AUDIT"


@dataclass(frozen=True, slots=True)
class RunAs:
    """The queues and the hop limit ``run`` works with, once started: the input DLQ,
    the local queue manager's name (``""`` when the case does not know it: only a blank
    queue manager name is then taken as the local one), the status and audit queues (no
    action puts there) and ``--max-hops``."""

    input_queue: str
    local_qmgr: str
    status_queue: str
    audit_queue: str
    max_hops: int

    def control_queues(self) -> dict[str, str]:
        """Name -> role of the control queues no action may target, as ``run`` passes
        them to :func:`~dlqhandler.rules.outgoing.plan_outgoing`."""
        return {self.audit_queue: "audit queue", self.status_queue: "status queue"}


def run_as(setup: RunSetup, control: ControlData) -> RunAs:
    """What ``run`` started as ``setup`` says works with, for a table whose control data
    is ``control``: INPUTQ given wins over the table's INPUTQ, which wins over the queue
    manager's DEADQ (:data:`ASSUMED_DEADQ`); likewise INPUTQM over the table's INPUTQM."""
    return RunAs(
        input_queue=setup.inputq or control.inputq or ASSUMED_DEADQ,
        local_qmgr=setup.inputqm or control.inputqm or "",
        status_queue=setup.status_queue or DEFAULT_STATUS_QUEUE,
        audit_queue=setup.audit_queue or DEFAULT_AUDIT_QUEUE,
        max_hops=setup.max_hops if setup.max_hops is not None else DEFAULT_MAX_HOPS,
    )


def outcome(matcher: Matcher, message: Message, attempts: int, run: RunAs | None = None) -> Outcome:
    """The decision for ``message`` encountered ``attempts`` times before, and its target,
    for a ``run`` started as ``run`` says (None: with its defaults).

    A RETRY or FWD is planned as ``run`` plans it (:func:`~dlqhandler.rules.outgoing.
    plan_outgoing`, with the input DLQ, the local queue manager, ``--max-hops`` and the
    control queues): a target (FWDQ/FWDQM substituted, or RETRY's DestQName/DestQMgrName)
    that is the input DLQ or a control queue on the local queue manager, or a blank or
    unusable name, a message carrying too many MQDLHs or an unusable PUTAUT(CTX) user id
    is refused by ``run``, with the reason ``run`` logs (:func:`~dlqhandler.rules.outgoing.
    refusal`), and the message stays.
    """
    decision = matcher.decide(message, attempts)
    if decision.action.kind not in ("FWD", "RETRY") or decision.rule is None:
        return Outcome(decision)
    how = run if run is not None else run_as(RunSetup(), matcher.ruleset.control)
    try:
        _, target = plan_outgoing(
            decision,
            message,
            input_queue=how.input_queue,
            local_qmgr=how.local_qmgr,
            max_hops=how.max_hops,
            control_queues=how.control_queues(),
        )
    except (InvalidTargetError, ActionError) as exc:
        try:  # where the refused put was to go, when the names are usable
            refused_target: ResolvedTarget | None = resolve_target(decision.rule, message)
        except InvalidTargetError:
            refused_target = None
        return Outcome(decision, refused_target, str(exc), refusal(exc), how.local_qmgr)
    return Outcome(
        decision, target, local_qmgr=how.local_qmgr, depends_on_qmgr=_refused_on(how, target)
    )


def _refused_on(how: RunAs, target: ResolvedTarget) -> str | None:
    """Without INPUTQM only a blank queue manager name is known to be the local one: a
    put to the input DLQ (or a control queue) at a named queue manager is a loop for
    ``run`` started on that queue manager and a remote put for any other. What ``run``
    on it says (``refused by run on QM1 as FORWARD_LOOP``), or None when the local queue
    manager is known or the target is no such queue."""
    watched = (how.input_queue, *how.control_queues())
    if how.local_qmgr or not target.qmgr or target.queue not in watched:
        return None
    control = how.control_queues()
    role = control.get(target.queue, "input dead-letter queue")
    return (
        f"{target.queue}@{target.qmgr} is the {role} of run started on {target.qmgr}, which"
        " refuses the put (FORWARD_LOOP or CONTROL_QUEUE); give INPUTQM (run: inputqm, or"
        " --inputqm) to say which queue manager run is started on"
    )


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
    if e.fwdqm is not None and (got.target is None or e.fwdqm not in got.qmgr_names()):
        missed.append("fwdqm")
    if e.header is not None and (d.action.kind != "FWD" or d.action.header != e.header):
        missed.append("header")
    if e.putaut is not None and (
        d.action.kind not in ("RETRY", "FWD") or d.action.putaut != e.putaut
    ):
        missed.append("putaut")
    if e.refused != got.refusal:  # a refusal not expected, or one expected and not made
        missed.append("refused")
    if got.depends_on_qmgr is not None:  # passes or fails with the queue manager: say which
        missed.append("inputqm")
    return tuple(missed)


def run_cases(matcher: Matcher, cases: Iterable[Case], run: RunAs | None = None) -> list[Result]:
    """Every case's outcome (for a ``run`` started as ``run`` says; None: its defaults)
    and what it missed, in order."""
    results = []
    for case in cases:
        got = outcome(matcher, case.message, case.attempts, run)
        results.append(Result(case, got, _missed(case, got)))
    return results


@dataclass(frozen=True, slots=True)
class Coverage:
    """How many cases each rule decided (by the line it starts on), in table order, and
    how many of them ``run`` refuses to carry out (a put it refuses, or may refuse: see
    :attr:`Outcome.depends_on_qmgr`): a rule is covered by a case it decides and ``run``
    carries out, not by one whose message ``run`` leaves on the DLQ."""

    decided: tuple[tuple[int, int], ...]  # (rule line, cases) for every rule
    refused: tuple[tuple[int, int], ...] = ()  # (rule line, cases run refuses), when some

    @property
    def covered(self) -> int:
        refused = dict(self.refused)
        return sum(1 for line, n in self.decided if n > refused.get(line, 0))

    @property
    def percent(self) -> float:
        """Rules that decided and carried out at least one case, as a percentage (100 for
        no rules)."""
        return 100.0 * self.covered / len(self.decided) if self.decided else 100.0

    @property
    def unreached(self) -> tuple[int, ...]:
        """Rules no case reaches, or that only cases ``run`` refuses reach."""
        refused = dict(self.refused)
        return tuple(line for line, n in self.decided if n <= refused.get(line, 0))


def coverage(ruleset: RuleSet, results: Iterable[Result]) -> Coverage:
    """The cases each rule of ``ruleset`` decided, passed or failed, and those of them
    ``run`` refuses."""
    results = list(results)
    counts = Counter(r.outcome.rule_line for r in results)
    refused = Counter(
        r.outcome.rule_line
        for r in results
        if r.outcome.refusal is not None or r.outcome.depends_on_qmgr is not None
    )
    lines = [rule.line for rule in ruleset.rules]
    return Coverage(
        tuple((line, counts[line]) for line in lines),
        tuple((line, refused[line]) for line in lines if refused[line]),
    )
