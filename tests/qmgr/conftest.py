"""Shared fixtures for the queue manager tests: a private home, a fake clock, and QM1 with
the MQI stand-in on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dlqhandler.cli.run as run_module
from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from tests.mqi.build import load
from tests.worker.helpers import MQ_ENV

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


@pytest.fixture
def standin_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """QM1 under a private home, the MQI stand-in on it, a fake clock shared by both (IBM MQ
    settings cleared, no reconnect delay, logging left as pytest has it)."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    for name in (*MQ_ENV, "DLQHANDLER_QMGR", "DLQHANDLER_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DLQHANDLER_MQ_RECONNECT_DELAY", "0")
    monkeypatch.setattr(run_module, "configure_logging", lambda **_: None)
    create_qmgr(home, "QM1")
    clock = FakeClock()
    standin = load()
    standin.reset(home=home, clock=clock)
    qm = connect("QM1", home=home, user="tester", clock=clock)
    yield {"home": home, "qm": qm, "clock": clock, "standin": standin, "path": tmp_path}
    qm.disconnect()
    assert not standin.errors, standin.errors
    standin.reset()
