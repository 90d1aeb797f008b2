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
from dlqhandler.rules.patterns import covers, literal_head, pad

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
    return frozenset(
        p.keyword for p in rule.predicates if isinstance(p, IntPredicate) or p.kind != "any"
    )


_Key = tuple[str, str, int | str]


def _anchors(rule: Rule) -> list[_Key]:
    """The keys ``rule`` may be indexed under as an *earlier* rule, one per condition:
    any rule it covers yields each of them among its :func:`_probes` (a rule covers
    another only if each of its conditions covers the other's on the same field).
    Empty for a rule without conditions (it covers every later rule)."""
    out: list[_Key] = []
    for p in rule.predicates:
        if isinstance(p, IntPredicate):
            out.append((p.keyword, "int", p.value))
        elif p.kind == "exact":
            out.append(
                (p.keyword, "field", pad(p.pattern, p.length))
                if len(p.pattern) <= p.length
                else (p.keyword, "raw", p.pattern)
            )  # longer than its field
        elif p.kind != "any":
            # prefix, generic, nonblank: every field or pattern it covers starts with
            # its literal head (a nonblank pattern's is empty)
            out.append((p.keyword, "head", literal_head(p.pattern)))
    return out


def _probes(rule: Rule) -> set[_Key]:
    """The keys under which any earlier rule covering ``rule`` is indexed (a superset:
    each candidate is still checked with :func:`rule_covers`)."""
    keys: set[_Key] = set()
    for q in rule.predicates:
        if isinstance(q, IntPredicate):
            keys.add((q.keyword, "int", q.value))
            continue
        if q.kind == "any":
            continue  # only an unconditional predicate covers it: never an anchor
        if q.kind == "exact":
            start = pad(q.pattern, q.length)
            keys.add((q.keyword, "field", start))
            keys.add((q.keyword, "raw", q.pattern))
        else:
            start = literal_head(q.pattern)
        keys.update((q.keyword, "head", start[:n]) for n in range(len(start) + 1))
    return keys


def reachability(rules: Sequence[Rule]) -> list[Reach]:
    """The :class:`Reach` of every rule, in table order.

    Each earlier rule is indexed under one key of one of its predicates
    (:func:`_anchors`: a value, or a literal head; the least shared); a later rule looks up the keys
    its own predicates allow (:func:`_probes`: its values, and every beginning of its
    fields or literal heads), so it is compared with the few earlier rules that could
    cover it, not with every earlier rule. The result is the all-pairs walk's.
    """
    keys = [_constrained(r) for r in rules]
    index: dict[_Key, list[int]] = {}
    unconditional: list[int] = []
    out: list[Reach] = []
    for j, later in enumerate(rules):
        candidates = set(unconditional)
        for probe in _probes(later):
            candidates.update(index.get(probe, ()))
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
        # Indexed under its least shared key so far: any one of them finds it again.
        anchors = _anchors(later)
        if not anchors:
            unconditional.append(j)
        else:
            anchor = min(anchors, key=lambda k: len(index.get(k, ())))
            index.setdefault(anchor, []).append(j)
    return out


def is_catch_all(rule: Rule) -> bool:
    """An unconditional FWD to a named queue: nothing falls past it unhandled."""
    unconditional = all(
        not isinstance(p, IntPredicate) and p.kind == "any" for p in rule.predicates
    )
    fwdq = rule.action.fwdq or ""
    return unconditional and rule.action.kind == "FWD" and not fwdq.startswith("&")


def _guarded(rule: Rule, keyword: str) -> bool:
    """The rule's pattern lets through only messages whose ``keyword`` field is non-blank."""
    for p in rule.predicates:
        if p.keyword == keyword and not isinstance(p, IntPredicate):
            return covers("?*", p.pattern, p.length)
    return False


def loop_warnings(
    rules: Sequence[Rule],
    sites: Sequence[RuleSite],
    control: ControlData,
    *,
    path: str,
    input_queue: str | None,
) -> list[Diagnostic]:
    """W504: the rules whose FWDQ is the DLQ the handler reads (``input_queue``, else the
    table's INPUTQ) on the local queue manager: a forwarding loop."""
    out: list[Diagnostic] = []
    dlq = input_queue or control.inputq
    if not dlq:
        return out
    for rule, site in zip(rules, sites, strict=True):
        action = rule.action
        local = action.fwdqm is None or action.fwdqm == control.inputqm
        if action.kind == "FWD" and action.fwdq == dlq and local:
            a = site.args.get("FWDQ")
            line, column, end = (
                (a.line, a.column, a.end_column) if a else (site.line, site.column, None)
            )
            out.append(make_diagnostic("W504", path, line, column, end_column=end, queue=dlq))
    return out


def table_warnings(
    rules: Sequence[Rule],
    sites: Sequence[RuleSite],
    control: ControlData,
    *,
    path: str,
    input_queue: str | None,
    triggered: bool,
) -> list[Diagnostic]:
    """Warnings about the table as a whole (W501-W505, W507)."""
    out: list[Diagnostic] = []

    def at_arg(code: str, site: RuleSite, keyword: str, **fields: Any) -> None:
        a = site.args.get(keyword)
        line, column, end = (
            (a.line, a.column, a.end_column) if a else (site.line, site.column, None)
        )
        out.append(make_diagnostic(code, path, line, column, end_column=end, **fields))

    for rule, site, reach in zip(rules, sites, reachability(rules), strict=True):
        if reach.never_by is not None:
            out.append(
                make_diagnostic(
                    "W501",
                    path,
                    site.line,
                    site.column,
                    other=reach.never_by,
                    action=reach.never_action,
                )
            )
        action = rule.action
        if action.fwdq == "&REPLYQ" and not _guarded(rule, "REPLYQ"):
            at_arg("W502", site, "FWDQ")
        if action.fwdqm == "&REPLYQM" and not _guarded(rule, "REPLYQM"):
            at_arg("W503", site, "FWDQM")
        if triggered and action.kind == "IGNORE":
            at_arg("W507", site, "ACTION", why="ACTION(IGNORE) leaves messages on the queue")
    out += loop_warnings(rules, sites, control, path=path, input_queue=input_queue)
    if rules and not is_catch_all(rules[-1]):
        last = sites[-1]
        out.append(make_diagnostic("W505", path, last.line, last.column))
        if triggered:
            out.append(
                make_diagnostic(
                    "W507",
                    path,
                    last.line,
                    last.column,
                    why="the table has no final catch-all ACTION(FWD) rule",
                )
            )
    return out
