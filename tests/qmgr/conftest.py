"""Shared fixtures for the queue manager tests: a private home and a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr

START = 1_732_000_000.0  # a fixed "now" (2024-11-19) so PutDate/PutTime are predictable


class FakeClock:
    """An injectable clock (seconds since the epoch) that moves only when told."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private $DLQHANDLER_HOME for one test."""
    path = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(path))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    return path


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def qm(home: Path, clock: FakeClock) -> Iterator[EmbeddedQueueManager]:
    """A connection to a fresh embedded queue manager QM1 with the fake clock."""
    create_qmgr(home, "QM1")
    conn = connect("QM1", home=home, clock=clock)
    yield conn
    conn.disconnect()
