"""A readable account of a compiled table (``dlqhandler lint --explain``).

For each rule: its line, the pattern as compiled (numbers with their MQ names,
string patterns with their kind), the action and retry count, and how the
rule is reached: never (an earlier IGNORE/DISCARD rule covers it), only after
earlier RETRY/FWD rules that cover it have failed, or directly.
"""

from __future__ import annotations

from dlqhandler.mq.constants import value_to_name
from dlqhandler.rules.checks import is_catch_all, reachability
from dlqhandler.rules.ir import Action, IntPredicate, Predicate, Rule, RuleSet
from dlqhandler.rules.keywords import NUMERIC_FAMILIES

__all__ = ["describe_action", "describe_pattern", "explain"]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _predicate(p: Predicate) -> str:
    if isinstance(p, IntPredicate):
        names = [
            n for f in NUMERIC_FAMILIES[p.keyword] if (n := value_to_name(f, p.value)) is not None
        ]
        return f"{p.keyword}({p.value}{' ' + names[0] if names else ''})"
    return f"{p.keyword}({_quote(p.pattern)} {p.kind})"


def describe_pattern(rule: Rule) -> str:
    """The rule's predicates, or ``(every message)`` for an action-only rule."""
    shown = [_predicate(p) for p in rule.predicates]
    return " ".join(shown) if shown else "(every message)"


def describe_action(action: Action, retry: int) -> str:
    """The action with its targets and options."""
    if action.kind == "RETRY":
        text = "RETRY to MQDLH.DestQName at MQDLH.DestQMgrName"
    elif action.kind == "FWD":
        qm = action.fwdqm or "(local queue manager)"
        text = f"FWD to {action.fwdq} at {qm}, HEADER({'YES' if action.header else 'NO'})"
    else:
        return action.kind
    if action.putaut != "DEF":
        text += f", PUTAUT({action.putaut})"
    return text + f", RETRY({retry})"


def explain(ruleset: RuleSet) -> str:
    """A multi-line description of every rule in ``ruleset``."""
    c = ruleset.control
    lines = [
        f"{ruleset.source}: {len(ruleset.rules)} rule(s), sha256 {ruleset.sha256[:12]}",
        (
            f"control: INPUTQ({_quote(c.inputq or ' ')}) INPUTQM({_quote(c.inputqm or ' ')}) "
            f"RETRYINT({c.retryint}) WAIT({c.wait})"
        ),
        f"fields read: {' '.join(ruleset.keywords_read) or '(none)'}",
    ]
    for rule, reach in zip(ruleset.rules, reachability(ruleset.rules), strict=True):
        lines.append("")
        lines.append(f"line {rule.line}: {rule.text}")
        lines.append(f"  pattern: {describe_pattern(rule)}")
        lines.append(f"  action:  {describe_action(rule.action, rule.retry)}")
        if reach.never_by is not None:
            lines.append(
                f"  reached: never - the rule at line {reach.never_by} "
                f"(ACTION({reach.never_action})) matches every message this one does"
            )
        elif reach.after:
            shown = ", ".join(str(n) for n in reach.after)
            lines.append(
                f"  reached: only after at least {reach.attempts} failed attempt(s) "
                f"of the rule(s) at line {shown}"
            )
        else:
            lines.append("  reached: directly, when the pattern matches")
    if ruleset.rules and not is_catch_all(ruleset.rules[-1]):
        lines.append("")
        lines.append(
            "no final catch-all FWD rule: unmatched messages are ignored (they stay on the DLQ)"
        )
    return "\n".join(lines) + "\n"
