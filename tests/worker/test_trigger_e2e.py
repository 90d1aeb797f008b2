"""A triggered DLQ end to end: ``ops/mqsc/dlq-triggered.mqsc``, the real trigger monitor
(``dlqhandler qm runmqtrm``) and the real ``dlqhandler run`` it starts.

The MQSC file is applied with ``dlqhandler qm mqsc`` as an administrator would,
then the process's APPLICID is pointed at this checkout's interpreter and a
test table (``ALTER PROCESS``), and its ENVRDATA carries extra options (the
trigger monitor appends EnvData after the MQTMC2). The monitor runs as a child
process in a session of its own; the handlers it starts inherit its
environment ($DLQHANDLER_HOME) and its stderr, where both write JSON events.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.mq import Message
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager
from tests.worker.helpers import DLQ, STATUS, Ledger, browse, dead_letter, define, depth, load

ROOT = Path(__file__).resolve().parents[2]
OPS_MQSC = ROOT / "ops" / "mqsc" / "dlq-triggered.mqsc"
INITQ = "DLQ.INITQ"


class Monitor:
    """``dlqhandler qm runmqtrm -m QM1 -q DLQ.INITQ`` as a child process."""

    def __init__(self, home: Path, folder: Path) -> None:
        self.err_path = folder / "runmqtrm.err"
        self.out_path = folder / "runmqtrm.out"
        env = {
            **os.environ,
            "DLQHANDLER_HOME": str(home),
            "DLQHANDLER_LOG_JSON": "1",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("DLQHANDLER_QMGR", None)
        with self.out_path.open("w") as out, self.err_path.open("w") as err:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "dlqhandler",
                    "qm",
                    "runmqtrm",
                    "-m",
                    "QM1",
                    "-q",
                    INITQ,
                    "--stop-timeout",
                    "60",
                ],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        """JSON events of the monitor and of the handlers it started, in order."""
        out = []
        for line in self.err_path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not an event, or a line still being written
            if isinstance(event, dict) and (name is None or event.get("event") == name):
                out.append(event)
        return out

    def stop(self) -> int:
        """SIGTERM to the monitor and the handler it runs (its session), then wait."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise


@pytest.fixture
def triggered(
    home: Path, qm: EmbeddedQueueManager, tmp_path: Path
) -> Iterator[Callable[..., Monitor]]:
    """Apply the ops MQSC, point DLQ.HANDLER at ``dlqhandler run --rules TABLE`` (plus
    ENVRDATA options), and start the trigger monitor; stopped at teardown."""
    started: list[Monitor] = []

    def start(table: str, envrdata: str = "--no-watch") -> Monitor:
        rules = tmp_path / "rules.rul"
        rules.write_text(table, encoding="utf-8")
        applicid = (
            f"{shlex.quote(sys.executable)} -m dlqhandler run --rules {shlex.quote(str(rules))}"
        )
        assert len(applicid) <= 256
        assert len(envrdata) <= 128
        mqsc(home, OPS_MQSC.read_text(encoding="utf-8"))
        mqsc(home, f"ALTER PROCESS(DLQ.HANDLER) APPLICID('{applicid}') ENVRDATA('{envrdata}')\n")
        monitor = Monitor(home, tmp_path)
        started.append(monitor)
        return monitor

    yield start
    for monitor in started:
        monitor.stop()


def mqsc(home: Path, text: str) -> None:
    """``dlqhandler qm mqsc QM1`` with ``text`` on stdin; every command must succeed."""
    env = {**os.environ, "DLQHANDLER_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "dlqhandler", "qm", "mqsc", "QM1"],
        input=text,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def arrive(qm: EmbeddedQueueManager, *messages: Message) -> Ledger:
    """Put dead letters on the DLQ in one unit of work (one FIRST trigger event, at
    commit); returns the ledger of what arrived, for the conservation check."""
    load(qm, messages)
    return Ledger(qm, DLQ, {m.md.msg_id: m for m in messages})


def wait_for(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_dead_letter_starts_the_handler_which_drains_the_dlq_and_ends(
    qm: EmbeddedQueueManager, triggered: Callable[..., Monitor]
) -> None:
    """With the monitor waiting on DLQ.INITQ, dead letters arriving on the empty DLQ make
    it start `dlqhandler run` once with the MQTMC2; the handler applies the table
    (RETRY, FWD, DISCARD), ends (WAIT(NO)), and every message is in exactly one place."""
    define(qm, "APP.IN", "DLQ.CATCHALL")
    monitor = triggered(
        "WAIT(NO) RETRYINT(1)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"
        "PERSIST(MQPER_NOT_PERSISTENT) ACTION(DISCARD)\n"
        "ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"
    )
    wait_for(lambda: qm.inquire_queue(INITQ).attributes["IPPROCS"] == "1")
    retried = [dead_letter(f"order {i}", reason=2053, destq="APP.IN", priority=0) for i in range(3)]
    dropped = [dead_letter(f"tick {i}", reason=2035, persistence=0, priority=0) for i in range(2)]
    kept = [dead_letter(f"odd {i}", reason=2085, priority=0) for i in range(3)]
    book = arrive(qm, *retried, *dropped, *kept)

    wait_for(lambda: monitor.events("application_ended") != [] and depth(qm, DLQ) == 0)
    assert monitor.stop() == 0

    [start] = monitor.events("started_by_trigger")
    assert (start["queue"], start["qmgr"], start["process"]) == (DLQ, "QM1", "DLQ.HANDLER")
    assert [e["returncode"] for e in monitor.events("application_ended")] == [0]
    assert len(monitor.events("application_started")) == 1
    [ended] = monitor.events("handler_ended")
    assert (ended["retried"], ended["discarded"], ended["forwarded"]) == (3, 2, 3)
    assert monitor.events("trigger_loop_backoff") == []
    assert (
        "Dead-letter queue handler started to process INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)"
        in monitor.out_path.read_text(encoding="utf-8")
    )
    placed = book.check(["APP.IN", "DLQ.CATCHALL"], discarded=[m.md.msg_id for m in dropped])
    assert (len(placed.get(DLQ, [])), len(placed["APP.IN"]), len(placed["DLQ.CATCHALL"])) == (
        0,
        3,
        3,
    )


WINDOW = 20.0
BASE = 4.0


@pytest.mark.slow
def test_a_table_that_leaves_messages_does_not_restart_the_handler_in_a_loop(
    qm: EmbeddedQueueManager, triggered: Callable[..., Monitor]
) -> None:
    """TRIGTYPE(FIRST) triggers again whenever the handler closes the DLQ with messages
    left (condition 12). With a table that IGNOREs most messages, the handler holds the
    DLQ open for a doubling time instead of ending at once: over a 20 s window it is
    started at most 4 times (without the backoff: about one start every 1-2 s), the holds
    double, and the ignored messages stay on the DLQ untouched."""
    define(qm, "CATCH")
    monitor = triggered(
        "WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(CATCH)\nACTION(IGNORE)\n",
        f"--no-watch --trigger-backoff-base {BASE:g} --trigger-backoff 60",
    )
    wait_for(lambda: qm.inquire_queue(INITQ).attributes["IPPROCS"] == "1")
    began = time.monotonic()
    book = arrive(
        qm,
        *[dead_letter(f"full {i}", reason=2053, priority=0) for i in range(2)],
        *[dead_letter(f"not authorized {i}", reason=2035, priority=0) for i in range(6)],
    )
    wait_for(lambda: monitor.events("application_started") != [])
    time.sleep(max(0.0, WINDOW - (time.monotonic() - began)))
    assert monitor.stop() == 0

    starts = monitor.events("application_started")
    assert 2 <= len(starts) <= 4, [e.get("timestamp") for e in starts]
    holds = [e["hold_seconds"] for e in monitor.events("trigger_loop_backoff")]
    assert holds == [BASE * 2**i for i in range(len(holds))]
    assert len(holds) >= len(starts) - 1  # the first run forwarded, the others held
    resets = monitor.events("trigger_backoff_reset")
    assert resets == []  # the first run had no record to reset
    placed = book.check(["CATCH"])
    assert (len(placed[DLQ]), len(placed["CATCH"])) == (6, 2)
    [record] = [json.loads(m.body) for m in browse(qm, STATUS)]
    assert record["idle_runs"] == len(holds)
