"""Whole-table analysis: reachability, loops, reply-to guards, the catch-all.

These checks read the compiled rules, so they run only on a table without
errors. Reachability follows the §5.5 walk: an earlier rule that matches
every message a later rule matches (it *covers* it) hides the later rule for
good only when it is IGNORE (chosen at once) or DISCARD (it cannot fail, so
the message is gone the first time the walk reaches it and its encounter
count never grows past it). An
earlier RETRY or FWD rule hands over after its RETRY count, so the later rule
is still reached, after that many failed attempts; that is normal fall-through
and is shown by ``lint --explain``, not warned about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic
from dlqhandler.rules.ir import ControlData, IntPredicate, Predicate, Rule
from dlqhandler.rules.parser import Arg
from dlqhandler.rules.patterns import covers

__all__ = ["Reach", "RuleSite", "is_catch_all", "reachability", "table_warnings"]


@dataclass(frozen=True, slots=True)
class RuleSite:
    """Where a compiled rule came from: entry position and its keyword items."""

    line: int
    column: int
    args: dict[str, Arg]


@dataclass(frozen=True, slots=True)
class Reach:
    """How a rule can be reached by the §5.5 walk.

    ``never_by`` is the line of an earlier IGNORE/DISCARD rule that covers it
    (it is never chosen); otherwise ``after`` lists the earlier RETRY/FWD rules
    that cover it, so it is chosen only after at least ``attempts`` failures.
    """

    never_by: int | None = None
    never_action: str | None = None
    after: tuple[int, ...] = ()
    attempts: int = 0


def _predicate_covers(p: Predicate, q: Predicate | None) -> bool:
    if isinstance(p, IntPredicate):
        return isinstance(q, IntPredicate) and q.value == p.value
    if p.kind == "any":
        return True
    if q is None or isinstance(q, IntPredicate):
        return False
    return covers(p.pattern, q.pattern, p.length, p.kind, q.kind)


def rule_covers(earlier: Rule, later: Rule) -> bool:
    """Does ``earlier`` match every message that ``later`` matches (conservatively)?"""
    by_keyword = {q.keyword: q for q in later.predicates}
    return all(_predicate_covers(p, by_keyword.get(p.keyword)) for p in earlier.predicates)


def _constrained(rule: Rule) -> frozenset[str]:
    return frozenset(p.keyword for p in rule.predicates
                     if isinstance(p, IntPredicate) or p.kind != "any")


def _pins(rule: Rule) -> list[tuple[str, int | str]]:
    """The exact values a rule tests: a rule covering it must test the same ones."""
    return [(p.keyword, p.value) if isinstance(p, IntPredicate)
            else (p.keyword, p.pattern.ljust(p.length))
            for p in rule.predicates if isinstance(p, IntPredicate) or p.kind == "exact"]


def reachability(rules: Sequence[Rule]) -> list[Reach]:
    """The :class:`Reach` of every rule, in table order.

    Earlier rules are indexed by one of their exact values: a rule can only
    cover a later one that tests that same value, so each rule is compared
    with few candidates, not with every earlier rule.
    """
    keys = [_constrained(r) for r in rules]
    by_pin: dict[tuple[str, int | str], list[int]] = {}
    unpinned: list[int] = []
    out: list[Reach] = []
    for j, later in enumerate(rules):
        pins = _pins(later)
        candidates = set(unpinned)
        for pin in pins:
            candidates.update(by_pin.get(pin, ()))
        after: list[int] = []
        attempts = 0
        reach = None
        for i in sorted(candidates):
            earlier = rules[i]
            if not keys[i] <= keys[j] or not rule_covers(earlier, later):
                continue
            if earlier.action.kind in ("IGNORE", "DISCARD"):
                reach = Reach(earlier.line, earlier.action.kind, tuple(after), attempts)
                break
            after.append(earlier.line)
            attempts += earlier.retry
        out.append(reach or Reach(None, None, tuple(after), attempts))
        if pins:
            by_pin.setdefault(pins[0], []).append(j)
        else:
            unpinned.append(j)
    return out


def is_catch_all(rule: Rule) -> bool:
    """An unconditional FWD to a named queue: nothing falls past it unhandled."""
    unconditional = all(not isinstance(p, IntPredicate) and p.kind == "any"
                        for p in rule.predicates)
    fwdq = rule.action.fwdq or ""
    return unconditional and rule.action.kind == "FWD" and not fwdq.startswith("&")


def _guarded(rule: Rule, keyword: str) -> bool:
    """The rule's pattern lets through only messages whose ``keyword`` field is non-blank."""
    for p in rule.predicates:
        if p.keyword == keyword and not isinstance(p, IntPredicate):
            return covers("?*", p.pattern, p.length)
    return False


def table_warnings(rules: Sequence[Rule], sites: Sequence[RuleSite], control: ControlData,
                   *, path: str, input_queue: str | None, triggered: bool,
                   ) -> list[Diagnostic]:
    """Warnings about the table as a whole (W501-W505, W507)."""
    out: list[Diagnostic] = []

    def at_arg(code: str, site: RuleSite, keyword: str, **fields: Any) -> None:
        a = site.args.get(keyword)
        line, column, end = (a.line, a.column, a.end_column) if a else (site.line,
                                                                         site.column, None)
        out.append(make_diagnostic(code, path, line, column, end_column=end, **fields))

    for rule, site, reach in zip(rules, sites, reachability(rules), strict=True):
        if reach.never_by is not None:
            out.append(make_diagnostic("W501", path, site.line, site.column,
                                       other=reach.never_by, action=reach.never_action))
        action = rule.action
        if action.fwdq == "&REPLYQ" and not _guarded(rule, "REPLYQ"):
            at_arg("W502", site, "FWDQ")
        if action.fwdqm == "&REPLYQM" and not _guarded(rule, "REPLYQM"):
            at_arg("W503", site, "FWDQM")
        dlq = input_queue or control.inputq
        local = action.fwdqm is None or action.fwdqm == control.inputqm
        if action.kind == "FWD" and dlq and action.fwdq == dlq and local:
            at_arg("W504", site, "FWDQ", queue=dlq)
        if triggered and action.kind == "IGNORE":
            at_arg("W507", site, "ACTION", why="ACTION(IGNORE) leaves messages on the queue")
    if rules and not is_catch_all(rules[-1]):
        last = sites[-1]
        out.append(make_diagnostic("W505", path, last.line, last.column))
        if triggered:
            out.append(make_diagnostic("W507", path, last.line, last.column,
                                       why="the table has no final catch-all ACTION(FWD) rule"))
    return out
