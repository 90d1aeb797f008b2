"""The contract suite's view of a queue manager adapter.

Every test here talks to the ``QueueManager`` port only, plus :class:`Adapter`:
a connection factory, an MQSC runner for administration (queues, authority
records), an optional fake clock (adapters that cannot fake time skip the
expiry tests) and the command line a child process uses to connect to the
same queue manager.

Two adapters: the embedded queue manager, and IBM MQ
(:mod:`dlqhandler.qmgr.ibmmq.adapter`) on IBM's ``ibmmq`` package. By default the
IBM MQ runs go through the MQI stand-in (:mod:`tests.mqi`): IBM's compiled
extension calls a ``libmqm_r.so`` whose MQI is carried out on a fresh embedded
queue manager, so every case runs; a test's user is the MQCSP user id, and the
stand-in's connections share the fake clock.

When ``DLQHANDLER_IBMMQ_QMGR`` names a real queue manager, the IBM MQ runs go there
instead: the connection comes from the usual variables (``MQSERVER`` or
``DLQHANDLER_MQ_CONN_NAME``/``_CHANNEL``, ``DLQHANDLER_MQ_USER``/``_PASSWORD``...,
see :mod:`dlqhandler.qmgr.ibmmq.config`) and administration goes through
``runmqsc`` (``runmqsc -c`` for client connections; ``DLQHANDLER_IBMMQ_RUNMQSC``
overrides the command). Against a real queue manager, tests that switch users or
move time are skipped (the adapter connects as its one configured user; a real
queue manager's clock cannot be faked).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
    checks: list[Callable[[], list[str]]] = field(default_factory=list)
    # How long a consuming child waits for the next message before it stops: it must
    # outlast the parent putting a batch in one unit of work (slower through IBM's library).
    consume_wait_ms: int = 1500

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
        self.mqsc(
            f"ALTER QLOCAL({name}) " + " ".join(f"{k.upper()}({v})" for k, v in attrs.items())
        )

    def set_authrec(
        self,
        queue: str,
        principal: str,
        *,
        add: Iterable[str] = (),
        remove: Iterable[str] = (),
        objtype: str = "QUEUE",
    ) -> None:
        text = f"SET AUTHREC PROFILE({queue}) OBJTYPE({objtype}) PRINCIPAL('{principal}')"
        if add:
            text += f" AUTHADD({','.join(add)})"
        if remove:
            text += f" AUTHRMV({','.join(remove)})"
        self.mqsc(text)

    def child(self, *args: str) -> subprocess.Popen[str]:
        """Start ``tests/qmgr/contract/_child.py`` connected to this queue manager."""
        return subprocess.Popen(
            [*self.child_command, *args],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **self.child_env},
        )

    def close_all(self) -> None:
        """Disconnect everything; fail on any problem a check reports (stand-in errors)."""
        for conn in self._open:
            conn.disconnect()
        problems = [p for check in self.checks for p in check()]
        assert not problems, "\n".join(problems)


def _embedded_mqsc(home: Path, clock: FakeClock) -> tuple[QueueManager, Callable[[str], None]]:
    """A new embedded QM1 under ``home``: its admin connection and MQSC runner."""
    create_qmgr(home, "QM1")
    admin_conn = connect("QM1", home=home, clock=clock)

    def mqsc(text: str) -> None:
        out = io.StringIO()
        result = run_mqsc(text, admin_conn.admin(), out, qmgr_name="QM1")
        assert result.ok, out.getvalue()

    return admin_conn, mqsc


def _embedded(home: Path, clock: FakeClock) -> Adapter:
    admin_conn, mqsc = _embedded_mqsc(home, clock)
    adapter = Adapter(
        name="embedded",
        qmgr_name="QM1",
        _connect=lambda user: connect(
            "QM1", home=home, clock=clock, user=user, appl_name="contract-tests"
        ),
        mqsc=mqsc,
        clock=clock,
        child_command=[
            sys.executable,
            "-m",
            "tests.qmgr.contract._child",
            "--adapter",
            "embedded",
            "--home",
            str(home),
            "--qmgr",
            "QM1",
        ],
        child_env={"DLQHANDLER_HOME": str(home)},
    )
    adapter._open.append(admin_conn)
    return adapter


_DEFINE_QLOCAL = re.compile(r"\bDEFINE\s+QLOCAL\s*\(\s*'?([^)'\s]+)'?\s*\)", re.IGNORECASE)


def _standin(home: Path, clock: FakeClock) -> Adapter:
    """The IBM MQ adapter through IBM's ibmmq package on the MQI stand-in."""
    from dlqhandler.qmgr.ibmmq.adapter import connect as connect_ibmmq
    from dlqhandler.qmgr.ibmmq.config import IBMMQSettings
    from tests.mqi.build import child_env, load

    standin = load()
    admin_conn, mqsc = _embedded_mqsc(home, clock)
    standin.reset(home=home, clock=clock)

    def connect_as(user: str | None) -> QueueManager:
        settings = IBMMQSettings(
            qmgr="QM1", user=user, password="" if user else None, reconnect_attempts=0
        )
        return connect_ibmmq(settings=settings)

    adapter = Adapter(
        name="ibmmq",
        qmgr_name="QM1",
        _connect=connect_as,
        mqsc=mqsc,
        clock=clock,
        child_command=[
            sys.executable,
            "-m",
            "tests.qmgr.contract._child",
            "--adapter",
            "ibmmq",
            "--home",
            "-",
            "--qmgr",
            "QM1",
        ],
        child_env={**child_env(), "DLQHANDLER_HOME": str(home)},
        consume_wait_ms=6000,
    )
    adapter._open.append(admin_conn)
    adapter.checks.append(lambda: standin.errors)
    return adapter


def _ibmmq(home: Path, clock: FakeClock) -> Adapter:
    """The IBM MQ adapter on the queue manager the environment names, else on the stand-in."""
    from dlqhandler.qmgr.ibmmq.adapter import connect as connect_ibmmq
    from dlqhandler.qmgr.ibmmq.config import ibmmq_settings_from_env, plan_connection

    name = os.environ.get("DLQHANDLER_IBMMQ_QMGR", "").strip()
    if not name:
        return _standin(home, clock)
    settings = ibmmq_settings_from_env(name)
    client = plan_connection(settings).binding == "client"
    command = shlex.split(
        os.environ.get("DLQHANDLER_IBMMQ_RUNMQSC") or f"runmqsc {'-c ' if client else ''}{name}"
    )
    if shutil.which(command[0]) is None:
        pytest.skip(f"ibmmq: {command[0]} is not on PATH (set DLQHANDLER_IBMMQ_RUNMQSC)")

    def mqsc(text: str) -> None:
        # DEFINE ... REPLACE keeps a queue's messages on IBM MQ: clear them, as a fresh
        # embedded queue manager would have none.
        extra = [f"CLEAR QLOCAL({q})" for q in _DEFINE_QLOCAL.findall(text)]
        script = "\n".join([text, *extra]) + "\n"
        done = subprocess.run(
            command, input=script, text=True, capture_output=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def connect_as(user: str | None) -> QueueManager:
        if user is not None:
            pytest.skip("ibmmq: the adapter connects as its configured user only")
        return connect_ibmmq(settings=settings)

    return Adapter(
        name="ibmmq",
        qmgr_name=name,
        _connect=connect_as,
        mqsc=mqsc,
        clock=None,
        child_command=[
            sys.executable,
            "-m",
            "tests.qmgr.contract._child",
            "--adapter",
            "ibmmq",
            "--home",
            "-",
            "--qmgr",
            name,
        ],
        child_env={},
    )


@pytest.fixture(params=["embedded", "ibmmq"])
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Adapter]:
    """Each queue manager implementation the contract runs against."""
    home, clock = tmp_path / "home", FakeClock()
    made = _ibmmq(home, clock) if request.param == "ibmmq" else _embedded(home, clock)
    yield made
    made.close_all()


@pytest.fixture
def fake_clock(adapter: Adapter) -> FakeClock:
    """The adapter's clock; tests that move time skip adapters without one."""
    if adapter.clock is None:
        pytest.skip(f"{adapter.name} cannot fake time")
    return adapter.clock


@contextmanager
def killed_when_done(child: subprocess.Popen[str]) -> Iterator[None]:
    """Wait for a child process's READY line, run the block, then SIGKILL the child
    whatever happened (the crash the block prepared)."""
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
        yield
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate(timeout=30)


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
