"""`dlqhandler report` refuses bad arguments and inputs with a clear message and the
documented exit code, before any Spark work, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.cli.report import parse_as_of
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    path = tmp_path / "in.dmp"
    msg = Message.dead_letter(MQMD(format="MQSTR"), b"x", reason=2053, dest_q_name="Q")
    write_dump(path, [msg])
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["report", *argv])
    return code, capsys.readouterr().err


def test_compare_without_rules_is_a_usage_error(
    tmp_path: Path, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--compare needs --rules: exit USAGE, the message says what to add."""
    old = tmp_path / "old.rul"
    old.write_text("ACTION(IGNORE)\n")
    code, err = _run(
        capsys, "--input", str(dump), "--compare", str(old), "--output", str(tmp_path / "out")
    )
    assert code == ExitCode.USAGE
    assert "give --rules" in err
    assert not (tmp_path / "out").exists()


def test_missing_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path that does not exist: exit USAGE naming the path."""
    code, err = _run(
        capsys, "--input", str(tmp_path / "nope.dmp"), "--output", str(tmp_path / "out")
    )
    assert code == ExitCode.USAGE
    assert "nope.dmp" in err
    assert not (tmp_path / "out").exists()


def test_non_empty_output_directory_is_refused(
    tmp_path: Path, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like the drain, an output directory that holds files is not overwritten."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, err = _run(capsys, "--input", str(dump), "--output", str(out))
    assert code == ExitCode.USAGE
    assert "not empty" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("text", ["yesterday", "2024-13-01", "25/11/2024 10:00"])
def test_unparseable_as_of_is_a_usage_error(
    tmp_path: Path, dump: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--as-of must be ISO 8601; the message shows the expected form."""
    code, err = _run(
        capsys, "--input", str(dump), "--as-of", text, "--output", str(tmp_path / "out")
    )
    assert code == ExitCode.USAGE
    assert "2024-11-25T12:00:00Z" in err


def test_as_of_forms() -> None:
    """A zone is kept, no zone means UTC, a date alone is midnight UTC."""
    assert parse_as_of("2024-11-25").isoformat() == "2024-11-25T00:00:00+00:00"
    assert parse_as_of("2024-11-25T12:30:00Z").isoformat() == "2024-11-25T12:30:00+00:00"
    assert parse_as_of("2024-11-25T12:30:00+01:00").utcoffset() is not None


def test_rules_error_prints_lint_diagnostics(
    tmp_path: Path, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table that does not compile: exit RULES_ERROR with the lint-style diagnostic
    (file:line:column, the source line and a caret); the old table is checked too."""
    good = tmp_path / "good.rul"
    good.write_text("ACTION(IGNORE)\n")
    bad = tmp_path / "bad.rul"
    bad.write_text("REASON(MQRC_Q_FULL) ACTION(FORWARD)\n")
    for argv in (["--rules", str(bad)], ["--rules", str(good), "--compare", str(bad)]):
        code, err = _run(capsys, "--input", str(dump), *argv, "--output", str(tmp_path / "out"))
        assert code == ExitCode.RULES_ERROR
        assert f"{bad}:1:" in err
        assert "REASON(MQRC_Q_FULL) ACTION(FORWARD)" in err
        assert "^" in err
    assert not (tmp_path / "out").exists()


def test_unknown_queue_manager_is_a_connection_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-m naming a queue manager that does not exist: exit CONNECTION_ERROR."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    code, err = _run(capsys, "-m", "QMX", "--output", str(tmp_path / "out"))
    assert code == ExitCode.CONNECTION_ERROR
    assert "QMX" in err
    code, err = _run(capsys, "-m", "QM1", "--queue", "NO.SUCH.Q", "--output", str(tmp_path / "out"))
    assert code == ExitCode.CONNECTION_ERROR
    assert "NO.SUCH.Q" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no staging left over


def test_max_hops_needs_rules(
    tmp_path: Path, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--max-hops limits the puts of the table of --rules: without --rules it would
    change nothing, so it is a usage error (as --catch-all is), and nothing is written."""
    out = tmp_path / "out"
    code, err = _run(capsys, "--input", str(dump), "--max-hops", "3", "--output", str(out))
    assert code == ExitCode.USAGE
    assert "give --rules" in err
    assert not out.exists()


def test_catch_all_needs_rules_and_a_queue_name(
    tmp_path: Path, dump: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--catch-all says where the drain of --rules would send what stays: without --rules
    it is a usage error, and so is a name MQ would refuse; nothing is written."""
    out = str(tmp_path / "out")
    code, err = _run(capsys, "--input", str(dump), "--catch-all", "DLQ.ALL", "--output", out)
    assert code == ExitCode.USAGE
    assert "give --rules" in err
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(IGNORE)\n")
    code, err = _run(
        capsys, "--input", str(dump), "--rules", str(rules), "--catch-all", "BAD Q", "--output", out
    )
    assert code == ExitCode.USAGE
    assert "--catch-all" in err
    assert not (tmp_path / "out").exists()
