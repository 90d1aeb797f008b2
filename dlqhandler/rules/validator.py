"""Validator: parsed entries -> control data and rules, checked as a table.

Classifies each entry (control data or rule), validates it through the
pydantic models, and checks the table's structure: control data only as the
first entry and never mixed with rule keywords, at least one rule. Decision
taken where the spec is open (§1.1): a mixed entry or late control data is an
error; each control keyword in the wrong place is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic
from dlqhandler.rules.keywords import CONTROL_KEYWORDS, PATTERN_KEYWORDS
from dlqhandler.rules.models import ControlModel, Env, RuleModel, validate_entry
from dlqhandler.rules.parser import Arg, ParsedEntry

__all__ = ["ValidRule", "ValidatedTable", "validate"]

_ACTION_FIELDS = {
    "kind": "ACTION",
    "retry": "RETRY",
    "fwdq": "FWDQ",
    "fwdqm": "FWDQM",
    "header": "HEADER",
    "putaut": "PUTAUT",
}


@dataclass(frozen=True, slots=True)
class ValidRule:
    """A rule that passed validation, with where it came from."""

    line: int
    column: int
    text: str
    model: RuleModel
    args: dict[str, Arg]


@dataclass(frozen=True, slots=True)
class ValidatedTable:
    """What validation produced: usable only when there were no errors."""

    control: ControlModel
    control_args: dict[str, Arg]
    rules: tuple[ValidRule, ...]
    rule_entries: int  # entries read as rules, valid or not


DEFAULT_CONTROL = ControlModel.model_validate(
    {"inputq": None, "inputqm": None, "retryint": None, "wait": None},
    context=Env("<default>", 1, 1, {}),
)


def validate(
    entries: Iterable[ParsedEntry],
    path: str = "<stdin>",
    diags: list[Diagnostic] | None = None,
) -> tuple[ValidatedTable, list[Diagnostic]]:
    """Validate every entry and the table structure; collect every diagnostic (into
    ``diags`` when given)."""
    diags = [] if diags is None else diags
    control = DEFAULT_CONTROL
    control_args: dict[str, Arg] = {}
    rules: list[ValidRule] = []
    rule_entries = 0
    first_at: tuple[int, int] | None = None  # entries may be a stream: no entries[0]
    for index, entry in enumerate(entries):
        if first_at is None:
            first_at = (entry.line, entry.column)
        ctrl = {k: a for k, a in entry.args.items() if k in CONTROL_KEYWORDS}
        rest = {k: a for k, a in entry.args.items() if k not in CONTROL_KEYWORDS}
        if ctrl:
            model, found = _control(entry, ctrl, path)
            diags += found
            if not rest and index == 0:
                if model is not None:
                    control, control_args = model, ctrl
                continue
            code = "E201" if not rest else "E202"
            diags += [
                make_diagnostic(code, path, a.line, a.column, end_column=a.end_column, keyword=k)
                for k, a in ctrl.items()
            ]
            if not rest:
                continue
        elif not rest and not entry.unknown:
            continue  # nothing but stray text, already reported
        rule_entries += 1
        rule, found = _rule(entry, rest, path)
        diags += found
        if rule is not None:
            rules.append(ValidRule(entry.line, entry.column, entry.text, rule, rest))
    if rule_entries == 0:
        line, column = first_at or (1, 1)
        diags.append(make_diagnostic("E203", path, line, column))
    return ValidatedTable(control, control_args, tuple(rules), rule_entries), diags


def _control(
    entry: ParsedEntry,
    args: dict[str, Arg],
    path: str,
) -> tuple[ControlModel | None, list[Diagnostic]]:
    env = Env(path, entry.line, entry.column, args)
    data = {k.lower(): args.get(k) for k in CONTROL_KEYWORDS}
    return validate_entry(ControlModel, data, env)


def _rule(
    entry: ParsedEntry,
    args: dict[str, Arg],
    path: str,
) -> tuple[RuleModel | None, list[Diagnostic]]:
    env = Env(
        path,
        entry.line,
        entry.column,
        args,
        missing_action_reported="ACTION" in entry.suggestions
        or any(a.broken for a in args.values()),
    )
    data = {
        "pattern": {k.lower(): args.get(k) for k in PATTERN_KEYWORDS},
        "action": {f: args.get(k) for f, k in _ACTION_FIELDS.items()},
    }
    return validate_entry(RuleModel, data, env)
