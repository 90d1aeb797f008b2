"""The queue manager database's schema, and creating it.

Messages keep their MQ state in their rows (see :mod:`.store`); the triggers keep
each queue's CURDEPTH as MQ counts it.
"""

from __future__ import annotations

import time

from dlqhandler.qmgr.embedded.store import (
    ALIASES_TABLE,
    DYNAMIC_TABLES,
    OBJECTS_TRIGGERS,
    REMOTES_TABLE,
    SCHEMA_VERSION,
    Store,
)

__all__ = ["initialise"]

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE qmgr_attrs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE queues (
    name TEXT PRIMARY KEY,
    attrs TEXT NOT NULL,
    curdepth INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    altered REAL NOT NULL
);
CREATE TABLE processes (name TEXT PRIMARY KEY, attrs TEXT NOT NULL,
                        created REAL NOT NULL, altered REAL NOT NULL);
CREATE TABLE authrecs (
    profile TEXT NOT NULL, principal TEXT NOT NULL, objtype TEXT NOT NULL,
    auths TEXT NOT NULL, PRIMARY KEY (profile, principal, objtype)
);
CREATE TABLE sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE trigger_state (queue TEXT PRIMARY KEY, last_trigger REAL NOT NULL,
                            triggers INTEGER NOT NULL);
CREATE TABLE handles (
    conn TEXT NOT NULL, handle INTEGER NOT NULL, queue TEXT NOT NULL,
    input INTEGER NOT NULL, output INTEGER NOT NULL, PRIMARY KEY (conn, handle)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    priority INTEGER NOT NULL,
    state INTEGER NOT NULL,
    owner TEXT,
    lock_conn TEXT,
    lock_handle INTEGER,
    backout_count INTEGER NOT NULL DEFAULT 0,
    msg_id BLOB NOT NULL,
    correl_id BLOB NOT NULL,
    group_id BLOB NOT NULL,
    msg_seq_number INTEGER NOT NULL,
    seg_offset INTEGER NOT NULL,
    msg_flags INTEGER NOT NULL,
    persistent INTEGER NOT NULL,
    put_clock REAL NOT NULL,
    expiry INTEGER NOT NULL,
    expires_at REAL,
    md BLOB NOT NULL,
    body BLOB NOT NULL,
    -- message properties (NULL: none), see dlqhandler.qmgr.embedded.propctl
    props BLOB
);
-- Every index is paid for on each put and commit: only the ones gets need. Delivery
-- order is (priority DESC, id) on every queue: a FIFO queue stores DEFPRTY as the
-- ordering priority, as MQ does. Group members (any group or segment flag) only.
CREATE INDEX messages_in_order ON messages (queue, priority DESC, id);
CREATE INDEX messages_by_msg_id ON messages (queue, msg_id);
-- A CorrelId match of MQCI_NONE matches any message (MQ), so the all-zero CorrelIds of
-- most datagrams are never looked up: they stay out of their index. (Queue managers
-- created before keep a full index, which the same queries use.)
CREATE INDEX messages_by_correl_id ON messages (queue, correl_id)
    WHERE correl_id != zeroblob(24);
CREATE INDEX messages_in_groups ON messages (queue, group_id, msg_seq_number, seg_offset)
    WHERE msg_flags & 31 != 0;
-- CURDEPTH counts committed and uncommitted puts, not messages got under syncpoint
-- (state 2 = TAKEN).
CREATE TRIGGER depth_on_insert AFTER INSERT ON messages WHEN NEW.state != 2
BEGIN UPDATE queues SET curdepth = curdepth + 1 WHERE name = NEW.queue; END;
CREATE TRIGGER depth_on_delete AFTER DELETE ON messages WHEN OLD.state != 2
BEGIN UPDATE queues SET curdepth = curdepth - 1 WHERE name = OLD.queue; END;
CREATE TRIGGER depth_on_take AFTER UPDATE OF state ON messages
WHEN OLD.state != 2 AND NEW.state = 2
BEGIN UPDATE queues SET curdepth = curdepth - 1 WHERE name = NEW.queue; END;
CREATE TRIGGER depth_on_return AFTER UPDATE OF state ON messages
WHEN OLD.state = 2 AND NEW.state != 2
BEGIN UPDATE queues SET curdepth = curdepth + 1 WHERE name = NEW.queue; END;
"""


def initialise(store: Store, *, name: str, attrs: dict[str, str]) -> None:
    """Create the schema and the queue manager object's attributes."""
    statements = [
        *(s.strip() for s in _split_sql(_SCHEMA) if s.strip()),
        ALIASES_TABLE,
        REMOTES_TABLE,
        *DYNAMIC_TABLES,
        *OBJECTS_TRIGGERS,
    ]
    with store.write(durable=True) as db:
        for sql in statements:
            db.execute(sql)
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        db.execute("INSERT INTO meta VALUES ('name', ?)", (name,))
        db.executemany("INSERT INTO qmgr_attrs VALUES (?, ?)", sorted(attrs.items()))
        # MsgIds carry a counter that starts at the creation time in microseconds,
        # so ids stay unique across a delete and re-create of the same name.
        db.execute("INSERT INTO sequences VALUES ('msgid', ?)", (time.time_ns() // 1000,))


def _split_sql(script: str) -> list[str]:
    """Split the schema into statements (trigger bodies contain ';')."""
    out: list[str] = []
    current: list[str] = []
    for line in script.splitlines():
        if line.lstrip().startswith("--"):
            continue
        current.append(line)
        text = "\n".join(current).strip()
        if text.endswith(";") and (
            not text.upper().startswith("CREATE TRIGGER") or text.upper().endswith("END;")
        ):
            out.append(text)
            current = []
    return out
