"""Several processes on one queue manager: no duplicate delivery, and kill -9 loses nothing."""

from __future__ import annotations

import subprocess
from collections import Counter

from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from tests.qmgr.contract.conftest import Adapter, collect, killed_when_done, text

NOW = PutOptions(syncpoint=False)


def test_concurrent_consumers_never_receive_the_same_message(adapter: Adapter) -> None:
    """Three processes wait in MQGET under syncpoint on one queue (one also backs out now
    and then); every message is delivered exactly once, and all are delivered. Each pauses
    2 ms after a commit, so one fast consumer cannot take the whole queue before the others
    wake (the last check: they really overlapped)."""
    adapter.define_queue("APP.WORK")
    qm = adapter.connect()
    total = 240
    children = [
        adapter.child(
            "consume",
            "--queue",
            "APP.WORK",
            "--wait-ms",
            str(adapter.consume_wait_ms),
            "--pause-ms",
            "2",
            *(["--backout-every", "7"] if n == 0 else []),
        )
        for n in range(3)
    ]
    for child in children:  # all three are waiting in MQGET before anything arrives
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
    for i in range(total):
        qm.put1("APP.WORK", text(f"msg-{i:04d}"), PutOptions(syncpoint=True))
    qm.commit()
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        outputs.append(out.split())
    counts = Counter(body for out in outputs for body in out)
    assert [body for body, n in counts.items() if n > 1] == []
    assert set(counts) == {f"msg-{i:04d}" for i in range(total)}
    assert sum(1 for out in outputs if out) >= 2, "the consumers did not overlap"
    assert qm.inquire_queue("APP.WORK").curdepth == 0


def _five_messages_and_a_unit_of_work(
    adapter: Adapter, *, hardenbo: bool
) -> tuple[QueueManager, subprocess.Popen[str]]:
    """m0..m4 on APP.IN (FIFO), and a child process that has got three of them and put
    two messages on APP.OUT under syncpoint, then waits (READY) to be killed."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO", **({"hardenbo": True} if hardenbo else {}))
    adapter.define_queue("APP.OUT")
    qm = adapter.connect()
    for i in range(5):
        qm.put1("APP.IN", text(f"m{i}"), NOW)
    child = adapter.child(
        "hang", "--queue", "APP.IN", "--get", "3", "--put", "2", "--put-queue", "APP.OUT"
    )
    return qm, child


def test_kill_9_mid_unit_of_work_loses_nothing(adapter: Adapter) -> None:
    """A process killed with SIGKILL after getting (from a HARDENBO queue) and putting under
    syncpoint: its got messages come back with BackoutCount + 1, its uncommitted puts
    vanish."""
    qm, child = _five_messages_and_a_unit_of_work(adapter, hardenbo=True)
    with killed_when_done(child):
        q = qm.open("APP.IN")
        assert q.get(GetOptions(browse="first", syncpoint=False)).body == b"m3"
        assert qm.inquire_queue("APP.OUT").curdepth == 2  # uncommitted puts count
    observer = adapter.connect()  # a new connection recovers the dead one's work
    got = collect(observer.open("APP.IN"), GetOptions(syncpoint=False))
    assert [m.body for m in got] == [b"m0", b"m1", b"m2", b"m3", b"m4"]
    assert [m.md.backout_count for m in got] == [1, 1, 1, 0, 0]
    assert observer.inquire_queue("APP.OUT").curdepth == 0
    assert observer.inquire_queue("APP.IN").curdepth == 0


def test_kill_9_on_a_nohardenbo_queue_loses_nothing_but_may_not_count(adapter: Adapter) -> None:
    """NOHARDENBO (IBM's default): a process killed after getting and putting under
    syncpoint still backs everything out - every message back once, in order, its
    uncommitted puts gone - but a got message's BackoutCount may stay as it was (IBM: "the
    count might be lower than it should be")."""
    _qm, child = _five_messages_and_a_unit_of_work(adapter, hardenbo=False)
    with killed_when_done(child):
        pass
    observer = adapter.connect()
    got = collect(observer.open("APP.IN"), GetOptions(syncpoint=False))
    assert [m.body for m in got] == [b"m0", b"m1", b"m2", b"m3", b"m4"]
    assert [m.md.backout_count for m in got][3:] == [0, 0]
    assert all(m.md.backout_count in (0, 1) for m in got[:3])
    assert observer.inquire_queue("APP.OUT").curdepth == 0
    assert observer.inquire_queue("APP.IN").curdepth == 0


def test_a_waiting_get_sees_messages_a_dead_process_held(adapter: Adapter) -> None:
    """A get already waiting when the holder dies gets the message once it is recovered
    (HARDENBO: with BackoutCount + 1)."""
    adapter.define_queue("APP.IN", hardenbo=True)
    qm = adapter.connect()
    qm.put1("APP.IN", text("held"), NOW)
    child = adapter.child("hang", "--queue", "APP.IN", "--get", "1")
    with killed_when_done(child):
        pass
    got = qm.open("APP.IN").get(GetOptions(syncpoint=False, wait_ms=10_000))
    assert (got.body, got.md.backout_count) == (b"held", 1)
