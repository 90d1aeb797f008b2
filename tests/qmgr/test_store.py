"""The embedded queue manager on disk: layout, permissions, lifecycle, recovery, events."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import (
    EmbeddedQueueManager,
    GetOptions,
    PutOptions,
    QueueEvent,
    connect,
    create_qmgr,
    delete_qmgr,
    list_qmgrs,
)
from dlqhandler.qmgr.embedded.recovery import backout_owner
from dlqhandler.qmgr.embedded.store import QMgrPaths, Store
from tests.qmgr.conftest import FakeClock


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_are_owner_only(home: Path, clock: FakeClock) -> None:
    """Folders are 0700 and the database, its WAL/SHM and the lock files 0600."""
    home.mkdir(mode=0o755)
    paths = create_qmgr(home, "QM1")
    qm = connect("QM1", home=home, clock=clock)
    qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MQMD(), b"x"), PutOptions(syncpoint=False))
    try:
        assert mode(home) == 0o755  # not ours to change
        for folder in (home / "qmgrs", paths.root, paths.conns):
            assert mode(folder) == 0o700, folder
        files = [
            paths.db,
            paths.db.with_name("qmgr.db-wal"),
            paths.db.with_name("qmgr.db-shm"),
            paths.lock_file(qm.conn_id),
        ]
        for file in files:
            assert file.exists(), file
            assert mode(file) == 0o600, file
    finally:
        qm.disconnect()
    assert not paths.lock_file(qm.conn_id).exists()


def test_create_defines_the_default_objects(home: Path) -> None:
    """A new queue manager has its DEADQ and SYSTEM.DEFAULT.INITIATION.QUEUE, CCSID 819."""
    create_qmgr(home, "QM1", deadq="MY.DLQ")
    with connect("QM1", home=home) as qm:
        info = qm.inquire()
        assert (info.dead_letter_q_name, info.ccsid) == ("MY.DLQ", 819)
        for queue in ("MY.DLQ", "SYSTEM.DEAD.LETTER.QUEUE", "SYSTEM.DEFAULT.INITIATION.QUEUE"):
            assert qm.inquire_queue(queue).curdepth == 0


def test_create_refuses_duplicates_and_bad_names(home: Path) -> None:
    """An existing queue manager or an invalid name is a ConfigError."""
    create_qmgr(home, "QM1")
    with pytest.raises(ConfigError, match="already exists"):
        create_qmgr(home, "QM1")
    for bad in ("", "a/b", "..", "x" * 49, "has space"):
        with pytest.raises(ConfigError):
            create_qmgr(home, bad)


def test_connect_to_a_missing_queue_manager_is_2058(home: Path) -> None:
    """MQCONN to an unknown name (or with none configured) is MQRC_Q_MGR_NAME_ERROR."""
    for name in ("NOPE", None, "bad/name"):
        with pytest.raises(MQIError) as exc:
            connect(name, home=home)
        assert exc.value.reason == 2058


def test_default_queue_manager_from_the_environment(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """connect() with no name uses $DLQHANDLER_QMGR under $DLQHANDLER_HOME."""
    create_qmgr(home, "QMDEF")
    monkeypatch.setenv("DLQHANDLER_QMGR", "QMDEF")
    with connect() as qm:
        assert qm.name == "QMDEF"


def test_list_and_delete(home: Path) -> None:
    """list_qmgrs shows each with its live connections; delete refuses while connected."""
    create_qmgr(home, "QMA")
    create_qmgr(home, "QMB")
    qm = connect("QMB", home=home)
    assert [(s.name, s.connections) for s in list_qmgrs(home)] == [("QMA", 0), ("QMB", 1)]
    with pytest.raises(ConfigError, match="active connection"):
        delete_qmgr(home, "QMB")
    qm.disconnect()
    delete_qmgr(home, "QMB")
    assert [s.name for s in list_qmgrs(home)] == ["QMA"]
    with pytest.raises(ConfigError, match="does not exist"):
        delete_qmgr(home, "QMB")


def test_a_stale_lock_file_is_recovered_and_removed(qm: EmbeddedQueueManager, home: Path) -> None:
    """Rows owned by a connection whose lock file nobody holds are backed out; the file goes."""
    paths = QMgrPaths.of(home / "qmgrs", "QM1")
    qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MQMD(), b"x"), PutOptions(syncpoint=False))
    q = qm.open("SYSTEM.DEAD.LETTER.QUEUE")
    q.get(GetOptions(syncpoint=True))
    ghost = "99999-dead"
    qm.store.execute("UPDATE messages SET owner = ? WHERE owner = ?", (ghost, qm.conn_id))
    qm._uow.taken.clear()
    stale = paths.lock_file(ghost)
    stale.write_bytes(b"")
    assert qm.recover() == [ghost]
    assert not stale.exists()
    got = q.get(GetOptions(syncpoint=False))
    assert got.md.backout_count == 1


def test_backout_owner_is_idempotent(qm: EmbeddedQueueManager, home: Path) -> None:
    """Backing out an owner twice restores each message once."""
    store = Store(QMgrPaths.of(home / "qmgrs", "QM1"))
    try:
        assert backout_owner(store, "nobody") == (0, 0)
        assert backout_owner(store, "nobody") == (0, 0)
    finally:
        store.close()


def test_not_a_queue_manager_database(home: Path) -> None:
    """A database without our schema is refused with a ConfigError naming it."""
    paths = QMgrPaths.of(home / "qmgrs", "QMX")
    paths.create_files()
    with pytest.raises(ConfigError, match="not a dlqhandler queue manager"):
        Store(paths)


def test_events_for_triggering(home: Path, clock: FakeClock) -> None:
    """An observer sees put, commit, backout, open, close and alter events per queue."""
    create_qmgr(home, "QM1")
    events: list[QueueEvent] = []
    qm = connect("QM1", home=home, clock=clock, observer=events.append)
    admin = qm.admin()
    admin.define_queue("APP.IN", {})
    q = qm.open("APP.IN", output=True)
    q.put(Message(MQMD(), b"a"), PutOptions(syncpoint=False))
    q.put(Message(MQMD(), b"b"), PutOptions(syncpoint=True))
    qm.commit()
    q.get(GetOptions(syncpoint=True))
    qm.backout()
    q.close()
    qm.disconnect()
    assert [(e.kind, e.queue) for e in events] == [
        ("alter", "APP.IN"),
        ("open", "APP.IN"),
        ("put", "APP.IN"),
        ("commit", "APP.IN"),
        ("backout", "APP.IN"),
        ("close", "APP.IN"),
    ]
    assert {e.conn_id for e in events} == {qm.conn_id}


def test_handles_are_counted_as_ipprocs_and_opprocs(qm: EmbeddedQueueManager) -> None:
    """Open handles show as IPPROCS/OPPROCS and go away on close and disconnect."""
    q1 = qm.open("SYSTEM.DEAD.LETTER.QUEUE")
    qm.open("SYSTEM.DEAD.LETTER.QUEUE", input=False, output=True)
    attrs = qm.inquire_queue("SYSTEM.DEAD.LETTER.QUEUE").attributes
    assert (attrs["IPPROCS"], attrs["OPPROCS"]) == ("1", "1")
    q1.close()
    assert qm.inquire_queue("SYSTEM.DEAD.LETTER.QUEUE").attributes["IPPROCS"] == "0"


def test_unencodable_descriptor_is_2026(qm: EmbeddedQueueManager) -> None:
    """An MQMD text field that does not fit its MQCHAR field is MQRC_MD_ERROR."""
    with pytest.raises(MQIError) as exc:
        qm.put1(
            "SYSTEM.DEAD.LETTER.QUEUE",
            Message(MQMD(reply_to_q="Q" * 49), b"x"),
            PutOptions(syncpoint=False),
        )
    assert exc.value.reason == 2026


def test_lock_file_belongs_to_this_process(qm: EmbeddedQueueManager, home: Path) -> None:
    """A connection's id starts with its pid and its lock file is held while it lives."""
    from dlqhandler.qmgr.embedded.recovery import connection_alive

    assert qm.conn_id.startswith(f"{os.getpid()}-")
    assert connection_alive(QMgrPaths.of(home / "qmgrs", "QM1"), qm.conn_id)


def test_a_database_locked_too_long_is_resource_problem(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """SQLite busy beyond the timeout surfaces as MQRC_RESOURCE_PROBLEM (2102)."""
    import sqlite3

    blocker = sqlite3.connect(QMgrPaths.of(home / "qmgrs", "QM1").db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    qm.store.db.execute("PRAGMA busy_timeout = 50")
    try:
        with pytest.raises(MQIError) as exc:
            qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MQMD(), b"x"), PutOptions(syncpoint=False))
        assert exc.value.reason == 2102
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MQMD(), b"x"), PutOptions(syncpoint=False))


def test_leftover_temporary_lock_files_are_cleaned(qm: EmbeddedQueueManager, home: Path) -> None:
    """A lock file a process died with before renaming it is removed at the next connect
    once it is old; a new one (a connection being made has created it and not yet locked
    it) is left alone."""
    paths = QMgrPaths.of(home / "qmgrs", "QM1")
    leftover = paths.conns / "12345-dead.tmp"
    leftover.write_bytes(b"")
    fresh = paths.conns / "12346-connecting.tmp"
    fresh.write_bytes(b"")
    old = time.time() - 3600
    os.utime(leftover, (old, old))
    qm.recover()
    assert not leftover.exists()
    assert fresh.exists()
    assert paths.lock_file(qm.conn_id).exists()


def test_a_queue_manager_created_before_alias_queues_gets_their_table(home: Path) -> None:
    """A queue manager whose database predates QALIAS (no ``aliases`` table, nor its
    change-count triggers) gets both on the next connection, and an alias defined then
    resolves (a put lands on its target)."""
    import sqlite3

    create_qmgr(home, "OLD")
    db = sqlite3.connect(QMgrPaths.of(home / "qmgrs", "OLD").db)
    db.execute("DROP TABLE aliases")  # (its triggers go with it)
    db.commit()
    db.close()
    qm = connect("OLD", home=home)
    qm.admin().define_queue("APP.T", {})
    qm.admin().define_alias("APP.A", {"TARGET": "APP.T"})
    qm.put1("APP.A", Message(MQMD(), b"x"), PutOptions(syncpoint=False))
    assert qm.inquire_queue("APP.T").curdepth == 1
    qm.disconnect()


def test_a_queue_manager_created_before_model_queues_gets_their_tables(home: Path) -> None:
    """A queue manager whose database predates QMODEL (no ``models`` nor
    ``dynamic_owners`` table, nor the models' change-count triggers) gets them on the next
    connection: a model defined then opens as a temporary dynamic queue that goes when its
    handle closes."""
    import sqlite3

    create_qmgr(home, "OLD")
    db = sqlite3.connect(QMgrPaths.of(home / "qmgrs", "OLD").db)
    db.execute("DROP TABLE models")  # (its triggers go with it)
    db.execute("DROP TABLE dynamic_owners")
    db.commit()
    db.close()
    qm = connect("OLD", home=home)
    qm.admin().define_model("APP.MODEL", {})
    q = qm.open("APP.MODEL", output=True)
    assert qm.inquire_queue(q.name).curdepth == 0
    q.close()
    assert q.name not in [rec.name for rec in qm.admin().queues("*")]
    qm.disconnect()
