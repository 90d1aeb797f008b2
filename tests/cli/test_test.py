"""``dlqhandler test``: case files checked against a table, end to end through the CLI.

Pass and fail lines, every exit code, --junit (parsed back), --coverage and --fail-under,
--format json, --generate and its round trip on the shipped backlog, and every kind of
bad input of issue 35 (exit 2 with ``file:line:col`` and a hint; never a traceback).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats import read_dump
from dlqhandler.mq import decode_dead_letter
from tests.cli.helpers import BACKLOG, DEMO, ROOT, DlqTest, Write
from tests.worker.helpers import DLQ, Ledger, RunCli, define, load

TABLE = """\
* a small table: retry a full queue twice, then the catch-all
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)
REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(DEADQ.SECURITY)
DESTQM(QM2) ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM) HEADER(NO)
REPLYQM('?*') ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)
ACTION(FWD) FWDQ(DEADQ.MANUAL)
"""

CASES = """\
rules: table.rul
tests:
  - name: a full queue is retried
    message:
      REASON: MQRC_Q_FULL
      DESTQ: APP.IN
      DESTQM: QM1
      PERSIST: MQPER_PERSISTENT
    attempts: 1
    expect:
      action: RETRY
      rule: 2
  - name: used-up retries fall through
    message: {REASON: 2053, DESTQ: APP.IN}
    attempts: 2
    expect: {action: FWD, rule: 6, fwdq: DEADQ.MANUAL, header: "YES"}
  - name: substitution of the destination
    message: {REASON: MQRC_UNKNOWN_OBJECT_NAME, DESTQ: PAY.IN, DESTQM: QM2}
    expect: {action: FWD, rule: 4, fwdq: PAY.IN, fwdqm: QM2, header: "NO"}
  - name: substitution of the reply-to queue
    message: {REPLYQ: ANSWERS, REPLYQM: QM9}
    expect: {action: FWD, rule: 5, fwdq: ANSWERS, fwdqm: QM9}
"""

Out = pytest.CaptureFixture[str]


@pytest.fixture
def write(write: Write) -> Write:
    """The file writer of tests/cli/conftest.py, with the table already written as table.rul."""
    write("table.rul", TABLE)
    return write


def test_passing_cases_print_the_count_and_exit_0(write: Write, dlq_test: DlqTest) -> None:
    """Every case holds: only ``N passed, 0 failed`` is printed, exit 0 (OK). The cases
    cover RETRY(n) by attempt count, its fall-through, and &DESTQ/&DESTQM and
    &REPLYQ/&REPLYQM substitution."""
    cases = write("cases.yaml", CASES)
    assert dlq_test(cases, code=ExitCode.OK).out == "4 passed, 0 failed\n"


def test_a_failure_names_file_line_case_expected_and_got(write: Write, dlq_test: DlqTest) -> None:
    """A failed case: ``file:line:column: FAIL name: expected ... (rule at table:line), got ...
    (table:line)``, the last line ``N passed, M failed``, exit 1 (FAILURE). The column is
    where the case starts (its first key, or the ``{`` of a case written on one line), so
    an editor or a CI annotation reading ``file:line:column:`` goes to the case; JSON
    gives it as ``column``."""
    cases = write("cases.yaml", CASES.replace("    attempts: 1\n", "    attempts: 2\n"))
    table = str(Path(cases).parent / "table.rul")
    assert dlq_test(cases, code=ExitCode.FAILURE).out.splitlines() == [
        (
            f"{cases}:3:5: FAIL a full queue is retried: expected RETRY (rule at {table}:2), "
            f"got FWD DEADQ.MANUAL ({table}:6)"
        ),
        "3 passed, 1 failed",
    ]
    flow = write(
        "flow.yaml", "rules: table.rul\ntests:\n- {name: flow, expect: {action: DISCARD}}\n"
    )
    assert dlq_test(flow, code=ExitCode.FAILURE).out.startswith(f"{flow}:3:3: FAIL flow:")
    out = dlq_test(flow, "--format", "json", code=ExitCode.FAILURE).out
    assert (json.loads(out)["files"][0]["cases"][0]["column"]) == 3


def test_a_table_on_the_command_line_overrides_the_rules_key(
    write: Write, dlq_test: DlqTest
) -> None:
    """TABLE before the case files is used instead of their ``rules:`` key: a changed
    table tested against the same cases."""
    cases = write("cases.yaml", CASES)
    changed = write("changed.rul", TABLE.replace("RETRY(2)", "RETRY(1)"))
    out = dlq_test(changed, cases, code=ExitCode.FAILURE).out
    assert f"expected RETRY (rule at {changed}:2), got FWD DEADQ.MANUAL ({changed}:6)" in out


def test_an_implicit_ignore_is_rule_none(write: Write, dlq_test: DlqTest) -> None:
    """With no rule chosen the decision is the implicit IGNORE: ``rule: none`` expects it,
    and a failure says so."""
    write("ignore.rul", "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
    cases = write(
        "cases.yaml",
        "rules: ignore.rul\ntests:\n"
        "  - name: spent\n    message: {REASON: MQRC_Q_FULL}\n    attempts: 1\n"
        "    expect: {action: IGNORE, rule: none}\n"
        "  - name: wrong\n    message: {REASON: MQRC_Q_FULL}\n    attempts: 1\n"
        "    expect: {action: RETRY, rule: 1}\n",
    )
    table = str(Path(cases).parent / "ignore.rul")
    assert dlq_test(cases, code=ExitCode.FAILURE).out.splitlines() == [
        (
            f"{cases}:7:5: FAIL wrong: expected RETRY (rule at {table}:1), "
            "got IGNORE (implicit IGNORE: no rule)"
        ),
        "1 passed, 1 failed",
    ]


def test_an_unusable_substituted_target_is_what_run_would_fail_on(
    write: Write, dlq_test: DlqTest
) -> None:
    """FWDQ(&REPLYQ) of a message with a reply-to queue manager but no reply-to queue:
    ``run`` could not put it (a blank name); a case expecting a queue fails saying so."""
    cases = write(
        "cases.yaml",
        "rules: table.rul\ntests:\n  - name: blank reply queue\n"
        "    message: {REPLYQM: QM9}\n    expect: {action: FWD, fwdq: ANSWERS}\n",
    )
    out = dlq_test(cases, code=ExitCode.FAILURE).out
    assert "expected FWD ANSWERS, got FWD refused by run as INVALID_TARGET (" in out
    assert "MQMD.ReplyToQ" in out


def test_a_table_that_does_not_compile_exits_3(write: Write, dlq_test: DlqTest) -> None:
    """The table's errors are shown as lint shows them and the exit is 3 (RULES_ERROR);
    no case is run."""
    write("table.rul", "REASON(2053) RETRIES(3) ACTION(RETRY)\n")
    cases = write("cases.yaml", CASES)
    captured = dlq_test(cases, code=ExitCode.RULES_ERROR)
    assert "error[E101]: unknown keyword RETRIES" in captured.err
    assert "hint: did you mean RETRY?" in captured.err
    assert "the table does not compile" in captured.err
    assert "passed" not in captured.out


def test_junit_xml_has_one_testcase_per_case(write: Write, capsys: Out, tmp_path: Path) -> None:
    """--junit FILE writes JUnit XML that parses: a testsuite per case file with the
    counts, a testcase per case, a failure element (with the failure line) for each
    failed one; control characters in a name are escaped."""
    cases = write(
        "cases.yaml",
        CASES.replace("    attempts: 1\n", "    attempts: 2\n").replace(
            "name: used-up retries fall through", 'name: "used-up \\e[31m retries"'
        ),
    )
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()
    assert main(["test", cases, "--junit", str(junit)]) == ExitCode.FAILURE
    root = ET.fromstring(junit.read_bytes())
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("4", "1")
    (suite,) = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (cases, "4", "1")
    testcases = suite.findall("testcase")
    assert [t.get("name") for t in testcases] == [
        "a full queue is retried",
        "used-up \\x1b[31m retries",
        "substitution of the destination",
        "substitution of the reply-to queue",
    ]
    assert [t.get("line") for t in testcases] == ["3", "13", "17", "20"]
    failures = [t.find("failure") for t in testcases]
    assert [f is not None for f in failures] == [True, False, False, False]
    assert failures[0] is not None
    assert "FAIL a full queue is retried: expected RETRY" in (failures[0].text or "")
    assert capsys.readouterr().out.endswith("3 passed, 1 failed\n")


def test_coverage_lists_each_rule_and_the_unreached(write: Write, dlq_test: DlqTest) -> None:
    """--coverage: each rule with the cases it decided, then the rules no case reaches;
    the run still passes (exit 0)."""
    cases = write("cases.yaml", CASES)
    table = str(Path(cases).parent / "table.rul")
    lines = dlq_test(cases, "--coverage", code=ExitCode.OK).out.splitlines()
    assert lines[0] == f"coverage of {table}: 4 of 5 rules decided a case (80.0%)"
    assert lines[1].split() == [
        f"{table}:2",
        "1",
        "case",
        *["REASON(MQRC_Q_FULL)", "ACTION(RETRY)", "RETRY(2)"],
    ]
    assert lines[2].split()[:3] == [f"{table}:3", "0", "cases"]
    assert lines[5].split()[:3] == [f"{table}:6", "1", "case"]
    assert lines[6] == "  rules no case reaches: 3"
    assert lines[-1] == "4 passed, 0 failed"


def test_fail_under_fails_when_too_few_rules_are_covered(write: Write, dlq_test: DlqTest) -> None:
    """--fail-under 80 passes at 80% covered; --fail-under 90 fails (exit 1) and says so,
    though every case passed."""
    cases = write("cases.yaml", CASES)
    dlq_test(cases, "--fail-under", "80", code=ExitCode.OK)
    out = dlq_test(cases, "--fail-under", "90", code=ExitCode.FAILURE).out.splitlines()
    assert out[-2].endswith("is 80.0%, under --fail-under 90%")
    assert out[-1] == "4 passed, 0 failed"


def test_fail_under_refuses_a_value_that_is_not_a_percentage(write: Write, capsys: Out) -> None:
    """--fail-under 120 is a usage error (argparse exits 2, naming the option)."""
    cases = write("cases.yaml", CASES)
    with pytest.raises(SystemExit) as stop:
        main(["test", cases, "--fail-under", "120"])
    assert stop.value.code == ExitCode.USAGE
    assert "--fail-under" in capsys.readouterr().err


def test_json_format_for_tools(write: Write, dlq_test: DlqTest) -> None:
    """--format json: every case with what it expected and got (rule lines, targets,
    the matching rules, run's refusal), the run each file is checked for, the counts
    and, asked for, the coverage."""
    cases = write("cases.yaml", CASES.replace("    attempts: 1\n", "    attempts: 2\n"))
    out = json.loads(dlq_test(cases, "--format", "json", "--coverage", code=ExitCode.FAILURE).out)
    assert (out["passed"], out["failed"]) == (3, 1)
    first = out["files"][0]["cases"][0]
    assert first["name"] == "a full queue is retried"
    assert (first["passed"], first["missed"]) == (False, ["action", "rule"])
    assert first["expected"]["action"] == "RETRY"
    assert first["got"] == {
        "action": "FWD",
        "rule": 6,
        "fwdq": "DEADQ.MANUAL",
        "fwdqm": "",
        "header": "YES",
        "refused": None,
        "putaut": "DEF",
        "target_problem": None,
        "depends_on_qmgr": None,
        "matched": [2, 6],
    }
    assert out["files"][0]["run"] == {
        "input_queue": "SYSTEM.DEAD.LETTER.QUEUE",
        "local_qmgr": "",
        "status_queue": "DLQHANDLER.STATUS",
        "audit_queue": "DLQHANDLER.AUDIT",
        "max_hops": 5,
    }
    (cov,) = out["coverage"]
    assert (cov["covered"], cov["total"], cov["unreached"]) == (3, 5, [2, 3])


# --- bad input: exit 2, file:line:col, what to write instead, never a traceback ---

BAD_INPUT = [
    pytest.param("tests: [\n", "C102", 2, 1, None, id="not-yaml"),
    pytest.param("- name: a\n", "C103", 1, 1, "a mapping", id="list-for-mapping"),
    pytest.param(
        "tests:\n  - name: a\n    message: [REASON, 2053]\n    expect: {action: IGNORE}\n",
        "C103",
        3,
        14,
        "a mapping",
        id="list-for-message",
    ),
    pytest.param(
        "tests:\n  - name: a\n    expect: {action: IGNORE}\n"
        "  - name: a\n    expect: {action: IGNORE}\n",
        "C107",
        4,
        11,
        "its own name",
        id="duplicate-name",
    ),
    pytest.param(
        "tests:\n  - name: a\n    message: {REASON: MQRC_Q_FUL}\n    expect: {action: IGNORE}\n",
        "C301",
        3,
        23,
        "did you mean MQRC_Q_FULL?",
        id="unknown-mq-name",
    ),
    pytest.param(
        "tests:\n  - name: a\n    message: {PERSIST: MQRC_Q_FULL}\n    expect: {action: IGNORE}\n",
        "C301",
        3,
        24,
        "PERSIST takes a number or MQPER_*",
        id="name-of-another-family",
    ),
    pytest.param(
        "tests:\n  - name: a\n    message: {REASN: 2053}\n    expect: {action: IGNORE}\n",
        "C201",
        3,
        15,
        "did you mean REASON?",
        id="unknown-keyword",
    ),
    pytest.param(
        "tests:\n  - name: a\n    expekt: {action: IGNORE}\n",
        "C104",
        3,
        5,
        "did you mean expect?",
        id="unknown-field",
    ),
    pytest.param(
        "tests:\n  - name: a\n    attempts: -1\n    expect: {action: IGNORE}\n",
        "C303",
        3,
        15,
        "for example attempts: 2",
        id="negative-attempts",
    ),
    pytest.param(
        "tests:\n  - name: a\n    expect: {action: IGNORE, rule: 1}\n",
        "C401",
        3,
        36,
        "the nearest rules start on line 2",
        id="rule-line-without-rule",
    ),
    pytest.param(
        "tests:\n  - name: a\n    expect: {action: RETRI}\n",
        "C304",
        3,
        22,
        "did you mean RETRY?",
        id="unknown-action",
    ),
    pytest.param(
        "tests:\n  - name: a\n    message: {DESTQ: "
        + "Q" * 49
        + "}\n    expect: {action: IGNORE}\n",
        "C302",
        3,
        22,
        "the field's value",
        id="too-long-for-its-field",
    ),
    pytest.param(
        "tests:\n  - name: a\n    message: {REASON: 1, REASON: 2}\n    expect: {action: IGNORE}\n",
        "C106",
        3,
        26,
        "give each key once",
        id="key-twice",
    ),
    pytest.param(
        "tests:\n  - name: a\n    expect: {action: DISCARD, fwdq: X}\n",
        "C306",
        3,
        31,
        "remove fwdq",
        id="fwdq-without-fwd",
    ),
    pytest.param("", "C105", 1, 1, "start the file with tests:", id="empty-file"),
]


@pytest.mark.parametrize(("text", "code", "line", "column", "hint"), BAD_INPUT)
def test_bad_case_files_exit_2_with_position_and_hint(
    write: Write, dlq_test: DlqTest, text: str, code: str, line: int, column: int, hint: str | None
) -> None:
    """Each bad case file of issue 35 (not YAML, a list where a mapping belongs, a
    duplicate name, an unknown MQ name, a negative attempts, a rule line without a rule,
    and more): exit 2 (USAGE), ``file:line:col: error[CODE]``, the source line with a
    caret, the hint; no case run, no traceback."""
    cases = write("cases.yaml", text)
    captured = dlq_test(str(Path(cases).parent / "table.rul"), cases, code=ExitCode.USAGE)
    assert f"{cases}:{line}:{column}: error[{code}]:" in captured.err, captured.err
    if hint is not None:
        assert hint in captured.err
    assert "^" in captured.err or line > len(text.splitlines())
    assert "Traceback" not in captured.err
    assert "passed" not in captured.out


def test_every_problem_of_a_file_is_reported(write: Write, dlq_test: DlqTest) -> None:
    """Problems are all reported, not the first: three bad cases, three diagnostics."""
    cases = write(
        "cases.yaml",
        "rules: table.rul\ntests:\n"
        "  - name: a\n    message: {REASON: MQRC_NOPE}\n    expect: {action: IGNORE}\n"
        "  - name: b\n    attempts: x\n    expect: {action: IGNORE}\n"
        "  - name: c\n    expect: {action: NOPE}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert [c for c in ("C301", "C303", "C304") if f"error[{c}]" in err] == ["C301", "C303", "C304"]
    assert "3 problems in case files; no case was run" in err


def test_rule_lines_and_tables_are_checked_with_the_other_problems(
    write: Write, dlq_test: DlqTest
) -> None:
    """A case file with a problem of its own still has its ``rule:`` lines checked against
    its table (C401) and, in another file, a ``rules:`` that cannot be read (C109): every
    problem is reported in one run, by file and line, not some first and the rest after
    they are fixed (before, the C303 alone, then the C401 and the C109 on the next run).
    --error-limit still caps each file."""
    write("table.rul", "WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(DISCARD)\n")
    cases = write(
        "cases.yaml",
        "rules: table.rul\ntests:\n"
        "  - name: a\n    expect: {action: DISCARD, rule: 1}\n"
        "  - name: b\n    attempts: x\n    expect: {action: IGNORE}\n"
        "  - name: c\n    expect: {action: DISCARD, rule: 4}\n",
    )
    other = write(
        "other.yaml", "rules: gone.rul\ntests:\n  - name: a\n    expect: {action: IGNORE}\n"
    )
    err = dlq_test(cases, other, code=ExitCode.USAGE).err
    lines = [line for line in err.splitlines() if ": error[" in line]
    assert [line.split(": error[")[0] for line in lines] == [
        f"{cases}:4:37",
        f"{cases}:6:15",
        f"{cases}:9:37",
        f"{other}:1:8",
    ]
    assert [line.split("error[")[1][:4] for line in lines] == ["C401", "C303", "C401", "C109"]
    assert "4 problems in case files; no case was run" in err
    err = dlq_test(cases, "--error-limit", "1", code=ExitCode.USAGE).err
    assert err.count(": error[") == 1
    assert "2 more problems not shown (C303 x1, C401 x1)" in err
    assert "3 problems in case files" in err


def test_the_diagnostic_cap_applies_to_case_files(write: Write, dlq_test: DlqTest) -> None:
    """--error-limit 2 shows the first two problems and counts the rest by code, as lint."""
    body = "".join(
        f"  - name: n{i}\n    message: {{REASON: MQRC_NOPE}}\n    expect: {{action: IGNORE}}\n"
        for i in range(5)
    )
    cases = write("cases.yaml", "rules: table.rul\ntests:\n" + body)
    err = dlq_test(cases, "--error-limit", "2", code=ExitCode.USAGE).err
    assert err.count("error[C301]") == 2
    assert "3 more problems not shown (C301 x3)" in err


def test_control_characters_are_escaped(write: Write, dlq_test: DlqTest) -> None:
    """An ESC written in a value (a YAML escape) is shown as \\x1b, never sent raw."""
    cases = write(
        "cases.yaml",
        'tests:\n  - name: a\n    message: {REASON: "MQRC\\e[2J"}\n    expect: {action: IGNORE}\n',
    )
    err = dlq_test(str(Path(cases).parent / "table.rul"), cases, code=ExitCode.USAGE).err
    assert "\x1b" not in err
    assert "MQRC\\x1b[2J" in err


def test_bytes_that_are_not_utf8(tmp_path: Path, dlq_test: DlqTest) -> None:
    """A Latin-1 byte: C101 at its line and column, exit 2."""
    (tmp_path / "table.rul").write_text(TABLE)
    cases = tmp_path / "cases.yaml"
    cases.write_bytes(b"rules: table.rul\ntests: []\n# caf\xe9\n")
    assert (
        f"{cases}:3:6: error[C101]: byte 0xE9 is not UTF-8"
        in dlq_test(str(cases), code=ExitCode.USAGE).err
    )


def test_a_missing_table_or_case_file(write: Write, dlq_test: DlqTest) -> None:
    """A ``rules:`` key naming no file: C109 at the key's value; a case file that does not
    exist: a plain usage error. Both exit 2."""
    cases = write("cases.yaml", CASES.replace("rules: table.rul", "rules: nothere.rul"))
    assert (
        f"{cases}:1:8: error[C109]: cannot read the rules table"
        in dlq_test(cases, code=ExitCode.USAGE).err
    )
    assert (
        "cannot read case file"
        in dlq_test(str(Path(cases).parent / "none.yaml"), code=ExitCode.USAGE).err
    )


def test_a_file_with_no_cases_fails(write: Write, dlq_test: DlqTest) -> None:
    """``tests: []`` checks nothing, so it would pass whatever the table does (a table that
    sends every message to the wrong queue included): C110 at the list, exit 2, never
    "0 passed, 0 failed" and exit 0."""
    cases = write("cases.yaml", "rules: table.rul\ntests: []\n")
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert f"{cases}:2:8: error[C110]: the file has no cases" in err
    assert "0 passed" not in err


def test_a_case_expecting_a_forward_to_the_input_dlq_fails(write: Write, dlq_test: DlqTest) -> None:
    """A FWD whose target is the DLQ being processed (FWDQ naming it, or &REPLYQ
    substituted to it) is refused by ``run`` as a loop and the message stays: a case
    expecting that forward fails, naming the problem, instead of passing. The input DLQ
    is the table's INPUTQ, else the queue manager's DEADQ ("If no queue name is supplied
    as an explicit parameter to runmqdlq, use the DLQ defined for the local queue
    manager", IBM MQ, An example DLQ handler rules table,
    https://www.ibm.com/docs/en/ibm-mq/9.3.x?topic=table-example-dlq-handler-rules),
    taken as SYSTEM.DEAD.LETTER.QUEUE. On another queue manager it is no loop."""
    write(
        "loop.rul",
        "INPUTQ(MY.DLQ) INPUTQM(QM1)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(MY.DLQ)\n"
        "REPLYQM(QM9) ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)\n"
        "ACTION(FWD) FWDQ(&REPLYQ) FWDQM(QM1)\n",
    )
    cases = write(
        "loop.yaml",
        "rules: loop.rul\ntests:\n"
        "  - name: named\n    message: {REASON: MQRC_Q_FULL}\n"
        "    expect: {action: FWD, fwdq: MY.DLQ}\n"
        "  - name: substituted\n    message: {REASON: 2051, REPLYQ: MY.DLQ}\n"
        "    expect: {action: FWD, fwdq: MY.DLQ}\n"
        "  - name: elsewhere\n    message: {REPLYQ: MY.DLQ, REPLYQM: QM9}\n"
        "    expect: {action: FWD, fwdq: MY.DLQ, fwdqm: QM9}\n",
    )
    out = dlq_test(cases, code=ExitCode.FAILURE).out
    problem = "FWD MY.DLQ refused by run as FORWARD_LOOP (target MY.DLQ is the input dead-letter"
    assert f"{cases}:3:5: FAIL named: expected FWD MY.DLQ, got {problem}" in out
    assert f"{cases}:6:5: FAIL substituted: expected FWD MY.DLQ, got {problem}" in out
    assert "1 passed, 2 failed" in out
    default = write(
        "default.yaml",
        "tests:\n  - name: to the DEADQ\n    message: {REASON: 2053}\n"
        "    expect: {action: FWD, fwdq: SYSTEM.DEAD.LETTER.QUEUE}\n",
    )
    write("dead.rul", "ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n")
    assert (
        "0 passed, 1 failed"
        in dlq_test(str(Path(default).parent / "dead.rul"), default, code=ExitCode.FAILURE).out
    )


def test_a_case_expecting_a_forward_to_a_control_queue_fails(
    write: Write, dlq_test: DlqTest
) -> None:
    """``FWDQ(&REPLYQ)`` substituted to the handler's status or audit queue is refused by
    ``run`` (CONTROL_QUEUE, docs/one-off-actions.md) and the message stays: a case
    expecting that forward fails, naming the queue's role. The names are run's defaults
    (held equal to run's own by tests/cli/test_test_run.py)."""
    write("r.rul", "ACTION(FWD) FWDQ(&REPLYQ)\n")
    cases = write(
        "r.yaml",
        "rules: r.rul\ntests:\n"
        "  - name: status\n    message: {REPLYQ: DLQHANDLER.STATUS}\n"
        "    expect: {action: FWD, fwdq: DLQHANDLER.STATUS}\n"
        "  - name: audit\n    message: {REPLYQ: DLQHANDLER.AUDIT}\n"
        "    expect: {action: FWD, fwdq: DLQHANDLER.AUDIT}\n"
        "  - name: an application queue\n    message: {REPLYQ: APP.REPLY}\n"
        "    expect: {action: FWD, fwdq: APP.REPLY}\n",
    )
    out = dlq_test(cases, code=ExitCode.FAILURE).out
    assert "target DLQHANDLER.STATUS is the handler's status queue: a dead letter is" in out
    assert "target DLQHANDLER.AUDIT is the handler's audit queue: a dead letter is" in out
    assert "1 passed, 2 failed" in out


def test_no_table_anywhere_is_c108(write: Write, dlq_test: DlqTest) -> None:
    """A case file without ``rules:`` and no TABLE given: C108, exit 2."""
    cases = write("cases.yaml", CASES.replace("rules: table.rul\n", ""))
    assert "error[C108]: no rules table" in dlq_test(cases, code=ExitCode.USAGE).err


def test_usage_errors(write: Write, dlq_test: DlqTest) -> None:
    """A table without case files, --generate with case files, --distinct without
    --generate: usage errors (exit 2) saying what to write."""
    table = str(Path(write("cases.yaml", CASES)).parent / "table.rul")
    assert "give a case file after the table" in dlq_test(table, code=ExitCode.USAGE).err
    assert (
        "--generate DUMP takes the rules table alone"
        in dlq_test(table, "x.yaml", "--generate", str(BACKLOG), code=ExitCode.USAGE).err
    )
    assert "go with --generate" in dlq_test(table, "x.yaml", "--distinct", code=ExitCode.USAGE).err


# --- generate ---


def test_generate_round_trip_on_the_shipped_backlog(tmp_path: Path, dlq_test: DlqTest) -> None:
    """--generate from samples/backlog-small.dmp with rules/demo.rul: one case per dead
    letter (193; the 7 without an MQDLH left out and counted), named by MsgId; `test`
    reads it back and every case passes; a changed table fails the cases it changes."""
    out = tmp_path / "backlog.cases.yaml"
    argv = [str(DEMO), "--generate", str(BACKLOG), "--output", str(out)]
    err = dlq_test(*argv, code=ExitCode.OK).err
    assert "193 cases from 200 messages" in err
    assert "7 left out (7 no MQDLH)" in err
    data = yaml.safe_load(out.read_text())
    ids = set()
    for raw in read_dump(BACKLOG):
        try:
            decode_dead_letter(raw.md, raw.body, raw.properties)
        except MalformedMessageError:
            continue
        ids.add(raw.md.msg_id.hex())
    assert {case["name"] for case in data["tests"]} == ids
    assert (tmp_path / data["rules"]).resolve() == DEMO.resolve()

    assert dlq_test(str(out), "--coverage", code=ExitCode.OK).out.endswith("193 passed, 0 failed\n")

    changed = tmp_path / "changed.rul"
    changed.write_text(DEMO.read_text().replace("FWDQ(DLQ.SECURITY)", "FWDQ(DLQ.AUDIT)"))
    lines = dlq_test(str(changed), str(out), code=ExitCode.FAILURE).out.splitlines()
    security = sum(1 for c in data["tests"] if c["expect"].get("fwdq") == "DLQ.SECURITY")
    assert security > 0
    assert lines[-1] == f"{193 - security} passed, {security} failed"
    assert all(
        "expected FWD DLQ.SECURITY" in line and "got FWD DLQ.AUDIT" in line for line in lines[:-1]
    )


def test_generate_distinct_keeps_one_case_per_decision_path(
    tmp_path: Path, dlq_test: DlqTest
) -> None:
    """--distinct: one case per distinct path (the matching rules, the deciding rule, the
    target), each with how many messages took it; together they cover the same rules."""
    every, distinct = tmp_path / "every.yaml", tmp_path / "distinct.yaml"
    dlq_test(str(DEMO), "--generate", str(BACKLOG), "--output", str(every), code=ExitCode.OK)
    generate = [str(DEMO), "--generate", str(BACKLOG), "--output", str(distinct)]
    dlq_test(*generate, "--distinct", code=ExitCode.OK)
    text = distinct.read_text()
    cases = yaml.safe_load(text)["tests"]
    assert 1 < len(cases) < 193
    counts = [
        int(line.split()[1]) for line in text.splitlines() if "took this decision path" in line
    ]
    assert sum(counts) == 193
    assert len(counts) == len(cases)
    d = json.loads(dlq_test(str(distinct), "--format", "json", "--coverage", code=ExitCode.OK).out)
    e = json.loads(dlq_test(str(every), "--format", "json", "--coverage", code=ExitCode.OK).out)
    assert d["coverage"][0]["unreached"] == e["coverage"][0]["unreached"]


def test_generate_refuses_to_overwrite_its_inputs(tmp_path: Path, dlq_test: DlqTest) -> None:
    """--output naming the table or the dump is refused (exit 2): nothing is lost."""
    table = tmp_path / "t.rul"
    table.write_text(DEMO.read_text())
    before = table.read_bytes()
    argv = [str(table), "--generate", str(BACKLOG), "--output", str(table)]
    assert "is the rules table: it would be overwritten" in dlq_test(*argv, code=ExitCode.USAGE).err
    assert table.read_bytes() == before


def test_generate_from_a_broken_dump_exits_2(tmp_path: Path, dlq_test: DlqTest) -> None:
    """A dump that is not a dmpmqmsg file: exit 2 naming the file and line; no output
    file is written."""
    dump = tmp_path / "bad.dmp"
    dump.write_text("this is not a dump\n")
    out = tmp_path / "out.yaml"
    argv = [str(DEMO), "--generate", str(dump), "--output", str(out)]
    assert str(dump) in dlq_test(*argv, code=ExitCode.USAGE).err
    assert not out.exists()


def test_generated_cases_agree_with_what_run_does(qm, run_cli: RunCli, tmp_path: Path) -> None:
    """The snapshot --generate writes is what `dlqhandler run` then does: the backlog
    loaded on the embedded queue manager and handled with rules/demo.rul, each dead
    letter ends where its generated case says (RETRY: its DESTQ; FWD: fwdq; DISCARD:
    gone), the 7 without an MQDLH stay on the DLQ."""
    out = tmp_path / "snap.yaml"
    assert main(["test", str(DEMO), "--generate", str(BACKLOG), "--output", str(out)]) == 0
    cases = {c["name"]: c for c in yaml.safe_load(out.read_text())["tests"]}
    load(qm, read_dump(BACKLOG))
    book = Ledger.of(qm)
    where: dict[bytes, str] = {}
    discard: set[bytes] = set()
    for key in book.original:
        case = cases.get(key.hex())
        if case is None:
            where[key] = DLQ
            continue
        e, m = case["expect"], case["message"]
        if e["action"] == "DISCARD":
            discard.add(key)
        elif e["action"] == "RETRY":
            qmgr = m.get("DESTQM", "")
            where[key] = m["DESTQ"] if qmgr in ("", "QM1") else f"{m['DESTQ']}@{qmgr}"
        else:
            qmgr = e.get("fwdqm", "")
            where[key] = e["fwdq"] if qmgr in ("", "QM1") else f"{e['fwdq']}@{qmgr}"
    assert len(discard) == 6
    assert sum(q == DLQ for q in where.values()) == 7
    define(qm, *sorted({q for q in where.values() if q != DLQ and "@" not in q}))

    run = run_cli(DEMO.read_text())

    assert run.rc == 0, run.err
    book.check(sorted({q for q in where.values() if q != DLQ}), discarded=discard)
    wrong = {
        k.hex(): (book.where(m), where[k])
        for k, m in book.original.items()
        if k not in discard and book.where(m) != where[k]
    }
    assert not wrong


def test_as_a_process_no_traceback_on_bad_yaml(tmp_path: Path) -> None:
    """`dlqhandler test` as its own process: a case file that is not YAML exits 2 with
    the position on stderr and no traceback; the shipped cases pass (exit 0)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("tests:\n  - name: [\n")
    cli = [sys.executable, "-m", "dlqhandler"]
    done = subprocess.run(
        [*cli, "test", str(DEMO), str(bad)], capture_output=True, text=True, check=False
    )
    assert done.returncode == ExitCode.USAGE
    assert f"{bad}:3:1: error[C102]: not YAML" in done.stderr
    assert "Traceback" not in done.stderr
    good = subprocess.run(
        [*cli, "test", str(ROOT / "rules" / "demo.cases.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert good.returncode == ExitCode.OK, good.stderr
    assert good.stdout.endswith(" passed, 0 failed\n")


def test_json_format_reports_invalid_input_too(write: Write, dlq_test: DlqTest) -> None:
    """--format json: a bad case file gives its errors (path, line, column, code,
    message, hint) with exit 2; a table that does not compile gives an error, exit 3."""
    bad = write("bad.yaml", "rules: table.rul\ntests:\n  - name: a\n    expect: {action: RETRI}\n")
    out = json.loads(dlq_test(bad, "--format", "json", code=ExitCode.USAGE).out)
    (error,) = out["errors"]
    assert (error["line"], error["column"], error["code"]) == (4, 22, "C304")
    assert error["hint"] == "did you mean RETRY?"
    write("table.rul", "ACTION(FWD)\n")
    cases = write("cases.yaml", CASES)
    assert (
        "does not compile"
        in json.loads(dlq_test(cases, "--format", "json", code=ExitCode.RULES_ERROR).out)["error"]
    )


def test_junit_never_overwrites_an_input(write: Write, dlq_test: DlqTest) -> None:
    """--junit naming the case file (or the table) is refused, exit 2; the file is kept."""
    cases = write("cases.yaml", CASES)
    assert "it would be overwritten" in dlq_test(cases, "--junit", cases, code=ExitCode.USAGE).err
    assert Path(cases).read_text() == CASES


def test_a_rule_line_inside_a_continued_rule_names_its_first_line(
    write: Write, dlq_test: DlqTest
) -> None:
    """``rule:`` is the line a rule starts on: a line inside a rule continued with ``+``
    is C401, whose hint names the line the rule starts on; a line before any rule names
    the nearest."""
    write("m.rul", "* comment\nREASON(MQRC_Q_FULL) +\n  ACTION(RETRY)\n\nACTION(DISCARD)\n")
    cases = write(
        "m.yaml",
        "rules: m.rul\ntests:\n  - name: a\n    message: {REASON: MQRC_Q_FULL}\n"
        "    expect: {action: RETRY, rule: 3}\n"
        "  - name: b\n    expect: {action: DISCARD, rule: 1}\n",
    )
    err = dlq_test(cases, code=ExitCode.USAGE).err
    assert "hint: line 3 is inside the rule that starts on line 2 (continued with +): " in err
    assert "hint: the nearest rules start on line 2 (dlqhandler lint --explain" in err
