"""A unit of work as one held SQLite transaction: what it holds, for how long, and how
other connections see it (see dlqhandler.qmgr.embedded.store and .hold)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions, connect, create_qmgr
from dlqhandler.qmgr.embedded import store as store_module
from tests.qmgr.contract.conftest import killed_when_done

NOW = PutOptions(syncpoint=False)
UOW = PutOptions(syncpoint=True)


def persistent(body: bytes) -> Message:
    return Message(MQMD(persistence=1, format="MQSTR"), body)


@pytest.fixture
def qm(home: Path) -> EmbeddedQueueManager:
    create_qmgr(home, "QM1")
    conn = connect("QM1", home=home)
    conn.admin().define_queue("APP.IN", {})
    conn.admin().define_queue("APP.OUT", {})
    yield conn
    conn.disconnect()


def other_process(home: Path, busy_ms: int = 20_000) -> sqlite3.Connection:
    """A bare SQLite connection to the database: what another process's writes meet."""
    db = sqlite3.connect(home / "qmgrs" / "QM1" / "qmgr.db", isolation_level=None)
    db.execute(f"PRAGMA busy_timeout = {busy_ms}")
    return db


def test_puts_of_a_unit_of_work_share_one_transaction_and_a_lock_is_final_at_once(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """Puts under syncpoint join one held transaction that MQCMIT ends; a browse lock is a
    short transaction of its own, so another process sees it (and the handler's decision
    does not hold the write lock)."""
    qm.put1("APP.IN", persistent(b"a"), NOW)
    q = qm.open("APP.IN")
    assert q.get(GetOptions(browse="first", lock=True, syncpoint=False)).body == b"a"
    assert not qm.store.holding
    db = other_process(home)
    assert db.execute("SELECT lock_conn FROM messages").fetchall() == [(qm.conn_id,)]
    db.close()
    qm.put1("APP.OUT", persistent(b"b"), UOW)
    qm.put1("APP.OUT", persistent(b"c"), UOW)
    assert qm.store.holding
    qm.commit()
    assert not qm.store.holding
    assert qm.inquire_queue("APP.OUT").curdepth == 2


def test_a_get_from_a_hardenbo_queue_commits_its_claim_before_it_returns(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """HARDENBO: a got message is claimed in the database when MQGET returns (a kill -9
    then backs it out with BackoutCount + 1): another process already sees it taken."""
    qm.admin().define_queue("APP.HB", {"HARDENBO": "HARDENBO"})
    qm.put1("APP.HB", persistent(b"a"), NOW)
    qm.put1("APP.OUT", persistent(b"b"), UOW)
    qm.open("APP.HB").get(GetOptions(syncpoint=True))
    assert not qm.store.holding
    db = other_process(home)
    states = dict(db.execute("SELECT queue, state FROM messages").fetchall())
    assert states == {"APP.HB": store_module.TAKEN, "APP.OUT": store_module.PUT_PENDING}
    db.close()
    qm.backout()


def test_a_nohardenbo_unit_of_work_is_one_transaction(qm: EmbeddedQueueManager, home: Path) -> None:
    """NOHARDENBO (the default): the handler's unit of work - browse lock, put, get under
    the cursor, for several messages - stays in one held transaction that MQCMIT commits;
    until then another process reads the state before the unit of work, and its write
    (here a lock of the same message) waits for the hold and then sees it exactly."""
    for body in (b"a", b"b", b"c"):
        qm.put1("APP.IN", persistent(body), NOW)
    q = qm.open("APP.IN")
    first = GetOptions(browse="first", lock=True, syncpoint=False)
    assert q.get(first).body == b"a"  # nothing held yet: a lock of its own
    assert not qm.store.holding
    for body in (b"a", b"b"):
        qm.put1("APP.OUT", persistent(body), UOW)
        assert q.get(GetOptions(under_cursor=True, syncpoint=True)).body == body
        assert qm.store.holding
        nxt = q.get(GetOptions(browse="next", lock=True, syncpoint=False))
        assert qm.store.holding  # the lock joined the hold
    assert nxt.body == b"c"
    db = other_process(home)
    assert db.execute(
        "SELECT state, lock_conn FROM messages WHERE queue = 'APP.IN' ORDER BY id"
    ).fetchall() == [(0, qm.conn_id), (0, None), (0, None)]
    qm.commit()
    assert not qm.store.holding
    assert db.execute(
        "SELECT state, lock_conn FROM messages WHERE queue = 'APP.IN' ORDER BY id"
    ).fetchall() == [(0, qm.conn_id)]
    db.close()
    assert qm.inquire_queue("APP.OUT").curdepth == 2


def test_a_nohardenbo_claim_is_committed_when_its_hold_ends(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """A claim left in the held transaction becomes MQ state other processes see when the
    hold ends without MQCMIT (here: the watchdog after the hold limit): the message taken,
    the uncommitted put counted; MQBACK then restores it with BackoutCount + 1."""
    qm.put1("APP.IN", persistent(b"a"), NOW)
    qm.open("APP.IN").get(GetOptions(syncpoint=True))
    qm.put1("APP.OUT", persistent(b"b"), UOW)
    assert qm.store.holding
    db = other_process(home)
    db.execute("BEGIN IMMEDIATE")  # waits for the watchdog
    states = dict(db.execute("SELECT queue, state FROM messages").fetchall())
    depths = dict(
        db.execute("SELECT name, curdepth FROM queues WHERE name LIKE 'APP.%'").fetchall()
    )
    db.execute("ROLLBACK")
    db.close()
    assert states == {"APP.IN": store_module.TAKEN, "APP.OUT": store_module.PUT_PENDING}
    assert depths == {"APP.IN": 0, "APP.OUT": 1}
    qm.backout()
    got = qm.open("APP.IN").get(GetOptions(syncpoint=False))
    assert (got.body, got.md.backout_count) == (b"a", 1)


_KILLED_CHILD = """
import sys, time
from pathlib import Path
from dlqhandler.qmgr.embedded import hold, store
hold.HOLD_LIMIT = store.HOLD_LIMIT = 600.0  # the hold is surely open when it is killed
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect
qm = connect("QM1", home=Path(sys.argv[1]))
q = qm.open("APP.IN")
for _ in range(2):
    q.get(GetOptions(syncpoint=True))
qm.put1("APP.OUT", Message(MQMD(), b"uncommitted"), PutOptions(syncpoint=True))
print("READY", flush=True)
time.sleep(600)
"""


def test_a_process_killed_inside_a_nohardenbo_hold_gives_everything_back_uncounted(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """SIGKILL while a NOHARDENBO unit of work's claims are still in its open transaction:
    SQLite rolls it back - both messages back in order with BackoutCount unchanged (as IBM
    says of NOHARDENBO), the uncommitted put gone, nothing lost or duplicated."""
    for body in (b"a", b"b", b"c"):
        qm.put1("APP.IN", persistent(body), NOW)
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_CHILD, str(home)], stdout=subprocess.PIPE, text=True
    )
    with killed_when_done(child):
        pass
    assert qm.recover()  # the dead connection's lock file and browse state
    q = qm.open("APP.IN")
    got = [q.get(GetOptions(syncpoint=False)) for _ in range(3)]
    assert [(m.body, m.md.backout_count) for m in got] == [(b"a", 0), (b"b", 0), (b"c", 0)]
    assert qm.inquire_queue("APP.OUT").curdepth == 0


def test_an_idle_hold_is_released_for_other_processes(qm: EmbeddedQueueManager, home: Path) -> None:
    """A unit of work left open with nothing to do holds the write lock only until the hold
    limit: another process's write then goes through (and the put stays uncommitted)."""
    qm.put1("APP.OUT", persistent(b"pending"), UOW)
    assert qm.store.holding
    db = other_process(home)
    db.execute("BEGIN IMMEDIATE")  # waits for the watchdog, not for the commit
    rows = db.execute("SELECT state FROM messages WHERE queue = 'APP.OUT'").fetchall()
    db.execute("ROLLBACK")
    db.close()
    assert rows == [(store_module.PUT_PENDING,)]
    assert not qm.store.holding
    qm.commit()
    assert qm.open("APP.OUT").get(GetOptions(syncpoint=False)).body == b"pending"


def test_a_write_lock_held_too_long_is_mqrc_resource_problem(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the write lock stays taken past the busy timeout (a stuck process), MQI calls
    fail with MQRC_RESOURCE_PROBLEM (2102) instead of hanging."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.2)
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    try:
        qm.admin().define_queue("APP.IN", {})
        stuck = other_process(home)
        stuck.execute("BEGIN IMMEDIATE")
        with pytest.raises(MQIError) as exc:
            qm.put1("APP.IN", persistent(b"x"), NOW)
        assert exc.value.reason == 2102
        stuck.execute("ROLLBACK")
        stuck.close()
        qm.put1("APP.IN", persistent(b"x"), NOW)
        assert qm.inquire_queue("APP.IN").curdepth == 1
    finally:
        qm.disconnect()


def test_commit_after_part_of_the_unit_of_work_was_lost_is_mqrc_backed_out(
    qm: EmbeddedQueueManager,
) -> None:
    """If SQLite rolled back part of a unit of work (a failed commit of a hold), MQCMIT backs
    out the rest and returns MQRC_BACKED_OUT (2003): never a get without its put."""
    qm.put1("APP.IN", persistent(b"a"), NOW)
    qm.open("APP.IN").get(GetOptions(syncpoint=True))
    qm.put1("APP.OUT", persistent(b"a"), UOW)
    qm.store.losses += 1  # what Store records when SQLite rolls a hold back
    with pytest.raises(MQIError) as exc:
        qm.commit()
    assert exc.value.reason == 2003
    got = qm.open("APP.IN").get(GetOptions(syncpoint=False))
    assert (got.body, got.md.backout_count) == (b"a", 1)
    assert qm.inquire_queue("APP.OUT").curdepth == 0


def test_connections_of_one_process_see_each_other_exactly(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """Another connection in the same process sees a held unit of work as committed MQ
    state: its uncommitted put counted in CURDEPTH, its locked message hidden."""
    qm.put1("APP.IN", persistent(b"a"), NOW)
    qm.open("APP.IN").get(GetOptions(browse="first", lock=True, syncpoint=False))
    qm.put1("APP.OUT", persistent(b"b"), UOW)
    other = connect("QM1", home=home)
    try:
        assert other.inquire_queue("APP.OUT").curdepth == 1
        with pytest.raises(MQIError) as exc:
            other.open("APP.IN").get(GetOptions(browse="first", syncpoint=False))
        assert exc.value.reason == 2033
    finally:
        other.disconnect()
