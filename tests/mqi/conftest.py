"""Fixtures of the MQI stand-in's tests: IBM's ``ibmmq`` package on a fresh embedded QM1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.qmgr import connect, create_qmgr
from tests.mqi.build import load
from tests.mqi.standin import StandIn


@pytest.fixture
def mq(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """(ibmmq module, a connected ibmmq.QueueManager) on a fresh QM1 with queue Q1."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    admin = connect("QM1", home=home)
    admin.admin().define_queue("Q1", {})
    admin.disconnect()
    standin: StandIn = load()  # type: ignore[assignment]
    standin.reset(home=home)
    import ibmmq

    qmgr = ibmmq.QueueManager(None)
    qmgr.connect_with_options("QM1")
    yield ibmmq, qmgr
    qmgr.disconnect()
    assert not standin.errors, standin.errors
    standin.reset()


@pytest.fixture
def home(mq: tuple[Any, Any]) -> Path:
    """The DLQHANDLER_HOME of the ``mq`` fixture's queue manager."""
    standin: StandIn = load()  # type: ignore[assignment]
    assert standin.home is not None
    return standin.home
