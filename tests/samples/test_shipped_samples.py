"""Every file in samples/ is loaded here: the shipped backlog, its generator, the demo."""

from __future__ import annotations

import io
import runpy
from datetime import datetime
from pathlib import Path

import pytest

from dlqhandler.formats.backlog import write_backlog
from dlqhandler.formats.dmpmqmsg import read_dump
from tests.formats.backlog_mix import EXPECTED_CATEGORIES, categories

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
BACKLOG = SAMPLES / "backlog-small.dmp"


def _without_created_line(data: bytes) -> bytes:
    first, rest = data.split(b"\n", 1)
    assert first.startswith(b"* DMPMQMSG Version:9.4 Created:")
    return rest


def test_shipped_backlog_regenerates_identically() -> None:
    """Seed 1, 200 messages, queue manager QM1 gives the shipped bytes (Created line aside)."""
    out = io.BytesIO()
    write_backlog(out, 200, seed=1, qmgr="QM1", created=datetime(2030, 1, 1))
    assert _without_created_line(out.getvalue()) == _without_created_line(BACKLOG.read_bytes())


def test_shipped_backlog_reads_back_with_the_full_mix() -> None:
    """The shipped dump holds 200 messages covering every category the generator promises."""
    messages = list(read_dump(BACKLOG))
    assert len(messages) == 200
    assert len({m.md.msg_id for m in messages}) == 200
    seen = categories(messages)
    assert EXPECTED_CATEGORIES - set(seen) == set()
    assert 4 <= seen["no dlh"] <= 20


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.dmp")), ids=lambda p: p.name)
def test_every_shipped_dump_reads(path: Path) -> None:
    """Each .dmp in samples/ is a valid dmpmqmsg file with at least one message."""
    assert sum(1 for _ in read_dump(path)) > 0


def test_generate_script_writes_the_same_file(tmp_path: Path) -> None:
    """samples/generate.py (the thin CLI wrapper) reproduces the shipped file exactly."""
    module = runpy.run_path(str(SAMPLES / "generate.py"))
    target = tmp_path / "again.dmp"
    code = module["main"](
        [
            "--count",
            "200",
            "--seed",
            "1",
            "--output",
            str(target),
            "--created",
            "2024-11-21T08:00:00",
        ]
    )
    assert code == 0
    assert target.read_bytes() == BACKLOG.read_bytes()
