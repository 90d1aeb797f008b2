"""``dlqhandler lint``: report format, exit codes, stdin, --explain."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import main
from tests.cli.helpers import ROOT, Write

GOOD = "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\nACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"
BAD = "REASON(2053) RETRIES(3) ACTION(RETRY)\nACTION(FWD)\n"
WARN = "REASON(2053)ACTION(DISCARD)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n"


Out = pytest.CaptureFixture[str]


def test_clean_file_exits_zero(write: Write, capsys: Out) -> None:
    """A clean table prints only the summary and exits 0."""
    path = write("good.rul", GOOD)
    assert main(["lint", path]) == 0
    assert capsys.readouterr().out == "0 errors, 0 warnings in 1 files\n"


def test_errors_are_rendered_with_source_caret_and_hint(write: Write, capsys: Out) -> None:
    """Each diagnostic: PATH:LINE:COL: severity[CODE]: message, the line, a caret, the hint."""
    path = write("bad.rul", BAD)
    assert main(["lint", path]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}:1:14: error[E101]: unknown keyword RETRIES"
    assert out[1] == "  REASON(2053) RETRIES(3) ACTION(RETRY)"
    assert out[2] == "               ^~~~~~~~~~"
    assert out[3] == "  hint: did you mean RETRY?"
    assert out[4] == f"{path}:2:1: error[E401]: ACTION(FWD) needs FWDQ"
    assert out[-1] == "2 errors, 0 warnings in 1 files"


def test_warnings_pass_unless_strict(write: Write, capsys: Out) -> None:
    """Warnings alone exit 0; --strict turns them into a failure."""
    path = write("warn.rul", WARN)
    assert main(["lint", path]) == 0
    assert "warning[W101]" in capsys.readouterr().out
    assert main(["lint", "--strict", path]) == 1


def test_require_catch_all_makes_w505_an_error(write: Write, capsys: Out) -> None:
    """--require-catch-all reports the missing catch-all as an error."""
    path = write("nocatch.rul", "REASON(2053) ACTION(RETRY)\n")
    assert main(["lint", path]) == 0
    assert main(["lint", "--require-catch-all", path]) == 1
    assert "error[W505]" in capsys.readouterr().out


def test_json_format(write: Write, capsys: Out) -> None:
    """--format json: files with path, rule count (null when invalid) and diagnostics."""
    good, bad = write("good.rul", GOOD), write("bad.rul", BAD)
    assert main(["lint", "--format", "json", good, bad]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["files"][0] == {"path": good, "rules": 2, "diagnostics": []}
    second = data["files"][1]
    assert second["rules"] is None
    assert second["diagnostics"][0] == {
        "line": 1,
        "column": 14,
        "severity": "error",
        "code": "E101",
        "message": "unknown keyword RETRIES",
    }


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: Out) -> None:
    """'-' reads the table from stdin, as runmqdlq does."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("ACTION(FWD)\n"))
    assert main(["lint", "-"]) == 1
    assert capsys.readouterr().out.startswith("<stdin>:1:1: error[E401]")


def test_unreadable_file_exits_two(write: Write, capsys: Out) -> None:
    """A missing file is a usage error (2); the other files are still checked, a Latin-1
    comment byte included (a warning at its line and column, as run reports it)."""
    good = write("good.rul", GOOD)
    latin = Path(write("latin.rul", "")).with_name("latin1.rul")
    latin.write_bytes(b"* caf\xe9\nACTION(DISCARD)\n")
    assert main(["lint", good, "/no/such/file.rul", str(latin)]) == 2
    captured = capsys.readouterr()
    assert "cannot read /no/such/file.rul" in captured.err
    assert f"{latin}:1:6: warning[W105]: byte 0xE9 is not UTF-8" in captured.out
    assert captured.out.endswith("0 errors, 2 warnings in 2 files\n")  # W105, W505


def test_usage_error_exits_two(capsys: Out) -> None:
    """No file at all is an argparse usage error."""
    with pytest.raises(SystemExit) as info:
        main(["lint"])
    assert info.value.code == 2


def test_input_queue_and_triggered_options(write: Write, capsys: Out) -> None:
    """--input-queue finds forwarding loops; --triggered flags leftover messages."""
    path = write("loop.rul", "REASON(1) ACTION(IGNORE)\nACTION(FWD) FWDQ(MY.DLQ)\n")
    assert main(["lint", "--strict", path]) == 0
    assert main(["lint", "--strict", "--input-queue", "MY.DLQ", "--triggered", path]) == 1
    out = capsys.readouterr().out
    assert "warning[W504]" in out
    assert "warning[W507]" in out


def test_explain(write: Write, capsys: Out) -> None:
    """--explain prints every rule with its pattern, action and reachability."""
    path = write(
        "x.rul",
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(FULL.Q)\n"
        "ACTION(IGNORE)\n"
        "ACTION(FWD) FWDQ(DLQ.CATCHALL)\n",
    )
    assert main(["lint", "--explain", path]) == 0
    out = capsys.readouterr().out
    assert "line 1: REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)" in out
    assert "pattern: REASON(2053 MQRC_Q_FULL)" in out
    assert "action:  RETRY to MQDLH.DestQName at MQDLH.DestQMgrName, RETRY(5)" in out
    assert "reached: only after at least 5 failed attempt(s) of the rule(s) at line 1" in out
    assert "reached: never - the rule at line 3 (ACTION(IGNORE))" in out
    assert "warning[W501]" in out
    assert main(["lint", "--explain", "--format", "json", path]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"][0]["ruleset"]["rules"][1]["action"]["fwdq"] == "FULL.Q"


def test_shipped_tables_via_the_installed_command() -> None:
    """The console script lints every shipped table without errors (subprocess)."""
    exe = Path(sys.executable).with_name("dlqhandler")
    tables = sorted(str(p) for p in (ROOT / "rules").glob("*.rul"))
    proc = subprocess.run(
        [str(exe), "lint", *tables],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == f"0 errors, 2 warnings in {len(tables)} files"


_TABLE = (
    "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\n"
    "ACTION(FWD) FWDQ(DLQ.CATCHALL)\n"
)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            _TABLE.encode("utf-16"),  # Python writes the byte-order mark (FF FE here)
            "error[E110]: the table is UTF-16 (little-endian; byte-order mark FF FE)",
        ),
        (
            _TABLE.encode("utf-16-be"),
            "error[E110]: the table is UTF-16 (big-endian; ",
        ),
        (
            _TABLE.encode("utf-16-le"),
            "error[E110]: the table is UTF-16 (little-endian; ",
        ),
        (
            _TABLE.encode("utf-32"),
            "error[E110]: the table is UTF-32 (little-endian; byte-order mark FF FE 00 00)",
        ),
        (
            _TABLE.replace("\n", "\r").encode(),
            "1:33: error[E111]: the table's lines end with a CR alone (CR-only line ends",
        ),
    ],
    ids=["utf-16-bom", "utf-16-be", "utf-16-le", "utf-32", "cr-only"],
)
def test_a_table_in_utf16_or_with_cr_only_lines_is_one_error_that_names_it(
    tmp_path: Path,
    capsys: Out,
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    words: str,
) -> None:
    """A UTF-16 or UTF-32 table (a byte-order mark, or the NUL bytes of ASCII text in it),
    or one whose lines end with a CR alone: lint and run give ONE error naming the
    encoding or the line ends, and the conversion (issue 33: twenty errors and an
    ISO-8859-1 hint, CR-only lines not named); run exits 3 and processes nothing."""
    path = tmp_path / "t.rul"
    path.write_bytes(data)
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert words in out
    assert out.count("error[") == 1
    assert "1 errors, 0 warnings in 1 files" in out
    assert "iconv -f UTF" in out if "E110" in words else "tr '\\r' '\\n'" in out
    assert "ISO-8859-1" not in out
    monkeypatch.setenv("DLQHANDLER_HOME", str(tmp_path / "home"))
    assert main(["qm", "create", "QM1"]) == 0
    capsys.readouterr()
    assert main(["run", "SYSTEM.DEAD.LETTER.QUEUE", "QM1", "--rules", str(path)]) == 3
    err = capsys.readouterr().err
    assert words.split("error", 1)[1] in err
    assert err.count("error[") == 1


def test_a_stray_cr_in_a_table_of_lf_lines_is_named_once_per_line(
    tmp_path: Path, capsys: Out
) -> None:
    """One CR inside a line of an LF table: E112 at its line and column (not the lexer's
    "must be quoted"); a CR in a comment line is left alone, as runmqdlq ignores
    comments; a CR that ends the last line is its line end."""
    path = tmp_path / "t.rul"
    path.write_bytes(
        b"INPUTQ(Q)\nREASON(MQRC_Q_FULL)\r ACTION(IGNORE)\n* note\r more\n"
        b"ACTION(FWD) FWDQ(DLQ.CATCHALL)\r"
    )
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "t.rul:2:20: error[E112]: a CR not followed by LF inside this line" in out
    assert out.count("error[") == 1
    assert "must be quoted" not in out
