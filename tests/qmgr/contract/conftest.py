"""The contract suite's view of a queue manager adapter.

Every test here talks to the ``QueueManager`` port only, plus :class:`Adapter`:
a connection factory, an MQSC runner for administration (queues, authority
records), an optional fake clock (adapters that cannot fake time skip the
expiry tests) and the command line a child process uses to connect to the
same queue manager. The embedded queue manager is the one adapter today; an
IBM MQ adapter adds a parameter to :func:`adapter`.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, Queue, QueueManager, connect, create_qmgr, run_mqsc
from tests.qmgr.conftest import FakeClock

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Adapter:
    """A queue manager under test and how to administer and reach it."""

    name: str
    qmgr_name: str
    _connect: Callable[[str | None], QueueManager]
    mqsc: Callable[[str], None]
    clock: FakeClock | None
    child_command: list[str]
    child_env: dict[str, str]
    _open: list[QueueManager] = field(default_factory=list)

    def connect(self, user: str | None = None) -> QueueManager:
        """A new connection (MQCONN), disconnected at the end of the test."""
        conn = self._connect(user)
        self._open.append(conn)
        return conn

    def define_queue(self, name: str, **attrs: object) -> str:
        """DEFINE QLOCAL(name) with MQSC attributes given as keywords."""
        parts = [f"DEFINE QLOCAL({name}) REPLACE"]
        for key, value in attrs.items():
            if value is True:
                parts.append(key.upper())
            elif isinstance(value, str):
                parts.append(f"{key.upper()}('{value}')")
            else:
                parts.append(f"{key.upper()}({value})")
        self.mqsc(" ".join(parts))
        return name

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.mqsc(f"ALTER QLOCAL({name}) "
                  + " ".join(f"{k.upper()}({v})" for k, v in attrs.items()))

    def set_authrec(self, queue: str, principal: str, *, add: Iterable[str] = (),
                    remove: Iterable[str] = ()) -> None:
        text = f"SET AUTHREC PROFILE({queue}) OBJTYPE(QUEUE) PRINCIPAL('{principal}')"
        if add:
            text += f" AUTHADD({','.join(add)})"
        if remove:
            text += f" AUTHRMV({','.join(remove)})"
        self.mqsc(text)

    def child(self, *args: str) -> subprocess.Popen[str]:
        """Start ``tests/qmgr/contract/_child.py`` connected to this queue manager."""
        return subprocess.Popen([*self.child_command, *args], cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, **self.child_env})

    def close_all(self) -> None:
        for conn in self._open:
            conn.disconnect()


def _embedded(home: Path, clock: FakeClock) -> Adapter:
    create_qmgr(home, "QM1")
    admin_conn = connect("QM1", home=home, clock=clock)

    def mqsc(text: str) -> None:
        out = io.StringIO()
        result = run_mqsc(text, admin_conn.admin(), out, qmgr_name="QM1")
        assert result.ok, out.getvalue()

    adapter = Adapter(
        name="embedded", qmgr_name="QM1",
        _connect=lambda user: connect("QM1", home=home, clock=clock, user=user,
                                      appl_name="contract-tests"),
        mqsc=mqsc, clock=clock,
        child_command=[sys.executable, "-m", "tests.qmgr.contract._child", "--adapter",
                       "embedded", "--home", str(home), "--qmgr", "QM1"],
        child_env={"DLQHANDLER_HOME": str(home)})
    adapter._open.append(admin_conn)
    return adapter


@pytest.fixture(params=["embedded"])
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Adapter]:
    """Each queue manager implementation the contract runs against."""
    made = _embedded(tmp_path / "home", FakeClock())
    yield made
    made.close_all()


@pytest.fixture
def fake_clock(adapter: Adapter) -> FakeClock:
    """The adapter's clock; tests that move time skip adapters without one."""
    if adapter.clock is None:
        pytest.skip(f"{adapter.name} cannot fake time")
    return adapter.clock


def collect(q: Queue, first: GetOptions, then: GetOptions | None = None) -> list[Message]:
    """Get (or browse) until MQRC_NO_MSG_AVAILABLE; ``then`` for the calls after the first."""
    out: list[Message] = []
    options = first
    while True:
        try:
            out.append(q.get(options))
        except MQIError as exc:
            if exc.reason != 2033:
                raise
            return out
        options = then or first


def text(body: str, **md: object) -> Message:
    """A message with text data and the given MQMD fields."""
    return Message(MQMD(format="MQSTR", **md), body.encode())  # type: ignore[arg-type]
