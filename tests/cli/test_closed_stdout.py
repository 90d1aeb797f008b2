"""A closed standard output (``dlqhandler audit | head -1``, ``check | true``): every
command ends quietly, as a Unix tool does, in one place (``dlqhandler.cli.main``).

Each command runs as a process of its own whose standard output is a pipe with no reader
(the read end closed before it starts, so its first write fails, with no race): exit 141
(``BROKEN_PIPE``, 128 + SIGPIPE, what a shell shows for a tool killed by SIGPIPE), no
traceback and no "Broken pipe" on stderr (issue 33: each printed a BrokenPipeError
traceback and exited 1); a destructive unload to the closed pipe loses no message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.qmgr import connect

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _closed(*argv: str) -> subprocess.CompletedProcess[str]:
    """``dlqhandler ARGV`` with standard output a pipe whose reader is gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "dlqhandler", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write)


@pytest.fixture
def loaded(home: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """QM1 with the sample backlog on its DLQ and audit records of a one-off discard;
    the DLQ's depth."""
    assert main(["qm", "dmpmqmsg", "-m", "QM1", "-o", DLQ, "-f", str(SAMPLE)]) == 0
    argv = ["run", DLQ, "QM1", "--match", "REASON(MQRC_Q_FULL)", "--action", "discard"]
    assert main([*argv, "--reason", "audit records for the test"]) == 0
    capsys.readouterr()
    with connect("QM1") as qm:
        depth = qm.inquire_queue(DLQ).curdepth
    assert 0 < depth < 200
    return depth


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "QM1"],
        ["check", "QM1", "--format", "json"],
        ["audit", "QM1"],
        ["audit", "QM1", "--format", "json"],
        ["lint", str(ROOT / "rules" / "demo.rul")],
        ["lint", "--format", "json", str(ROOT / "rules" / "demo.rul")],
        ["qm", "browse", "-m", "QM1", "-q", DLQ],
        ["qm", "list"],
        ["decode", str(SAMPLE)],
        ["qm", "dmpmqmsg", "-m", "QM1", "-i", DLQ, "-f", "-"],
        ["qm", "dmpmqmsg", "-m", "QM1", "-I", DLQ, "-f", "-"],
        ["samples", "generate", "--count", "50", "--output", "-"],
    ],
    ids=" ".join,
)
def test_a_closed_stdout_ends_every_command_quietly(loaded: int, argv: list[str]) -> None:
    """Exit 141 (BROKEN_PIPE), nothing but the command's own stderr lines (no traceback,
    no "Broken pipe" error); the DLQ keeps every message (a destructive unload's unit of
    work is backed out, never committed without its file)."""
    done = _closed(*argv)
    assert done.returncode == ExitCode.BROKEN_PIPE == 141, done.stderr
    assert "Traceback" not in done.stderr
    assert "Broken pipe" not in done.stderr
    assert "Exception ignored" not in done.stderr
    with connect("QM1") as qm:
        assert qm.inquire_queue(DLQ).curdepth == loaded


def test_help_to_a_closed_stdout_is_quiet(home: Path) -> None:
    """--help and --version to a closed pipe: argparse drops the text; exit 0, quiet."""
    for argv in (["--help"], ["--version"], ["qm", "put", "--help"]):
        done = _closed(*argv)
        assert done.returncode == 0
        assert done.stderr == ""
