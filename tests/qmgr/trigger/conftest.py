"""Fixtures of the triggering tests: captured log events and a queue manager with a process
and an initiation queue (:class:`~tests.qmgr.trigger.support.World`)."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
import structlog

from tests.qmgr.conftest import FakeClock
from tests.qmgr.trigger.support import World


@pytest.fixture(autouse=True)
def logs() -> Iterator[list[MutableMapping[str, Any]]]:
    """Log events, captured (whatever structlog's global configuration is)."""
    with structlog.testing.capture_logs() as captured:
        yield captured


@pytest.fixture
def world(home: Path, clock: FakeClock) -> Iterator[World]:
    """QM1 with APP.PROC and INIT.Q defined (no triggered queue yet); child processes the
    test started are killed at the end."""
    made = World(home, clock)
    yield made
    made.close()
