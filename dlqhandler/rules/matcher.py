"""The Python back end: choose a rule for a message (spec §5.5), fast.

Matching has two parts. Which rules match a message depends only on the
fields the table reads (``RuleSet.keywords_read``); the choice among them
depends also on the message's encounter count. So:

* each predicate becomes a specialised test (string equality, ``startswith``,
  non-blank, or the precompiled regex for generic patterns; integer equality);
* rules are indexed by the exact values and literal prefixes they test
  (REASON 2053, DESTQ 'PAYROLL.IN', DESTQ 'TEAM7.*'...; see
  :mod:`~dlqhandler.rules.dispatch`), so only candidate rules are tested and
  the cost grows slowly with the table size; table order is always kept;
* the matching rules are kept in an LRU cache keyed on the tuple of the fields
  the table reads, together with the §5.5 walk worked out in advance: running
  RETRY total T against the encounter count n; IGNORE chosen at once; a rule
  chosen when T > n; an implicit IGNORE when the walk ends.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dlqhandler.mq import Message
from dlqhandler.rules.dispatch import Hint, build
from dlqhandler.rules.fields import PATTERN_FIELDS
from dlqhandler.rules.ir import IMPLICIT_IGNORE, Action, IntPredicate, Rule, RuleSet
from dlqhandler.rules.patterns import matcher, pad

__all__ = ["Decision", "Matcher", "decide"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome for one message.

    ``rule`` is the chosen rule (None for the implicit IGNORE), ``action`` the
    action to take, ``matched_lines`` the lines of every rule whose pattern
    matches the message (in table order), ``implicit`` whether the IGNORE is
    the one assumed when no rule is chosen.
    """

    rule: Rule | None
    action: Action
    matched_lines: tuple[int, ...]
    implicit: bool


@dataclass(frozen=True, slots=True)
class _Matched:
    """The rules matching one key, with the §5.5 walk worked out in advance.

    ``steps`` holds (running RETRY total T, decision) for the rules before the
    first IGNORE; the decision for encounter count n is the first step with
    n < T, else ``final`` (that IGNORE rule, or the implicit IGNORE).
    """

    rules: tuple[Rule, ...]
    steps: tuple[tuple[int, Decision], ...]
    final: Decision


def _plan(found: tuple[Rule, ...]) -> _Matched:
    lines = tuple(r.line for r in found)
    steps: list[tuple[int, Decision]] = []
    total = 0
    final = Decision(None, IMPLICIT_IGNORE, lines, True)
    for rule in found:
        if rule.action.kind == "IGNORE":
            final = Decision(rule, rule.action, lines, False)
            break
        total += rule.retry
        steps.append((total, Decision(rule, rule.action, lines, False)))
    return _Matched(found, tuple(steps), final)


def _walk(found: tuple[Rule, ...], attempts: int) -> Decision:
    """The §5.5 walk over the matching rules, for one encounter count."""
    total = 0
    for rule in found:
        if rule.action.kind != "IGNORE":
            total += rule.retry
            if total <= attempts:
                continue
        return Decision(rule, rule.action, tuple(r.line for r in found), False)
    return Decision(None, IMPLICIT_IGNORE, tuple(r.line for r in found), True)


Check = tuple[int, Callable[[Any], bool]]


class Matcher:
    """A rules table compiled for fast decisions. Build once, use for many messages."""

    def __init__(self, ruleset: RuleSet, *, cache_size: int = 65536) -> None:
        self.ruleset = ruleset
        self.keywords = ruleset.keywords_read
        position = {k: i for i, k in enumerate(self.keywords)}
        self._lengths = tuple(PATTERN_FIELDS[k].length for k in self.keywords)
        self._getter = _tuple_getter(
            [f"{PATTERN_FIELDS[k].structure}.{PATTERN_FIELDS[k].attribute}" for k in self.keywords]
        )
        self._checks: list[tuple[Check, ...]] = []
        hints: list[dict[int, Hint]] = []  # per rule: key position -> what it pins down
        for rule in ruleset.rules:
            checks: list[Check] = []
            pinned: dict[int, Hint] = {}
            for p in rule.predicates:
                if isinstance(p, IntPredicate):
                    pos = position[p.keyword]
                    checks.append((pos, functools.partial(operator.eq, p.value)))
                    pinned[pos] = ("exact", p.value)
                elif p.kind != "any":
                    pos = position[p.keyword]
                    checks.append((pos, matcher(p.pattern, p.length)))
                    if p.kind == "exact":
                        pinned[pos] = ("exact", pad(p.pattern, p.length))
                    elif p.kind == "prefix":
                        pinned[pos] = ("prefix", p.pattern.rstrip("*"))
            self._checks.append(tuple(checks))
            hints.append(pinned)
        self._index = build(tuple(range(len(ruleset.rules))), hints)
        self._cached: Callable[[tuple[Any, ...]], _Matched] | None = None
        if cache_size > 0:
            self._cached = functools.lru_cache(maxsize=cache_size)(
                lambda raw: _plan(self._find(raw))
            )

    def _find(self, raw: tuple[Any, ...]) -> tuple[Rule, ...]:
        """The matching rules for the values of ``keywords``, in table order."""
        key = tuple(pad(v, n) if n else v for v, n in zip(raw, self._lengths, strict=True))
        rules = self.ruleset.rules
        found: list[Rule] = []
        for i in self._index.candidates(key):
            for pos, test in self._checks[i]:
                if not test(key[pos]):
                    break
            else:
                found.append(rules[i])
        return tuple(found)

    def matching_rules(self, fields: Mapping[str, str | int]) -> tuple[Rule, ...]:
        """The rules whose patterns match these field values (keyword -> value), in order."""
        raw = tuple(fields[k] for k in self.keywords)
        return self._cached(raw).rules if self._cached is not None else self._find(raw)

    def decide(self, message: Message, attempts: int) -> Decision:
        """Choose the rule for ``message``, encountered ``attempts`` times before (n)."""
        if message.dlh is None:
            raise ValueError("message has no MQDLH; only dead-letter messages are matched")
        raw = self._getter(message)
        if self._cached is None:
            return _walk(self._find(raw), attempts)
        matched = self._cached(raw)
        for limit, decision in matched.steps:
            if attempts < limit:
                return decision
        return matched.final

    def cache_info(self) -> Any:
        """``functools`` cache statistics (None when the cache is off)."""
        info = getattr(self._cached, "cache_info", None)
        return info() if info is not None else None


def _tuple_getter(paths: list[str]) -> Callable[[Message], tuple[Any, ...]]:
    if not paths:
        return lambda m: ()
    get = operator.attrgetter(*paths)
    if len(paths) == 1:
        return lambda m: (get(m),)
    return get


_MATCHERS: OrderedDict[int, tuple[RuleSet, Matcher]] = OrderedDict()
_MATCHERS_KEPT = 8


def _matcher_for(ruleset: RuleSet) -> Matcher:
    entry = _MATCHERS.get(id(ruleset))
    if entry is not None and entry[0] is ruleset:
        _MATCHERS.move_to_end(id(ruleset))
        return entry[1]
    built = Matcher(ruleset)
    _MATCHERS[id(ruleset)] = (ruleset, built)
    while len(_MATCHERS) > _MATCHERS_KEPT:
        _MATCHERS.popitem(last=False)
    return built


def decide(ruleset: RuleSet, message: Message, attempts: int) -> Decision:
    """Choose the rule and action for ``message`` (see :meth:`Matcher.decide`).

    Uses a cached :class:`Matcher` for ``ruleset`` (the last few tables used).
    """
    return _matcher_for(ruleset).decide(message, attempts)
