"""The compiled rules table: one immutable intermediate form for every back end.

Frozen dataclasses with slots: hashable, picklable (for a Spark broadcast),
and :meth:`RuleSet.to_json` / :meth:`RuleSet.from_json` round-trip to an equal
object. The same source text always gives the same JSON bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from dlqhandler.errors import RulesError
from dlqhandler.rules.patterns import PatternKind

__all__ = [
    "IMPLICIT_IGNORE",
    "IR_FORMAT",
    "Action",
    "ActionKind",
    "ControlData",
    "IntPredicate",
    "Predicate",
    "Rule",
    "RuleSet",
    "StringPredicate",
]

IR_FORMAT = "dlqhandler.rules/1"
ActionKind = Literal["RETRY", "FWD", "DISCARD", "IGNORE"]


@dataclass(frozen=True, slots=True)
class ControlData:
    """Control data: None means not given or blank (the command line or DEADQ decides)."""

    inputq: str | None = None
    inputqm: str | None = None
    retryint: int = 60
    wait: Literal["YES", "NO"] | int = "YES"


@dataclass(frozen=True, slots=True)
class StringPredicate:
    """A string pattern on one field.

    ``regex`` is the exact runmqdlq semantics as one regex, to be full-matched
    against the field value cut or right-padded with blanks to ``length``.
    ``kind`` lets a back end specialise: ``exact`` (padded value equals the
    padded pattern), ``prefix`` (``pattern`` is literals then ``*``s: the padded
    value starts with the literals), ``any`` (``*``: always true), ``nonblank``
    (``?*``: the value has a non-blank character), ``generic`` (use the regex).
    """

    keyword: str
    length: int
    pattern: str
    kind: PatternKind
    regex: str


@dataclass(frozen=True, slots=True)
class IntPredicate:
    """A numeric field equals ``value`` (``*`` compiles to no predicate at all)."""

    keyword: str
    value: int


Predicate = StringPredicate | IntPredicate


@dataclass(frozen=True, slots=True)
class Action:
    """What a rule does.

    ``fwdq`` is a queue name, ``&DESTQ`` or ``&REPLYQ``; ``fwdqm`` a queue
    manager name, ``&DESTQM``, ``&REPLYQM`` or None (the local queue manager).
    ``header`` and ``putaut`` only matter for FWD (and RETRY for ``putaut``).
    """

    kind: ActionKind
    fwdq: str | None = None
    fwdqm: str | None = None
    header: bool = True
    putaut: Literal["DEF", "CTX"] = "DEF"


IMPLICIT_IGNORE = Action("IGNORE")


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: its first source line, ANDed predicates, action and retry count.

    A rule with no predicates matches every message that has an MQDLH.
    ``retry`` is 1 unless given; IGNORE does not use it.
    """

    line: int
    predicates: tuple[Predicate, ...]
    action: Action
    retry: int = 1
    text: str = ""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A compiled rules table.

    ``sha256`` is the hash of the source text; ``keywords_read`` the pattern
    keywords some predicate actually tests (in ``PATTERN_FIELDS`` order), which
    is all a decision cache needs to key on.
    """

    control: ControlData
    rules: tuple[Rule, ...]
    source: str
    sha256: str
    keywords_read: tuple[str, ...]

    def __hash__(self) -> int:  # cheap: equal tables have equal hashes of their source
        return hash((self.sha256, len(self.rules)))

    def to_json(self) -> str:
        """Deterministic JSON (sorted keys, ASCII only): same table, same bytes."""
        return json.dumps(_dump(self), sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        """Rebuild the table :meth:`to_json` wrote; :class:`RulesError` if it is not one."""
        try:
            data = json.loads(text)
            if data.get("format") != IR_FORMAT:
                raise RulesError(f"not a {IR_FORMAT} rules IR (format {data.get('format')!r})")
            return _load(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RulesError(f"malformed rules IR: {exc}") from exc


def _dump(rs: RuleSet) -> dict[str, Any]:
    c = rs.control
    return {
        "format": IR_FORMAT,
        "source": rs.source,
        "sha256": rs.sha256,
        "keywords_read": list(rs.keywords_read),
        "control": {
            "inputq": c.inputq,
            "inputqm": c.inputqm,
            "retryint": c.retryint,
            "wait": c.wait,
        },
        "rules": [
            {
                "line": r.line,
                "text": r.text,
                "retry": r.retry,
                "action": {
                    "kind": r.action.kind,
                    "fwdq": r.action.fwdq,
                    "fwdqm": r.action.fwdqm,
                    "header": r.action.header,
                    "putaut": r.action.putaut,
                },
                "predicates": [_dump_predicate(p) for p in r.predicates],
            }
            for r in rs.rules
        ],
    }


def _dump_predicate(p: Predicate) -> dict[str, Any]:
    if isinstance(p, IntPredicate):
        return {"type": "int", "keyword": p.keyword, "value": p.value}
    return {
        "type": "str",
        "keyword": p.keyword,
        "length": p.length,
        "pattern": p.pattern,
        "kind": p.kind,
        "regex": p.regex,
    }


def _load(data: dict[str, Any]) -> RuleSet:
    c = data["control"]
    control = ControlData(c["inputq"], c["inputqm"], int(c["retryint"]), c["wait"])
    rules = tuple(
        Rule(
            int(r["line"]),
            tuple(_load_predicate(p) for p in r["predicates"]),
            Action(
                r["action"]["kind"],
                r["action"]["fwdq"],
                r["action"]["fwdqm"],
                bool(r["action"]["header"]),
                r["action"]["putaut"],
            ),
            int(r["retry"]),
            str(r["text"]),
        )
        for r in data["rules"]
    )
    return RuleSet(
        control, rules, str(data["source"]), str(data["sha256"]), tuple(data["keywords_read"])
    )


def _load_predicate(p: dict[str, Any]) -> Predicate:
    if p["type"] == "int":
        return IntPredicate(str(p["keyword"]), int(p["value"]))
    if p["type"] == "str":
        return StringPredicate(
            str(p["keyword"]), int(p["length"]), str(p["pattern"]), p["kind"], str(p["regex"])
        )
    raise ValueError(f"unknown predicate type {p['type']!r}")
