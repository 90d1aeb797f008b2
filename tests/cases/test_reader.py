"""Reading case files: the table of codes, MQ's defaults, values as written, and arbitrary
input that yields only diagnostics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dlqhandler.cases import read_cases
from dlqhandler.cases.diagnostics import CASE_CODES, EXAMPLE_TABLE
from dlqhandler.cases.reader import check_rule_lines
from dlqhandler.cli import main
from dlqhandler.mq.constants import MQFB_EXPIRATION, MQPER_PERSISTENT, MQRC_Q_FULL
from dlqhandler.rules import compile_rules
from dlqhandler.rules.lexer import source_lines

PKG = Path(__file__).resolve().parents[2] / "dlqhandler" / "cases"


def _one(message: str, expect: str = "{action: IGNORE}") -> str:
    return f"tests:\n  - name: c\n    message: {message}\n    expect: {expect}\n"


@pytest.mark.parametrize("code", sorted(CASE_CODES))
def test_each_code_is_produced_by_its_example(
    code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading a code's example (against EXAMPLE_TABLE) reports that code; the message and
    hint templates are filled. Codes found by the command line are checked through it."""
    info = CASE_CODES[code]
    if info.needs_files:
        path = tmp_path / "example.yaml"
        path.write_text(info.example)
        assert main(["test", str(path)]) == 2
        assert f"error[{code}]" in capsys.readouterr().err
        return
    ruleset = compile_rules(EXAMPLE_TABLE).ruleset
    assert ruleset is not None
    source = info.example.encode("latin-1") if code == "C101" else info.example
    read = read_cases(source, "example.yaml", table_given=code != "C108")
    found = list(read.diagnostics)
    if read.ok:
        found += check_rule_lines(read, ruleset, "t.rul")
    mine = [d for d in found if d.code == code]
    assert mine, [str(d) for d in found]
    unfilled = re.compile(r"\{[a-z_]+(![rs])?\}")
    assert all(d.hint and not unfilled.search(d.message + d.hint) for d in mine)


def test_every_code_used_in_the_source_is_in_the_table() -> None:
    """Every C code the package and the command line write is in CASE_CODES, and the
    codes are well formed."""
    used: set[str] = set()
    for path in [*PKG.glob("*.py"), PKG.parent / "cli" / "test.py"]:
        used |= set(re.findall(r'"(C[1-4]\d\d)"', path.read_text()))
    assert used == set(CASE_CODES)
    assert all(re.fullmatch(r"C[1-4]\d\d", c) for c in CASE_CODES)


def test_unspecified_fields_take_mqs_initial_values() -> None:
    """A case without a message is a dead letter whose fields are MQ's initial values, as
    a message got from a queue has them.

    IBM, "Initial values and language declarations for MQMD"
    (https://www.ibm.com/docs/zh/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097720_.html):
    "MsgType | MQMT_DATAGRAM | 8", "Feedback | MQFB_NONE | 0", "PutApplType |
    MQAT_NO_CONTEXT | 0", and blanks for the character fields; the MQDLH's Reason starts as
    MQRC_NONE (0). Persistence starts as MQPER_PERSISTENCE_AS_Q_DEF, which no message on a
    queue has ("For an MQGET call, the value returned is either MQPER_PERSISTENT or
    MQPER_NOT_PERSISTENT", IBM MQ, Persistence (MQLONG),
    https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097600_.html): it is
    MQPER_NOT_PERSISTENT (0), what the put gives on a queue defined with IBM's default
    DEFPSIST(NO) ("Values shown above the main line in the syntax diagram are the defaults
    supplied with IBM MQ", DEFINE QLOCAL,
    https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.4.0/refadmin/q085710_.html)."""
    read = read_cases("tests:\n  - name: c\n    expect: {action: IGNORE}\n", "c.yaml")
    (case,) = read.cases
    md, dlh = case.message.md, case.message.dlh
    assert dlh is not None
    assert (md.msg_type, md.persistence, md.feedback, md.put_appl_type) == (8, 0, 0, 0)
    assert (md.reply_to_q, md.reply_to_q_mgr, md.user_identifier, md.put_appl_name) == (
        "",
        "",
        "",
        "",
    )
    assert (dlh.reason, dlh.dest_q_name, dlh.dest_q_mgr_name, dlh.format) == (0, "", "", "")
    assert case.attempts == 0


def test_numbers_and_names_are_the_same_value() -> None:
    """Numeric fields take a number or its MQ name; REASON also takes MQFB_ names.

    IBM, "Field details for MQDLH" (https://www.ibm.com/docs/ja/SSFKSJ_latest/refdev/
    q096115_.html), Reason: "It should be one of the MQFB_* or MQRC_* values"."""
    by_name = read_cases(_one("{REASON: MQRC_Q_FULL, PERSIST: MQPER_PERSISTENT}"), "a.yaml")
    by_number = read_cases(_one("{REASON: 2053, PERSIST: 1}"), "b.yaml")
    feedback = read_cases(_one("{REASON: MQFB_EXPIRATION}"), "c.yaml")
    assert by_name.cases[0].fields == by_number.cases[0].fields
    assert by_name.cases[0].fields == {"REASON": MQRC_Q_FULL, "PERSIST": MQPER_PERSISTENT}
    assert feedback.cases[0].fields == {"REASON": MQFB_EXPIRATION}


def test_values_are_taken_as_written_not_as_yaml_guesses() -> None:
    """YAML would read ``0123`` as a number, ``yes`` as true, ``null`` as nothing: a
    character field keeps the text as written, and ``header: YES`` means HEADER(YES)."""
    read = read_cases(
        _one("{DESTQ: 0123, USERID: yes, REPLYQ: 1e3}", "{action: FWD, header: YES}"), "a.yaml"
    )
    assert read.ok, [str(d) for d in read.diagnostics]
    (case,) = read.cases
    assert case.fields == {"DESTQ": "0123", "USERID": "yes", "REPLYQ": "1e3"}
    assert case.expect.header is True


def test_keywords_are_case_insensitive_as_in_the_table() -> None:
    """``reason:`` is REASON, as ``reason(...)`` is in a rules table."""
    read = read_cases(_one("{reason: MQRC_Q_FULL, destq: APP.IN}"), "a.yaml")
    assert read.cases[0].fields == {"REASON": MQRC_Q_FULL, "DESTQ": "APP.IN"}


def test_a_character_the_field_cannot_hold_is_refused() -> None:
    """A value that cannot be written in the field's code page (CCSID 819) is C302 at the
    value, not a crash later."""
    read = read_cases(_one("{DESTQ: 日本}"), "a.yaml")
    assert [(d.code, d.line, d.column) for d in read.diagnostics] == [("C302", 3, 22)]


PIECES = st.sampled_from(
    [
        "tests:",
        "rules:",
        "  - name: a\n",
        "    message:",
        "    expect:",
        "{action: FWD}",
        "{REASON: MQRC_Q_FULL}",
        "attempts: -1",
        "rule: 3",
        "[",
        "]",
        "{",
        "}",
        ":",
        "- ",
        "\n",
        "  ",
        "\t",
        '"',
        "'",
        "&a",
        "*a",
        "!!python/object:os.system",
        "---",
        "#",
        "\x1b",
        "\x00",
        "é",
        "REASON",
        "99999999999999999999",
        "none",
    ]
)


@given(st.lists(PIECES, max_size=40).map("".join) | st.text(max_size=200))
@example("tests: &a [*a]\n")
@example("tests:\n  - name: a\n    expect: !!python/object/apply:os.system [echo]\n")
@example("[" * 2000)
def test_arbitrary_text_gives_only_diagnostics(text: str) -> None:
    """Whatever the text, reading it returns (never raises), every problem has a known
    code and a position inside the text, and a file with problems has no cases run."""
    read = read_cases(text, "f.yaml", table_given=True)
    lines = source_lines(read.text)
    for d in read.diagnostics:
        assert d.code in CASE_CODES
        assert 1 <= d.line <= max(1, len(lines) + 1)
        assert d.column >= 1


@given(st.binary(max_size=200))
def test_arbitrary_bytes_give_only_diagnostics(data: bytes) -> None:
    """Bytes that are not UTF-8 are C101 at a position; nothing raises."""
    read = read_cases(data, "f.yaml")
    assert all(d.code in CASE_CODES for d in read.diagnostics)


def test_names_differing_only_in_blanks_are_duplicates() -> None:
    """Two case names that differ only in blanks ('a full queue' and 'a  full queue ')
    look the same in every report: the second is C107, naming the first's line."""
    read = read_cases(
        "tests:\n  - name: a full queue\n    expect: {action: IGNORE}\n"
        "  - name: 'a  full queue '\n    expect: {action: IGNORE}\n",
        "x.yaml",
    )
    (d,) = read.diagnostics
    assert (d.code, d.line, d.message) == (
        "C107",
        4,
        "duplicate case name 'a  full queue ' (first at line 2)",
    )
