"""Compiler: rules-table text -> :class:`RuleSet`, through every stage.

``lexer -> parser -> validator -> (this) IR builder -> whole-table checks``.
Every stage reports every problem it finds; :func:`compile_rules` returns
them all, sorted by position, together with the :class:`RuleSet` when there
was no error. Nothing here reads files: the caller passes the text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from dlqhandler.errors import RulesError
from dlqhandler.rules.checks import RuleSite, loop_warnings, table_warnings
from dlqhandler.rules.diagnostics import CODES, BoundedDiagnostics, Diagnostic, Severity
from dlqhandler.rules.fields import PATTERN_FIELDS
from dlqhandler.rules.ir import (
    Action,
    ControlData,
    IntPredicate,
    Predicate,
    Rule,
    RuleSet,
    StringPredicate,
)
from dlqhandler.rules.lexer import iter_entries
from dlqhandler.rules.models import ControlModel, RuleModel
from dlqhandler.rules.parser import iter_parsed
from dlqhandler.rules.patterns import classify, to_regex
from dlqhandler.rules.source import FATAL, decode_table
from dlqhandler.rules.validator import validate

__all__ = ["CompileResult", "compile_rules", "compile_rules_or_raise"]


@dataclass(frozen=True, slots=True)
class CompileResult:
    """The compiled table (None when any error) and the diagnostics, in order: every one,
    or the first ``max_diagnostics`` with the rest counted by code in ``omitted``."""

    ruleset: RuleSet | None
    diagnostics: tuple[Diagnostic, ...]
    text: str = ""  # the table as compiled (undecodable bytes shown as U+FFFD)
    omitted: Mapping[str, int] = field(default_factory=dict)  # code -> diagnostics not kept
    sites: tuple[RuleSite, ...] = field(default=(), repr=False, compare=False)

    def for_input_queue(self, queue: str) -> CompileResult:
        """This result with its forwarding-loop warnings (W504) against ``queue``, the DLQ
        a handler reads once it has connected, without compiling the table again: what
        ``compile_rules(text, input_queue=queue)`` gives."""
        if self.ruleset is None:
            return self
        rules, control = self.ruleset.rules, self.ruleset.control
        loops = loop_warnings(
            rules, self.sites, control, path=self.ruleset.source, input_queue=queue
        )
        kept = [d for d in self.diagnostics if d.code != "W504"]
        diagnostics = tuple(sorted({*kept, *loops}, key=Diagnostic.sort_key))
        return replace(self, diagnostics=diagnostics)

    @property
    def omitted_count(self) -> int:
        return sum(self.omitted.values())

    def count(self, severity: Severity) -> int:
        """Diagnostics of ``severity``, kept and omitted."""
        return sum(d.severity == severity for d in self.diagnostics) + sum(
            n for code, n in self.omitted.items() if CODES[code].severity == severity
        )

    @property
    def ok(self) -> bool:
        return self.ruleset is not None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == Severity.WARNING)


def compile_rules(
    rules_table: str | bytes,
    *,
    source: str = "<stdin>",
    input_queue: str | None = None,
    deadq: str | None = None,
    triggered: bool = False,
    max_diagnostics: int | None = None,
) -> CompileResult:
    """Compile a rules table: its bytes as read (the encoding rule is
    :mod:`~dlqhandler.rules.source`'s), or its text.

    ``source`` names the text in diagnostics and in the IR. ``input_queue`` is
    the DLQ the handler will read (it overrides INPUTQ, as on the command
    line); with neither it nor INPUTQ, ``deadq`` is assumed (the queue
    manager's DEADQ, as runmqdlq); they are used only to warn about forwarding
    loops. ``triggered`` asks for the warnings that matter when the handler is
    started by triggering. ``max_diagnostics`` keeps only the first that many
    diagnostics (by position) and counts the rest, so that a file of junk costs
    bounded memory (None: keep every one).
    """
    diags = BoundedDiagnostics(max_diagnostics)
    text, found = decode_table(rules_table, source)
    if any(d.code in FATAL for d in found):  # UTF-16, CR-only lines: the rest is noise
        return CompileResult(None, tuple(found), text)
    undecodable = {(d.line, d.column) for d in found}
    diags += found
    # A byte that is not UTF-8 is reported once, as E109, not again as E108 (the lexer's).
    diags.skip = lambda d: d.code == "E108" and (d.line, d.column) in undecodable
    # One entry at a time through lexer, parser and validator: a file's worth of tokens
    # is never held at once (a table of junk costs memory for its text, not its tokens).
    stream = iter_parsed(iter_entries(text, source, diags), source, diags)
    table, _ = validate(stream, source, diags=diags)
    diags.skip = None
    control = _control(table.control)
    rules = tuple(_rule(v.line, v.text, v.model) for v in table.rules)
    ruleset: RuleSet | None = None
    sites: list[RuleSite] = []
    if not diags.errors:
        sites = [RuleSite(v.line, v.column, v.args) for v in table.rules]
        diags += table_warnings(
            rules,
            sites,
            control,
            path=source,
            input_queue=input_queue or control.inputq or deadq,
            triggered=triggered,
        )
        digest = hashlib.sha256(_raw(rules_table)).hexdigest()
        ruleset = RuleSet(control, rules, source, digest, _keywords_read(rules))
    return CompileResult(ruleset, diags.kept(), text, dict(diags.omitted), tuple(sites))


def _raw(table: str | bytes) -> bytes:
    """The bytes a table's digest is of: the file's own bytes when it came as text too."""
    if isinstance(table, bytes):
        return table
    try:
        return table.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return table.encode("utf-8", "surrogatepass")


def pattern_keywords(pattern: str) -> tuple[str, ...]:
    """The keywords a one-line pattern (``--match``) gives, upper case, in order, as the
    table's parser reads them (a keyword inside a quoted value is not one); what does
    not parse is left to :func:`compile_rules` to report."""
    diags: list[Diagnostic] = []
    entries = iter_parsed(iter_entries(pattern, "--match", diags), "--match", diags)
    return tuple(keyword for entry in entries for keyword in entry.args)


def compile_rules_or_raise(
    text: str, *, source: str = "<stdin>", input_queue: str | None = None, triggered: bool = False
) -> RuleSet:
    """Like :func:`compile_rules`, but raise :class:`RulesError` carrying every diagnostic."""
    result = compile_rules(text, source=source, input_queue=input_queue, triggered=triggered)
    if result.ruleset is None:
        errors = result.errors
        first = errors[0] if errors else None
        summary = f"{len(errors)} error(s) in rules table {source}"
        raise RulesError(f"{summary}; first: {first}" if first else summary, result.diagnostics)
    return result.ruleset


def _control(model: ControlModel) -> ControlData:
    return ControlData(model.inputq, model.inputqm, model.retryint, model.wait)


def _rule(line: int, text: str, model: RuleModel) -> Rule:
    pattern = model.pattern
    predicates: list[Predicate] = []
    for keyword, spec in PATTERN_FIELDS.items():
        value = getattr(pattern, keyword.lower())
        if value is None:
            continue
        if spec.kind == "int":
            predicates.append(IntPredicate(keyword, value))
        else:
            predicates.append(
                StringPredicate(keyword, spec.length, value, classify(value), to_regex(value))
            )
    a = model.action
    action = Action(a.kind, a.fwdq, a.fwdqm, a.header, a.putaut)
    return Rule(line, tuple(predicates), action, a.retry, text)


def _keywords_read(rules: tuple[Rule, ...]) -> tuple[str, ...]:
    read = {
        p.keyword
        for r in rules
        for p in r.predicates
        if isinstance(p, IntPredicate) or p.kind != "any"
    }
    return tuple(k for k in PATTERN_FIELDS if k in read)
