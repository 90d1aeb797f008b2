"""Triggering across processes: concurrent putters, and processes that die.

Several processes put on one triggered queue at once: the trigger counts must
be exact (one per FIRST event), because every evaluation runs in the SQLite
transaction that inserts the message. A process killed with SIGKILL is an
"abend": its input handles close (condition 12, note 2) and its unit of work
is backed out (condition 10), both when another connection recovers it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.qmgr.trigger.support import APPQ, INITQ, World, kill

ROOT = Path(__file__).resolve().parents[3]
CHILD = """
import sys, time
from pathlib import Path
from dlqhandler.logs import configure_logging
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import PutOptions, connect

configure_logging(level="WARNING", stream=sys.stderr)
home, queue, action, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
qm = connect("QM1", home=Path(home))
message = Message(MQMD(), b"x")
if action == "serve":
    qm.open(queue)
elif action == "hang":
    for _ in range(count):
        qm.put1(queue, message, PutOptions(syncpoint=True))
print("READY", flush=True)
if action in ("serve", "hang"):
    time.sleep(600)
sys.stdin.readline()
for i in range(count):
    if action == "put-uow":
        qm.put1(queue, message, PutOptions(syncpoint=True))
        qm.commit()
    else:
        qm.put1(queue, message, PutOptions(syncpoint=False))
qm.disconnect()
"""


def child(world: World, action: str, count: int = 0) -> subprocess.Popen[str]:
    """A process connected to QM1; returns once it printed READY."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(world.home), APPQ, action, str(count)],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    world.children.append(proc)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "READY", f"child said {line!r} (exit {proc.poll()})"
    return proc


@pytest.mark.parametrize(
    ("trigtype", "extra", "expected"),
    [("FIRST", "", 1), ("EVERY", "", 120), ("DEPTH", "TRIGDPTH(50)", 1)],
)
def test_condition_03_concurrent_putters_in_four_processes(
    world: World, trigtype: str, extra: str, expected: int
) -> None:
    """Four processes put 30 messages each at the same moment (two inside units of work):
    FIRST writes exactly one trigger message, EVERY exactly 120, DEPTH(50) exactly one and
    switches TRIGGER off."""
    world.app_queue(trigtype=trigtype, extra=extra)
    world.monitor()
    putters = [child(world, "put" if n < 2 else "put-uow", 30) for n in range(4)]
    for proc in putters:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in putters:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        world.children.remove(proc)
    assert world.depth(APPQ) == 120
    assert world.queues_triggered() == [APPQ] * expected
    if trigtype == "DEPTH":
        assert world.attr(APPQ, "TRIGGER") == "NOTRIGGER"


def test_condition_12_note_2_a_server_that_dies_triggers_when_recovered(world: World) -> None:
    """The only server of a FIRST queue is killed with messages waiting: when another
    connection recovers it, its input handle closes and a trigger message is written."""
    world.app_queue()
    world.monitor()
    server = child(world, "serve")
    world.put()
    world.put()
    assert world.triggers() == []
    kill(server)
    assert len(world.qm.recover()) == 1
    assert world.queues_triggered() == [APPQ]
    assert world.attr(APPQ, "IPPROCS") == "0"


@pytest.mark.parametrize(("trigtype", "available"), [("FIRST", 1), ("EVERY", 0)])
def test_condition_10_a_putter_that_dies_in_its_unit_of_work(
    world: World, trigtype: str, available: int
) -> None:
    """A process dies after an uncommitted put: its unit of work is backed out, and, as for
    a backout, a FIRST trigger message becomes available while an EVERY one goes."""
    world.app_queue(trigtype=trigtype)
    world.monitor()
    putter = child(world, "hang", 1)
    assert world.depth(INITQ) == 1
    assert world.triggers() == []
    kill(putter)
    world.qm.recover()
    assert world.depth(APPQ) == 0
    assert len(world.triggers()) == available
    assert world.depth(INITQ) == available
