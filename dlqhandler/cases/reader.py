"""Case file text -> :class:`~dlqhandler.cases.model.CaseFile`, every problem with its place.

The file is YAML (UTF-8), composed into nodes by PyYAML (its C parser when built), whose
marks give each value's line and column. Values are taken from the node text, not from
YAML's type guessing: ``REASON: 2053`` and ``REASON: MQRC_Q_FULL`` are both text first,
``header: YES`` stays ``YES``, ``DESTQ: 0123`` stays ``0123``. Every problem is reported,
not the first (the first ``limit`` by position, the rest counted by code, as ``lint``
caps a table's), each a :class:`~dlqhandler.rules.Diagnostic` with a code of
:data:`~dlqhandler.cases.diagnostics.CASE_CODES` and, where a word was misspelt, "did
you mean". Nothing here reads a file: the caller passes the bytes.

The shape::

    rules: TABLE.rul          # optional: the table, relative to the case file
    run: {inputq: DLQ, inputqm: QM, status_queue: Q, audit_queue: Q, max_hops: 5}
                              # optional: how `dlqhandler run` is started
    tests:                    # required: a list of cases
      - name: ...             # required, unique in the file
        message: {KEYWORD: value, ...}   # the 13 pattern keywords, HOPS (optional)
        attempts: 0           # optional, a count
        expect: {action: FWD, rule: 7, fwdq: Q, fwdqm: QM, header: "YES"}
                              # refused: FORWARD_LOOP when run refuses the put
"""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, Literal

import yaml

from dlqhandler.cases.diagnostics import case_diagnostic
from dlqhandler.cases.messages import (
    GOT_PERSISTENCE,
    MAX_HOPS_IN_A_CASE,
    NotANumberError,
    build_message,
    number,
    text,
)
from dlqhandler.cases.model import ACTIONS, Case, CaseFile, Expect, RunSetup, Where
from dlqhandler.mq.names import NAME_RULE, validate_qmgr_name, validate_queue_name
from dlqhandler.rules import PATTERN_FIELDS, RuleSet
from dlqhandler.rules.checks import RuleSite
from dlqhandler.rules.diagnostics import BoundedDiagnostics, Diagnostic
from dlqhandler.rules.ir import ActionKind
from dlqhandler.rules.keywords import suggest
from dlqhandler.rules.outgoing import REFUSALS

__all__ = ["check_rule_lines", "read_cases"]

_MAP, _SEQ, _STR = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"


_NULLS = frozenset({"", "~", "null", "Null", "NULL"})


class _TextResolver(yaml.resolver.BaseResolver):
    """Every scalar is text (values are read as written, see the module docstring) but an
    empty plain one (``~``, ``null``...), which is null: YAML's implicit typing (a regular
    expression per scalar) is not needed, and a quarter of the reading time is saved."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return _NULL if implicit[0] and value in _NULLS else _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None  # no path resolvers

    def ascend_resolver(self) -> None:
        return None


# Composing only (nodes and their marks; no Python object is built from a tag), with
# PyYAML's C parser when it is built with libyaml, else its pure one.
try:
    from yaml._yaml import CParser

    class _Loader(CParser, _TextResolver):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _TextResolver.__init__(self)

except ImportError:  # pragma: no cover - PyYAML without libyaml

    class _Loader(  # type: ignore[no-redef]
        yaml.reader.Reader,
        yaml.scanner.Scanner,
        yaml.parser.Parser,
        yaml.composer.Composer,
        _TextResolver,
    ):
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            _TextResolver.__init__(self)


_LOADER: Any = _Loader


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a file's nodes and cases are built: they
    are hundreds of thousands of objects kept alive, which the collector would scan again
    and again for nothing (two thirds of the reading time of a large file)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_TOP_KEYS = ("rules", "run", "tests")
_RUN_KEYS = ("inputq", "inputqm", "status_queue", "audit_queue", "max_hops")
_RUN_HINT = (
    "write run: {inputq: DLQ, inputqm: QM, status_queue: Q, audit_queue: Q, max_hops: N}, "
    "as dlqhandler run is started"
)
_CASE_KEYS = ("name", "message", "attempts", "expect")
_EXPECT_KEYS = ("action", "rule", "fwdq", "fwdqm", "header", "refused", "putaut")
_COUNT = re.compile(r"[+-]?[0-9]+")
_MESSAGE_KEYS = (*PATTERN_FIELDS, "HOPS")


def _where(node: yaml.Node) -> Where:
    start, end = node.start_mark, node.end_mark
    same = end.line == start.line and end.column > start.column
    return Where(start.line + 1, start.column + 1, end.column + 1 if same else None)


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node.tag == _NULL:
        return "empty"
    text_ = str(node.value)
    return f"the value {text_[:40]!r}" + ("..." if len(text_) > 40 else "")


class _Reader:
    def __init__(self, path: str, limit: int | None) -> None:
        self.path = path
        self.diagnostics = BoundedDiagnostics(limit)

    def problem(self, code: str, at: Where, **fields: Any) -> None:
        self.diagnostics.append(
            case_diagnostic(code, self.path, at.line, at.column, end_column=at.end_column, **fields)
        )

    def shape(self, node: yaml.Node, what: str, expected: str, hint: str) -> None:
        self.problem(
            "C103", _where(node), what=what, expected=expected, found=_kind(node), hint=hint
        )

    def mapping(
        self, node: yaml.Node, what: str, keys: tuple[str, ...], hint: str, *, fold: bool = False
    ) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        """A mapping's known keys -> (key node, value node); unknown and repeated keys
        reported. None (reported) when the node is not a mapping."""
        if not isinstance(node, yaml.MappingNode):
            self.shape(node, what, "a mapping (key: value lines)", hint)
            return None
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.shape(key_node, f"a key of {what}", "a word", "write key: value")
                continue
            key = key_node.value.upper() if fold else key_node.value
            if key in out:
                first = out[key][0].start_mark.line + 1
                self.problem("C106", _where(key_node), key=key, where=what, first=first)
                continue
            if key not in keys:
                code = "C201" if fold else "C104"
                guess = (
                    suggest(key, keys) if fold else suggest(key.upper(), [k.upper() for k in keys])
                )
                if guess is not None and not fold:
                    guess = keys[[k.upper() for k in keys].index(guess)]
                known = ", ".join(keys)
                self.problem(
                    code,
                    _where(key_node),
                    key=key_node.value[:60],
                    where=what,
                    suggestion=f"did you mean {guess}?" if guess else f"the keys are {known}",
                )
                continue
            out[key] = (key_node, value_node)
        return out

    def scalar(self, node: yaml.Node, what: str, hint: str) -> str | None:
        """A scalar's text as written ("" for an empty value); None (reported) if not."""
        if isinstance(node, yaml.ScalarNode):
            return "" if node.tag == _NULL else str(node.value)
        self.shape(node, what, "a single value", hint)
        return None


def read_cases(
    source: str | bytes, path: str, *, table_given: bool = True, limit: int | None = None
) -> CaseFile:
    """Read a case file's text (or bytes, which must be UTF-8).

    ``table_given`` says a table was named on the command line; without it the file must
    have a ``rules`` key (C108). ``limit`` caps the diagnostics kept (None: all).
    """
    with _no_gc():
        return _read(source, path, table_given, limit)


def _read(source: str | bytes, path: str, table_given: bool, limit: int | None) -> CaseFile:
    r = _Reader(path, limit)
    text_ = _decode(source, r)
    if text_ is None:
        return _done(r, text_="", cases=(), rules=None, rules_at=None, source=source)
    try:
        root = yaml.compose(text_, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = Where(mark.line + 1, mark.column + 1) if mark is not None else Where(1, 1)
        problem = exc.problem or exc.context or "malformed"
        r.problem("C102", at, problem=problem, hint=_yaml_hint(problem))
        return _done(r, text_=text_, cases=(), rules=None, rules_at=None, source=source)
    except yaml.YAMLError as exc:
        r.problem("C102", Where(1, 1), problem=str(exc).splitlines()[0], hint=_yaml_hint(""))
        return _done(r, text_=text_, cases=(), rules=None, rules_at=None, source=source)
    except RecursionError:
        r.problem("C102", Where(1, 1), problem="nested too deeply", hint=_yaml_hint(""))
        return _done(r, text_=text_, cases=(), rules=None, rules_at=None, source=source)
    if root is None:
        r.problem("C105", Where(1, 1), where="the file", key="tests", hint=_TESTS_HINT)
        return _done(r, text_=text_, cases=(), rules=None, rules_at=None, source=source)
    top = r.mapping(root, "the file", _TOP_KEYS, _TESTS_HINT)
    if top is None:
        return _done(r, text_=text_, cases=(), rules=None, rules_at=None, source=source)
    rules: str | None = None
    rules_at: Where | None = None
    if "rules" in top:
        node = top["rules"][1]
        rules = r.scalar(node, "rules", "write rules: TABLE.rul")
        rules_at = _where(node)
        if rules == "":
            r.shape(node, "rules", "a file name", "write rules: TABLE.rul")
            rules = None
    elif not table_given:
        r.problem("C108", Where(1, 1))
    run = _run(r, top["run"][1]) if "run" in top else RunSetup()
    cases: list[Case] = []
    if "tests" not in top:
        r.problem("C105", _where(root), where="the file", key="tests", hint=_TESTS_HINT)
    else:
        cases = list(_cases(r, top["tests"][1]))
    done = _done(r, text_=text_, cases=tuple(cases), rules=rules, rules_at=rules_at, source=source)
    return replace(done, run=run)


def _run(r: _Reader, node: yaml.Node) -> RunSetup:
    """The ``run`` mapping: how ``dlqhandler run`` is started (its INPUTQ and INPUTQM
    positionals and the options of the same names), names checked as ``run`` checks
    them (C312), ``max_hops`` a count of 1 or more (C313)."""
    if isinstance(node, yaml.ScalarNode) and node.tag == _NULL:
        return RunSetup()
    keys = r.mapping(node, "run", _RUN_KEYS, _RUN_HINT)
    given: dict[str, Any] = {}
    for key, (_, value_node) in (keys or {}).items():
        value = r.scalar(value_node, key, _RUN_HINT)
        if value is None:
            continue
        at = _where(value_node)
        if key == "max_hops":
            word = value.strip()
            if not _COUNT.fullmatch(word) or not 1 <= int(word) <= 999_999_999:
                r.problem("C313", at, value=value)
                continue
            given[key] = int(word)
            continue
        try:
            if key == "inputqm":
                given[key] = validate_qmgr_name(value, key) or None  # blank: the default QM
            else:
                given[key] = validate_queue_name(value, key)
        except ValueError as exc:
            r.problem("C312", at, why=str(exc), rule=NAME_RULE)
    return RunSetup(**given)


_TESTS_HINT = "start the file with tests: and a list of cases (- name: ...)"


def _yaml_hint(problem: str) -> str:
    if "tab" in problem:
        return "indent with spaces; YAML does not allow tabs for indentation"
    if "special characters" in problem or "control" in problem:
        return 'write control characters as escapes inside double quotes ("\\x1b")'
    return "check the indentation and quoting here (a value with ': ' or '#' needs quotes)"


def _decode(source: str | bytes, r: _Reader) -> str | None:
    if isinstance(source, str):
        return source
    try:
        return source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = source[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        r.problem("C101", Where(line, column), byte=f"0x{source[exc.start]:02X}")
        return None


def _done(
    r: _Reader,
    *,
    text_: str,
    cases: tuple[Case, ...],
    rules: str | None,
    rules_at: Where | None,
    source: str | bytes,
) -> CaseFile:
    if not text_ and isinstance(source, bytes):
        text_ = source.decode("utf-8", "replace")
    return CaseFile(
        r.path,
        text_,
        cases,
        rules,
        rules_at,
        r.diagnostics.kept(),
        dict(r.diagnostics.omitted),
    )


def _cases(r: _Reader, node: yaml.Node) -> Iterator[Case]:
    if not isinstance(node, yaml.SequenceNode):
        r.shape(node, "tests", "a list of cases", "write each case as a list item: - name: ...")
        return
    if not node.value:  # `tests: []` would pass whatever the table does
        r.problem("C110", _where(node))
        return
    names: dict[str, int] = {}
    for item in node.value:
        case = _case(r, item, names)
        if case is not None:
            yield case


def _case(r: _Reader, node: yaml.Node, names: dict[str, int]) -> Case | None:
    errors = r.diagnostics.errors
    keys = r.mapping(
        node, "a case", _CASE_KEYS, "write a case as name:, message:, attempts:, expect: lines"
    )
    if keys is None:
        return None
    at = _where(node)
    name = _name(r, keys, at, names)
    fields: dict[str, str | int] = {}
    hops = 1
    if "message" in keys:
        fields, hops = _fields(r, keys["message"][1])
    attempts = 0
    if "attempts" in keys:
        attempts = _attempts(r, keys["attempts"][1])
    expect: Expect | None = None
    if "expect" not in keys:
        r.problem("C105", at, where="the case", key="expect", hint="add expect: {action: ACTION}")
    else:
        expect = _expect(r, keys["expect"][1])
    if r.diagnostics.errors > errors or name is None or expect is None:
        return None
    try:
        message = build_message(fields, hops=hops)
    except ValueError as exc:  # a value the MQDLH cannot hold: said at the message
        where = _where(keys["message"][1]) if "message" in keys else at
        r.problem("C302", where, keyword="message", value="", why=str(exc), hint="")
        return None
    return Case(name, at.line, message, attempts, expect, fields, hops, column=at.column)


def _name(
    r: _Reader, keys: dict[str, tuple[yaml.Node, yaml.Node]], at: Where, names: dict[str, int]
) -> str | None:
    if "name" not in keys:
        r.problem("C105", at, where="the case", key="name", hint="add name: what the case checks")
        return None
    node = keys["name"][1]
    name = r.scalar(node, "name", "write name: what the case checks")
    if name is None:
        return None
    why = (
        "empty"
        if not name.strip()
        else "more than one line"
        if "\n" in name or "\r" in name
        else "longer than 200 characters"
        if len(name) > 200
        else None
    )
    if why is not None:
        r.problem("C308", _where(node), value=name[:40], why=why)
        return None
    shown = " ".join(name.split())  # names differing in blanks only look the same
    if shown in names:
        r.problem("C107", _where(node), name=name, first=names[shown])
        return None
    names[shown] = node.start_mark.line + 1
    return name


def _fields(r: _Reader, node: yaml.Node) -> tuple[dict[str, str | int], int]:
    """The pattern fields a case's message gives, and how many MQDLHs it carries (HOPS)."""
    if isinstance(node, yaml.ScalarNode) and node.tag == _NULL:
        return {}, 1  # `message:` with nothing: every field takes MQ's default
    keys = r.mapping(
        node,
        "the message",
        _MESSAGE_KEYS,
        "write the message as KEYWORD: value lines (REASON: MQRC_Q_FULL)",
        fold=True,
    )
    out: dict[str, str | int] = {}
    hops = 1
    for keyword, (_, value_node) in (keys or {}).items():
        value = r.scalar(value_node, keyword, f"write {keyword}: one value")
        if value is None:
            continue
        if keyword == "HOPS":
            word = value.strip()
            if not _COUNT.fullmatch(word) or not 1 <= int(word) <= MAX_HOPS_IN_A_CASE:
                r.problem("C314", _where(value_node), value=value, most=MAX_HOPS_IN_A_CASE)
            else:
                hops = int(word)
            continue
        if PATTERN_FIELDS[keyword].kind == "int":
            try:
                out[keyword] = number(keyword, value.strip())
                if keyword == "PERSIST" and out[keyword] not in GOT_PERSISTENCE:
                    r.problem("C316", _where(value_node), value=value)
            except NotANumberError as exc:
                r.problem(
                    "C301",
                    _where(value_node),
                    keyword=keyword,
                    value=value,
                    why=exc.why,
                    suggestion=exc.suggestion,
                )
            continue
        try:
            out[keyword] = text(keyword, value)
        except ValueError as exc:
            r.problem(
                "C302",
                _where(value_node),
                keyword=keyword,
                value=value[:60],
                why=str(exc),
                hint="give the field's value as the message holds it",
            )
    if hops > 1 and str(out.get("FORMAT", "MQDEAD")).rstrip(" ") != "MQDEAD":
        at = _where(keys["FORMAT"][1]) if keys is not None else _where(node)
        r.problem("C315", at, value=out["FORMAT"], hops=hops)
    return out, hops


def _attempts(r: _Reader, node: yaml.Node) -> int:
    value = r.scalar(node, "attempts", "write attempts: 2")
    if value is None:
        return 0
    if not _COUNT.fullmatch(value.strip()) or int(value) < 0 or int(value) > 999_999_999:
        r.problem("C303", _where(node), value=value)
        return 0
    return int(value)


def _expect(r: _Reader, node: yaml.Node) -> Expect | None:
    keys = r.mapping(node, "expect", _EXPECT_KEYS, "write expect: {action: FWD, rule: 7}")
    if keys is None:
        return None
    if "action" not in keys:
        r.problem(
            "C105",
            _where(node),
            where="expect",
            key="action",
            hint="add action: RETRY, FWD, DISCARD or IGNORE",
        )
        return None

    def value(key: str, hint: str) -> tuple[str, Where] | None:
        if key not in keys:
            return None
        got = r.scalar(keys[key][1], key, hint)
        return None if got is None else (got, _where(keys[key][1]))

    action_text = value("action", "write action: FWD")
    if action_text is None:
        return None
    action = _action(r, *action_text)
    rule: int | Literal["none"] | None = None
    rule_at: Where | None = None
    found = value("rule", "write rule: 7")
    if found is not None:
        rule, rule_at = _rule(r, *found), found[1]
    fwdq = _optional(value("fwdq", "write fwdq: QUEUE"))
    fwdqm = _optional(value("fwdqm", "write fwdqm: QMGR"))
    header: bool | None = None
    found = value("header", 'write header: "YES"')
    if found is not None:
        word = found[0].strip().upper()
        if word not in ("YES", "NO"):
            r.problem("C307", found[1], value=found[0])
        header = word == "YES"
    refused: str | None = None
    found = value("refused", "write refused: FORWARD_LOOP")
    if found is not None:
        refused = _refused(r, *found)
    putaut: Literal["DEF", "CTX"] | None = None
    found = value("putaut", "write putaut: CTX")
    if found is not None:
        word = found[0].strip().upper()
        if word == "DEF":
            putaut = "DEF"
        elif word == "CTX":
            putaut = "CTX"
        else:
            r.problem("C311", found[1], value=found[0])
    if action is not None and action != "FWD":
        for key in ("fwdq", "fwdqm", "header"):
            if key in keys:
                r.problem("C306", _where(keys[key][0]), key=key, action=action)
    for key in ("refused", "putaut"):
        if action in ("DISCARD", "IGNORE") and key in keys:
            r.problem("C310", _where(keys[key][0]), key=key, action=action)
    if action is None or rule == -1 or refused == "":
        return None
    return Expect(action, rule, fwdq, fwdqm, header, rule_at, refused, putaut)


def _refused(r: _Reader, value: str, at: Where) -> str:
    """A failure reason of :data:`~dlqhandler.rules.outgoing.REFUSALS` ("" reported)."""
    word = value.strip().upper()
    if word in REFUSALS:
        return word
    guess = suggest(word, REFUSALS)
    known = ", ".join(REFUSALS)
    r.problem(
        "C309",
        at,
        value=value,
        suggestion=f"did you mean {guess}?" if guess else f"the reasons are {known}",
    )
    return ""


def _optional(found: tuple[str, Where] | None) -> str | None:
    return None if found is None else found[0].strip()


def _action(r: _Reader, value: str, at: Where) -> ActionKind | None:
    word = value.strip().upper()
    for action in ACTIONS:
        if word == action:
            return action
    guess = suggest(word, ACTIONS)
    r.problem(
        "C304",
        at,
        value=value,
        suggestion=f"did you mean {guess}?" if guess else "write RETRY, FWD, DISCARD or IGNORE",
    )
    return None


def _rule(r: _Reader, value: str, at: Where) -> int | Literal["none"]:
    word = value.strip()
    if word.lower() in ("none", ""):
        return "none"
    if _COUNT.fullmatch(word) and int(word) > 0:
        return int(word)
    r.problem("C305", at, value=value)
    return -1


def check_rule_lines(
    cases: CaseFile, ruleset: RuleSet, table: str, *, sites: Sequence[RuleSite] = ()
) -> tuple[Diagnostic, ...]:
    """A C401 for each case whose ``rule`` names a line where no rule of ``ruleset``
    starts, suggesting the nearest lines that do, or, a line inside a rule continued on
    several lines (``sites``: where each rule's keywords are), the line it starts on."""
    starts = [rule.line for rule in ruleset.rules]
    inside = {
        line: site.line
        for site in sites
        for line in range(site.line + 1, max((a.line for a in site.args.values()), default=0) + 1)
    }
    known = set(starts)
    out: list[Diagnostic] = []
    for case in cases.cases:
        line = case.expect.rule
        if not isinstance(line, int) or line in known:
            continue
        at = case.expect.rule_at or Where(case.line, 1)
        out.append(
            case_diagnostic(
                "C401",
                cases.path,
                at.line,
                at.column,
                end_column=at.end_column,
                rule_line=line,
                table=table,
                suggestion=(
                    f"line {line} is inside the rule that starts on line {inside[line]} "
                    f"(continued with +): write rule: {inside[line]}"
                    if line in inside
                    else _nearest(line, starts, table)
                ),
            )
        )
    return tuple(out)


def _nearest(line: int, starts: list[int], table: str) -> str:
    if not starts:
        return f"{table} has no rules: expect rule: none (the implicit IGNORE)"
    before = max((s for s in starts if s < line), default=None)
    after = min((s for s in starts if s > line), default=None)
    near = [str(s) for s in (before, after) if s is not None]
    lines = f"lines {near[0]} and {near[1]}" if len(near) == 2 else f"line {near[0]}"
    return f"the nearest rules start on {lines} (dlqhandler lint --explain {table} lists all)"
