"""Shared set-up for the triggering tests: a queue manager with a triggered queue.

:class:`World` defines, through MQSC, a process ``APP.PROC``, an initiation
queue ``INIT.Q`` and a triggered application queue ``APP.Q`` (FIRST unless
told), and gives the tests the few moves they need: a trigger monitor's input
handle on the initiation queue, puts, and the trigger messages waiting there.
The ``world`` fixture (``conftest.py``) makes one per test and closes it.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
from pathlib import Path

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.mqtm import MQTM, decode_mqtm
from dlqhandler.qmgr import (
    EmbeddedQueueManager,
    GetOptions,
    PutOptions,
    Queue,
    connect,
    create_qmgr,
    run_mqsc,
)
from tests.qmgr.conftest import FakeClock
from tests.worker.helpers import browse

INITQ = "INIT.Q"
APPQ = "APP.Q"
PROCESS = "APP.PROC"
NOW = PutOptions(syncpoint=False)
IN_UOW = PutOptions(syncpoint=True)


class World:
    """A queue manager QM1 under ``home``, administered through MQSC."""

    def __init__(self, home: Path, clock: FakeClock) -> None:
        create_qmgr(home, "QM1")
        self.home = home
        self.clock = clock
        self._conns: list[EmbeddedQueueManager] = []
        self._monitors: dict[str, Queue] = {}
        self.children: list[subprocess.Popen[str]] = []  # killed by close()
        self.qm = self.connect()
        self.mqsc(
            f"DEFINE PROCESS({PROCESS}) APPLICID('/bin/app --flag') ENVRDATA('env')"
            f" USERDATA('user data')\nDEFINE QLOCAL({INITQ})"
        )

    def connect(self) -> EmbeddedQueueManager:
        """Another connection (MQCONN), disconnected by :meth:`close`."""
        conn = connect("QM1", home=self.home, clock=self.clock)
        self._conns.append(conn)
        return conn

    def close(self) -> None:
        """Kill the child processes still running, then disconnect every connection."""
        while self.children:
            kill(self.children.pop())
        for conn in self._conns:
            conn.disconnect()

    def mqsc(self, text: str) -> None:
        out = io.StringIO()
        result = run_mqsc(text, self.qm.admin(), out, qmgr_name="QM1")
        assert result.ok, out.getvalue()

    def app_queue(
        self,
        name: str = APPQ,
        *,
        trigtype: str = "FIRST",
        control: str = "TRIGGER",
        extra: str = "",
    ) -> str:
        """DEFINE QLOCAL(name) TRIGGER TRIGTYPE(...) INITQ(INIT.Q) PROCESS(APP.PROC)."""
        self.mqsc(
            f"DEFINE QLOCAL({name}) REPLACE {control} TRIGTYPE({trigtype})"
            f" INITQ({INITQ}) PROCESS({PROCESS}) TRIGDATA('data for {name}') {extra}"
        )
        return name

    def monitor(self, initq: str = INITQ) -> Queue:
        """What a trigger monitor holds: an input handle on the initiation queue."""
        handle = self.connect().open(initq, input=True, browse=False)
        self._monitors[initq] = handle
        return handle

    def put(
        self,
        queue: str = APPQ,
        *,
        priority: int = -1,
        body: bytes = b"m",
        options: PutOptions = NOW,
        conn: EmbeddedQueueManager | None = None,
    ) -> None:
        (conn or self.qm).put1(queue, Message(MQMD(priority=priority), body), options)

    def depth(self, queue: str) -> int:
        return self.qm.inquire_queue(queue).curdepth

    def attr(self, queue: str, name: str) -> str:
        return self.qm.inquire_queue(queue).attributes[name]

    def waiting(self, initq: str = INITQ) -> list[Message]:
        """The messages available on ``initq`` (browsed: they stay)."""
        return browse(self.qm, initq)

    def triggers(self, initq: str = INITQ) -> list[MQTM]:
        """The trigger messages available on ``initq``, decoded."""
        return [decode_mqtm(m.body) for m in self.waiting(initq)]

    def queues_triggered(self, initq: str = INITQ) -> list[str]:
        return [tm.q_name for tm in self.triggers(initq)]

    def clear(self, initq: str = INITQ) -> None:
        """Take every available message off ``initq``: through the trigger monitor's handle
        when there is one (opening another would be an event, 13.3), else CLEAR QLOCAL."""
        q = self._monitors.get(initq)
        if q is None:
            self.qm.admin().clear_queue(initq)
            return
        while True:
            try:
                q.get(GetOptions(syncpoint=False))
            except MQIError as exc:
                if exc.reason != 2033:
                    raise
                return


def kill(proc: subprocess.Popen[str]) -> None:
    """SIGKILL (if still running), reap, close the pipes."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
