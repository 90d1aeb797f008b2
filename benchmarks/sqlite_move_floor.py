"""A floor for the handler: a durable DLQ move in bare SQLite on this disk, no dlqhandler.

    python benchmarks/sqlite_move_floor.py [MESSAGES]

One table, one index, WAL and ``synchronous=FULL`` (the embedded queue manager's
durability); ``MESSAGES`` (default 20,000) messages of a 364-byte MQMD and a 1 KiB body are
moved from ``DLQ`` to ``TARGET``, 100 per transaction: select the oldest, delete it, insert
it under the target, commit per 100. Prints messages/second (the last word of its output).

A handler does this and more (an MQI call per step, a decision, logs), so it cannot beat
it; its ratio to this floor is what the rest costs. ``benchmarks/handler.py`` runs it before
and after ``dlqhandler run`` in the same process tree and keeps the better figure.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

BATCH = 100


def move_rate(messages: int = 20_000, batch: int = BATCH) -> float:
    """Messages per second for a durable move of ``messages`` messages, ``batch`` per
    transaction, in a fresh database in a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="dlq-sqlite-floor-") as tmp:
        db = sqlite3.connect(Path(tmp) / "q.db", isolation_level=None)
        try:
            db.execute("pragma journal_mode=wal")
            db.execute("pragma synchronous=FULL")
            db.execute("create table m(id integer primary key, q text, md blob, body blob)")
            db.execute("create index m_q on m(q, id)")
            md, body = os.urandom(364), os.urandom(1024)
            db.execute("begin")
            db.executemany(
                "insert into m(q, md, body) values ('DLQ', ?, ?)", [(md, body)] * messages
            )
            db.execute("commit")
            start = time.perf_counter()
            moved = 0
            while moved < messages:
                db.execute("begin immediate")
                for _ in range(min(batch, messages - moved)):
                    row = db.execute(
                        "select id, md, body from m where q = 'DLQ' order by id limit 1"
                    ).fetchone()
                    db.execute("delete from m where id = ?", (row[0],))
                    db.execute(
                        "insert into m(q, md, body) values ('TARGET', ?, ?)", (row[1], row[2])
                    )
                    moved += 1
                db.execute("commit")
            return messages / (time.perf_counter() - start)
        finally:
            db.close()


if __name__ == "__main__":
    print(f"{move_rate(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000):.0f}")
