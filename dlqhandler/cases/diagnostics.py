"""What a case file can get wrong: one table of codes, messages, hints and examples.

The codes are ``C1xx`` (the file), ``C2xx`` (a case's shape), ``C3xx`` (a value) and
``C4xx`` (what the table says of a case: a ``rule`` line that holds no rule). Each entry
has an example case file that produces it (checked against :data:`EXAMPLE_TABLE` by a
test), as the rules language's own table of codes does
(:data:`dlqhandler.rules.diagnostics.CODES`). A case-file problem is a
:class:`~dlqhandler.rules.Diagnostic`, so ``test`` shows it as ``lint`` shows a table's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dlqhandler.rules.diagnostics import Diagnostic, Severity

__all__ = ["CASE_CODES", "EXAMPLE_TABLE", "CaseCode", "case_diagnostic"]

# The table the examples are read against (rules on lines 1 and 2).
EXAMPLE_TABLE = "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n"


@dataclass(frozen=True, slots=True)
class CaseCode:
    """A case-file diagnostic code: message and hint templates, and an example file."""

    code: str
    summary: str
    message: str  # str.format template
    hint: str | None
    example: str
    needs_files: bool = False  # found by the command line, which reads the table


_ONE = "tests:\n  - name: full\n    message: {REASON: MQRC_Q_FULL}\n    expect: {action: RETRY}\n"

_TABLE: tuple[CaseCode, ...] = (
    CaseCode(
        "C101",
        "the file is not UTF-8",
        "byte {byte} is not UTF-8",
        "save the case file as UTF-8 (iconv -f ISO-8859-1 -t UTF-8)",
        "tests: []\n# caf\xe9\n",
    ),
    CaseCode(
        "C102",
        "the file is not YAML",
        "not YAML: {problem}",
        "{hint}",
        "tests:\n  - name: [unclosed\n",
    ),
    CaseCode(
        "C103",
        "a value of the wrong shape (a list where a mapping belongs...)",
        "{what} must be {expected}, not {found}",
        "{hint}",
        "tests:\n  name: full\n",
    ),
    CaseCode(
        "C104",
        "an unknown key",
        "unknown key {key!r} in {where}",
        "{suggestion}",
        _ONE.replace("expect:", "expekt:"),
    ),
    CaseCode(
        "C105",
        "a required key is missing",
        "{where} has no {key!r}",
        "{hint}",
        "tests:\n  - name: full\n    message: {REASON: 2053}\n",
    ),
    CaseCode(
        "C106",
        "a key given twice in one mapping",
        "{key!r} given twice in {where} (first at line {first})",
        "give each key once",
        _ONE.replace("{REASON: MQRC_Q_FULL}", "{REASON: 2053, REASON: 2051}"),
    ),
    CaseCode(
        "C107",
        "two cases with the same name",
        "duplicate case name {name!r} (first at line {first})",
        "give every case of a file its own name",
        _ONE + _ONE.removeprefix("tests:\n"),
    ),
    CaseCode(
        "C108",
        "no rules table for the cases",
        "no rules table: the file has no 'rules' key and no TABLE was given",
        "add 'rules: TABLE.rul' (relative to this file) or run dlqhandler test TABLE FILE",
        _ONE,
    ),
    CaseCode(
        "C109",
        "the rules table the file names cannot be read",
        "cannot read the rules table {table}: {why}",
        "the rules key is relative to the case file; check the name",
        "rules: missing.rul\n" + _ONE,
        needs_files=True,
    ),
    CaseCode(
        "C110",
        "a file with no cases",
        "the file has no cases: tests is an empty list",
        "add a case (- name: ..., message: ..., expect: ...); a file that checks nothing "
        "would pass whatever the table does",
        "rules: t.rul\ntests: []\n",
    ),
    CaseCode(
        "C201",
        "an unknown message keyword",
        "unknown message keyword {key!r}",
        "{suggestion}",
        _ONE.replace("REASON:", "REASN:"),
    ),
    CaseCode(
        "C301",
        "a numeric field that is neither a number nor an MQ name",
        "{keyword} {value!r} is {why}",
        "{suggestion}",
        _ONE.replace("MQRC_Q_FULL", "MQRC_Q_FUL"),
    ),
    CaseCode(
        "C302",
        "a character field that cannot be in a message",
        "{keyword} {value!r} {why}",
        "{hint}",
        _ONE.replace("{REASON: MQRC_Q_FULL}", "{DESTQ: " + "Q" * 49 + "}"),
    ),
    CaseCode(
        "C303",
        "attempts that is not a count",
        "attempts {value!r} is not a count of 0 or more",
        "write the attempts already counted for the message, for example attempts: 2",
        _ONE.replace("    expect:", "    attempts: -1\n    expect:"),
    ),
    CaseCode(
        "C304",
        "an unknown action",
        "unknown action {value!r}",
        "{suggestion}",
        _ONE.replace("action: RETRY", "action: RETRI"),
    ),
    CaseCode(
        "C305",
        "a rule that is not a line number or none",
        "rule {value!r} is not a line number",
        "write the line the deciding rule starts on, or none for the implicit IGNORE",
        _ONE.replace("action: RETRY}", "action: RETRY, rule: first}"),
    ),
    CaseCode(
        "C306",
        "a forwarding expectation on an action that does not forward",
        "{key} applies to ACTION(FWD) only; the case expects {action}",
        "remove {key}, or expect action: FWD",
        _ONE.replace("action: RETRY}", "action: RETRY, fwdq: DLQ.X}"),
    ),
    CaseCode(
        "C307",
        "a header expectation that is not YES or NO",
        "header {value!r} is not YES or NO",
        'write header: "YES" or header: "NO"',
        _ONE.replace("action: RETRY}", "action: FWD, header: maybe}"),
    ),
    CaseCode(
        "C308",
        "a case name that is not a plain string",
        "the case name {value!r} is {why}",
        "give a short name on one line, for example name: a full queue is retried",
        _ONE.replace("name: full", "name: ''"),
    ),
    CaseCode(
        "C309",
        "a refused that is not a reason run gives",
        "refused {value!r} is not a reason run gives for refusing a put",
        "{suggestion}",
        _ONE.replace("action: RETRY}", "action: RETRY, refused: FORWARD_LOOOP}"),
    ),
    CaseCode(
        "C310",
        "refused or putaut with an action that puts nothing",
        "{key} applies to ACTION(RETRY) and ACTION(FWD) only; the case expects {action}",
        "remove {key}: a {action} puts nothing",
        _ONE.replace("action: RETRY}", "action: DISCARD, refused: FORWARD_LOOP}"),
    ),
    CaseCode(
        "C311",
        "a putaut expectation that is not DEF or CTX",
        "putaut {value!r} is not DEF or CTX",
        "write putaut: CTX (the message's UserIdentifier's authority) or putaut: DEF",
        _ONE.replace("action: RETRY}", "action: RETRY, putaut: yes}"),
    ),
    CaseCode(
        "C312",
        "a queue or queue manager name in run: that is not an MQ name",
        "{why}: not a valid MQ name",
        "MQ names are {rule}",
        "run: {status_queue: 'DLQ STATUS'}\n" + _ONE,
    ),
    CaseCode(
        "C313",
        "a max_hops that is not a count of 1 or more",
        "max_hops {value!r} is not a count of 1 or more",
        "write the --max-hops run is started with, for example max_hops: 5",
        "run: {max_hops: 0}\n" + _ONE,
    ),
    CaseCode(
        "C314",
        "a HOPS that is not a count of MQDLHs",
        "HOPS {value!r} is not a count from 1 to {most}",
        "write how many MQDLH headers the message carries, for example HOPS: 3 "
        "(1: dead-lettered once)",
        _ONE.replace("{REASON: MQRC_Q_FULL}", "{REASON: MQRC_Q_FULL, HOPS: 0}"),
    ),
    CaseCode(
        "C315",
        "a FORMAT other than MQDEAD on a message carrying several MQDLHs",
        "FORMAT {value!r} cannot be the MQDLH's Format of a message with HOPS {hops}: "
        "the data under that MQDLH is a dead letter, MQDEAD",
        "remove FORMAT (it is MQDEAD), or give HOPS: 1",
        _ONE.replace("{REASON: MQRC_Q_FULL}", "{FORMAT: MQSTR, HOPS: 2}"),
    ),
    CaseCode(
        "C316",
        "a PERSIST a message got from a queue cannot have",
        "PERSIST {value!r} is not what a message on a queue has: the queue manager "
        "replaces MQPER_PERSISTENCE_AS_Q_DEF by the queue's DEFPSIST when it is put",
        "write PERSIST: MQPER_PERSISTENT or MQPER_NOT_PERSISTENT (the default)",
        _ONE.replace("{REASON: MQRC_Q_FULL}", "{PERSIST: MQPER_PERSISTENCE_AS_Q_DEF}"),
    ),
    CaseCode(
        "C401",
        "a rule line that holds no rule",
        "line {rule_line} of {table} holds no rule",
        "{suggestion}",
        _ONE.replace("action: RETRY}", "action: RETRY, rule: 3}"),
    ),
)

CASE_CODES: dict[str, CaseCode] = {c.code: c for c in _TABLE}


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def case_diagnostic(
    code: str, path: str, line: int, column: int, *, end_column: int | None = None, **fields: Any
) -> Diagnostic:
    """A case-file error from :data:`CASE_CODES`, its templates filled with ``fields``."""
    info = CASE_CODES[code]
    values = _Blank(fields)
    hint = info.hint.format_map(values) if info.hint is not None else None
    return Diagnostic(
        path,
        line,
        column,
        Severity.ERROR,
        code,
        info.message.format_map(values),
        hint or None,
        end_column,
    )
