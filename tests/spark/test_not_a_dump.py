"""A file with a dmpmqmsg header followed by binary garbage: ``report`` and ``drain`` say
so in one line naming the file and line, exit 2, and write nothing (issue 33: the report
printed 74 lines of Py4J and Java trace while the drain gave one line)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "demo.rul"


@pytest.mark.parametrize("command", ["report", "drain"])
def test_binary_garbage_after_a_header_is_one_line_and_exit_2(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """The error is the data source's own, one line: ``<file>:3: expected a message ('A'
    or 'N' line), found ...`` after the command's name; no traceback, no Java stack
    frame, exit 2 (an input that is not valid), and no output directory is left."""
    garbage = random.Random(33).randbytes(3000).replace(b"\n", b"")
    path = tmp_path / "garbage.dmp"
    path.write_bytes(b"* DMPMQMSG Version:9.4 Created:Thu Nov 21 10:15:34 2024\n\n\x00" + garbage)
    out = tmp_path / "out"
    argv = [command, "--rules", str(RULES), "--input", str(path), "--output", str(out)]
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith('{"event"')]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"dlqhandler {command}: file://{path}:3: "), err
    assert "Traceback" not in err
    assert "\tat " not in err
    assert not (out / "manifest.json").exists()
    assert not (out / "report.json").exists()
