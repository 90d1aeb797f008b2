"""`dlqhandler samples generate`: seeded backlogs as dmpmqmsg files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import read_dump

BACKLOG = Path(__file__).resolve().parents[2] / "samples" / "backlog-small.dmp"


def _generate(out: Path, *options: str) -> int:
    """``dlqhandler samples generate --output OUT OPTIONS`` in-process: its exit code."""
    return main(["samples", "generate", "--output", str(out), *options])


def test_generate_writes_count_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--count/--seed/--output/--qmgr write a readable dump naming the queue manager."""
    out = tmp_path / "b.dmp"
    assert _generate(out, "--count", "25", "--seed", "9", "--qmgr", "QM2") == 0
    assert "wrote 25 messages" in capsys.readouterr().err
    assert out.read_bytes().split(b"\n")[1] == b"* Qmgr  = QM2"
    assert len(list(read_dump(out))) == 25


def test_generate_is_reproducible_with_created(tmp_path: Path) -> None:
    """With --created the output is byte-identical to the shipped sample."""
    out = tmp_path / "b.dmp"
    assert _generate(out, "--count", "200", "--seed", "1", "--created", "2024-11-21T08:00:00") == 0
    assert out.read_bytes() == BACKLOG.read_bytes()


def test_generate_refuses_negative_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative --count is a usage error."""
    assert main(["samples", "generate", "--count", "-1", "--output", str(tmp_path / "x.dmp")]) == 2
    assert "--count" in capsys.readouterr().err
