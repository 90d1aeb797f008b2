"""`dlqhandler lint FILE` and `dlqhandler run --rules FILE` read and check a table the same
way: the same diagnostics (code, line, column) for the same bytes, the same verdict."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from tests.worker.helpers import DLQ, dead_letter, define, depth, load

_DIAG = re.compile(r"^\S+:(\d+):(\d+): (?:error|warning)\[(\w+)\]", re.MULTILINE)


def _found(text: str) -> set[tuple[str, int, int]]:
    return {(code, int(line), int(col)) for line, col, code in _DIAG.findall(text)}


def _lint_and_run(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, set[tuple[str, int, int]], int, set[tuple[str, int, int]]]:
    capsys.readouterr()
    lint_rc = main(["lint", str(path)])
    lint_out = capsys.readouterr().out
    run_rc = main(["run", "--rules", str(path), "--no-watch", "--log-format", "json"])
    run_err = capsys.readouterr().err
    return lint_rc, _found(lint_out), run_rc, _found(run_err)


def test_latin1_comment_byte_is_the_same_warning_in_lint_and_run(
    qm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`* caf\\xe9` (a Latin-1 comment from AIX or Windows): lint no longer fails without a
    position; both report W105 at 1:6 and accept the table; run then processes."""
    define(qm, "CATCH")
    load(qm, [dead_letter("x")])
    rules = tmp_path / "latin1.rul"
    rules.write_bytes(b"* caf\xe9 au lait\nWAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n")
    lint_rc, linted, run_rc, ran = _lint_and_run(rules, capsys)
    assert ("W105", 1, 6) in linted
    assert linted == ran
    assert (lint_rc, run_rc) == (ExitCode.OK, ExitCode.OK)
    assert (depth(qm, DLQ), depth(qm, "CATCH")) == (0, 1)


def test_undecodable_byte_in_a_value_is_the_same_error_in_lint_and_run(
    qm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Latin-1 byte inside a value is E109 at its line:column for both; lint exits 1,
    run exits 3 and touches nothing."""
    load(qm, [dead_letter("stays")])
    rules = tmp_path / "bad.rul"
    rules.write_bytes(b"WAIT(NO)\nUSERID('caf\xe9') ACTION(DISCARD)\n")
    lint_rc, linted, run_rc, ran = _lint_and_run(rules, capsys)
    assert linted == ran == {("E109", 2, 12)}
    assert (lint_rc, run_rc) == (ExitCode.FAILURE, ExitCode.RULES_ERROR)
    assert depth(qm, DLQ) == 1


def test_forward_to_the_dead_letter_queue_warns_w504_in_lint_as_in_run(
    qm, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE) without INPUTQ: lint assumes the usual
    DEADQ, as run resolves it from the queue manager, so both warn W504 (a loop)."""
    rules = tmp_path / "loop.rul"
    rules.write_text("WAIT(NO)\nACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n")
    lint_rc, linted, _run_rc, ran = _lint_and_run(rules, capsys)
    assert ("W504", 2, 13) in linted
    assert linted == ran
    assert lint_rc == ExitCode.OK
