"""What a connection caches of queue definitions and authority records, and when it looks
again: at its next MQI call after any connection changed one (counted by triggers in the
same transaction), never because messages moved on other connections."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect, create_qmgr
from dlqhandler.qmgr.embedded.store import OBJECTS_TRIGGERS, QMgrPaths

NOW = PutOptions(syncpoint=False)
MSG = Message(MQMD(format="MQSTR"), b"x")


def _reason(call: object) -> int:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    return exc.value.reason


def test_a_change_on_another_connection_is_seen_at_the_next_call(home: Path) -> None:
    """PUT(DISABLED), GET(DISABLED) and an authority record, each changed by another
    connection between two calls of this one, apply to this one's very next call."""
    create_qmgr(home, "QM1")
    with connect("QM1", home=home, user="app1") as qm, connect("QM1", home=home) as other:
        other.admin().define_queue("APP.Q", {})
        q = qm.open("APP.Q", output=True)
        q.put(MSG, NOW)
        other.admin().alter_queue("APP.Q", {"PUT": "DISABLED"})
        assert _reason(lambda: q.put(MSG, NOW)) == 2051  # MQRC_PUT_INHIBITED
        other.admin().alter_queue("APP.Q", {"PUT": "ENABLED", "GET": "DISABLED"})
        q.put(MSG, NOW)
        assert _reason(lambda: q.get(GetOptions(syncpoint=False))) == 2016  # GET_INHIBITED
        other.admin().alter_queue("APP.Q", {"GET": "ENABLED"})
        assert q.get(GetOptions(syncpoint=False)).body == b"x"
        other.admin().set_authrec("APP.Q", "app1", remove=["PUT"])
        assert _reason(lambda: qm.put1("APP.Q", MSG, NOW)) == 2035  # MQRC_NOT_AUTHORIZED
        other.admin().delete_authrec("APP.Q", "app1")
        qm.put1("APP.Q", MSG, NOW)
        q.close()
        other.admin().delete_queue("APP.Q", purge=True)
        assert _reason(lambda: qm.put1("APP.Q", MSG, NOW)) == 2085  # UNKNOWN_OBJECT_NAME


def test_messages_moving_on_other_connections_do_not_reread_definitions(home: Path) -> None:
    """Another connection's puts, gets and commits leave this connection's cache valid:
    its next put reads no queue definition (four handlers on one DLQ would otherwise
    re-read every queue at every unit of work)."""
    create_qmgr(home, "QM1")
    with connect("QM1", home=home) as qm, connect("QM1", home=home) as other:
        other.admin().define_queue("APP.Q", {})
        q = qm.open("APP.Q", output=True)
        q.put(MSG, NOW)  # cached now
        theirs = other.open("APP.Q", output=True)
        for _ in range(3):
            theirs.put(MSG, PutOptions(syncpoint=True))
            theirs.get(GetOptions(syncpoint=True))
            other.commit()
        statements: list[str] = []
        qm.store.db.set_trace_callback(statements.append)
        try:
            q.put(MSG, NOW)
        finally:
            qm.store.db.set_trace_callback(None)
        assert statements, "the put ran no SQL at all?"
        assert not [
            s for s in statements if "FROM queues WHERE name" in s and "SELECT attrs" in s
        ], statements


def test_an_older_queue_manager_gets_the_counting_triggers_on_connect(home: Path) -> None:
    """A queue manager made before the triggers existed gets them at its next MQCONN, and
    from then on a change made there is seen by a connection that cached the old one."""
    paths = create_qmgr(home, "QM1")
    raw = sqlite3.connect(QMgrPaths.of(home / "qmgrs", "QM1").db)
    names = [
        row[0]
        for row in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'objects%'"
        )
    ]
    assert len(names) == len(OBJECTS_TRIGGERS)
    for name in names:
        raw.execute(f"DROP TRIGGER {name}")
    raw.execute("DELETE FROM meta WHERE key = 'objects'")
    raw.commit()
    raw.close()
    with connect("QM1", home=home) as qm, connect("QM1", home=home) as other:
        check = sqlite3.connect(paths.db)
        assert check.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'objects%'"
        ).fetchone()[0] == len(OBJECTS_TRIGGERS)
        check.close()
        qm.put1("SYSTEM.DEAD.LETTER.QUEUE", MSG, NOW)
        other.admin().alter_queue("SYSTEM.DEAD.LETTER.QUEUE", {"PUT": "DISABLED"})
        assert _reason(lambda: qm.put1("SYSTEM.DEAD.LETTER.QUEUE", MSG, NOW)) == 2051


def test_an_older_queue_manager_gets_the_properties_column_on_connect(home: Path) -> None:
    """A queue manager made before messages had properties (no ``props`` column) gets
    the column at its next MQCONN; its messages come back without properties, and new
    ones keep theirs."""
    from dlqhandler.mq.properties import Property, PropertyType

    paths = create_qmgr(home, "QM1")
    with connect("QM1", home=home) as qm:
        qm.put1("SYSTEM.DEAD.LETTER.QUEUE", MSG, NOW)
    raw = sqlite3.connect(paths.db)
    raw.execute("ALTER TABLE messages DROP COLUMN props")
    raw.commit()
    raw.close()
    color = Property("Color", PropertyType.STRING, "red")
    with connect("QM1", home=home) as qm:
        qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MSG.md, b"y", None, (color,)), NOW)
        q = qm.open("SYSTEM.DEAD.LETTER.QUEUE")
        old, new = q.get(GetOptions(syncpoint=False)), q.get(GetOptions(syncpoint=False))
    assert (old.body, old.properties) == (b"x", ())
    assert (new.body, new.properties) == (b"y", (color,))


def test_properties_ride_in_the_statements_a_message_already_runs(home: Path) -> None:
    """A put and a get run the same SQL statements (same number, same text) for a message
    with ten properties as for one without: properties cost no statement of their own."""
    from dlqhandler.mq.properties import Property, PropertyType

    create_qmgr(home, "QM1")
    ten = tuple(Property(f"p{i}", PropertyType.INT32, i) for i in range(10))
    runs: list[list[str]] = []
    with connect("QM1", home=home) as qm:
        q = qm.open("SYSTEM.DEAD.LETTER.QUEUE", output=True)
        q.put(MSG, NOW)
        q.get(GetOptions(syncpoint=False))  # (warm the caches)
        for props in ((), ten, ()):
            statements: list[str] = []
            qm.store.db.set_trace_callback(statements.append)
            q.put(Message(MSG.md, b"x", None, props), NOW)
            got = q.get(GetOptions(syncpoint=False))
            qm.store.db.set_trace_callback(None)
            assert got.properties == props
            # (the trace shows values bound in: compare the statements' shapes)
            runs.append(
                [re.sub(r"[xX]?'[^']*'|-?\b[0-9.]+\b|\bNULL\b", "?", s) for s in statements]
            )
    assert runs[0] == runs[1] == runs[2], runs
