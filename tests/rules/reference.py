"""Straightforward reference implementations of spec §3.2 and §5.5 for the tests.

Deliberately naive (recursion over the padded field, a linear walk over every
rule) so the fast back end can be checked against something obviously right.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from dlqhandler.rules import IntPredicate, Rule, RuleSet


def reference_match(pattern: str, value: str, length: int) -> bool:
    """runmqdlq's string match (spec §3.2), as a tiny recursive function."""
    f = value[:length].ljust(length)

    @cache
    def m(i: int, j: int) -> bool:
        if i == len(pattern):  # pattern used up: the rest of the field must be blank
            return f[j:].strip(" ") == ""
        if j == len(f):  # field used up: only '*'s may remain
            return all(c == "*" for c in pattern[i:])
        c = pattern[i]
        if c == "*":
            if all(x == "*" for x in pattern[i:]):
                return True
            return any(m(i + 1, k) for k in range(j, len(f) + 1))
        if c == "?":  # one character, provided a non-blank exists at or after it
            return f[j:].strip(" ") != "" and m(i + 1, j + 1)
        return f[j] == c and m(i + 1, j + 1)

    return m(0, 0)


def reference_matches(rule: Rule, fields: dict[str, Any]) -> bool:
    """All of the rule's predicates hold for these field values."""
    for p in rule.predicates:
        value = fields[p.keyword]
        if isinstance(p, IntPredicate):
            if value != p.value:
                return False
        elif not reference_match(p.pattern, value, p.length):
            return False
    return True


def reference_decide(
    ruleset: RuleSet,
    fields: dict[str, Any],
    n: int,
) -> tuple[int | None, str]:
    """The §5.5 walk: (chosen rule line or None, action kind)."""
    total = 0
    for rule in ruleset.rules:
        if not reference_matches(rule, fields):
            continue
        if rule.action.kind == "IGNORE":
            return rule.line, "IGNORE"
        total += rule.retry
        if total > n:
            return rule.line, rule.action.kind
    return None, "IGNORE"
