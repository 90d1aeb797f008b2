"""Embedded queue manager throughput next to bare SQLite on the same disk.

``python benchmarks/qmgr.py [--messages N] [--dir PATH]``

Every message is persistent, 512 bytes. The queue manager runs WAL with
``synchronous=FULL`` for every transaction that makes a persistent message's
state final (a put or get outside syncpoint, a commit) and ``NORMAL`` for the
rest (a unit of work's hold ending before its commit, which a crash backs out
anyway); its queues are NOHARDENBO, so a unit of work is one transaction. The
baseline is a bare SQLite table in the same folder with the same settings
(WAL, FULL), doing the equivalent work with nothing else: one INSERT per put,
one DELETE ... RETURNING per get, and per unit of work a transaction of
DELETE + INSERT pairs. Ratios are queue manager / bare SQLite.

Measured:

* ``put``: MQPUT1 outside syncpoint (each one durable on its own);
* ``get``: destructive MQGET outside syncpoint;
* ``move_1``/``move_100``: get + put under syncpoint, then MQCMIT, with 1 and
  100 messages per unit of work (what the DLQ handler does per message/batch).

:func:`run` returns the figures as a dict; ``main`` prints them.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, connect, create_qmgr

BODY = b"x" * 512
QMGR = "BENCH"


def _rate(count: int, work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return count / (time.perf_counter() - started)


def _bare(folder: Path, n: int, batch: int) -> dict[str, float]:
    db = sqlite3.connect(folder / "bare.db", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, queue TEXT, body BLOB)")
    db.execute("CREATE INDEX by_queue ON messages (queue, id)")
    take = (
        "DELETE FROM messages WHERE id = (SELECT id FROM messages WHERE queue = ?"
        " ORDER BY id LIMIT 1) RETURNING body"
    )

    def put() -> None:
        for _ in range(n):
            db.execute("INSERT INTO messages (queue, body) VALUES ('A', ?)", (BODY,))

    def get() -> None:
        for _ in range(n):
            db.execute(take, ("A",)).fetchone()

    out = {"put": _rate(n, put), "get": _rate(n, get)}
    put()
    out["move_1"] = _rate(n, lambda: _bare_moves(db, take, n, 1))
    db.execute("DELETE FROM messages")
    for _ in range(batch):
        db.execute("INSERT INTO messages (queue, body) VALUES ('A', ?)", (BODY,))
    out["move_100"] = _rate(batch, lambda: _bare_moves(db, take, batch, 100))
    db.close()
    return out


def _bare_moves(db: sqlite3.Connection, take: str, count: int, per_uow: int) -> None:
    for _ in range(count // per_uow):
        db.execute("BEGIN IMMEDIATE")
        for _ in range(per_uow):
            (body,) = db.execute(take, ("A",)).fetchone()
            db.execute("INSERT INTO messages (queue, body) VALUES ('B', ?)", (body,))
        db.execute("COMMIT")


def _qmgr(folder: Path, n: int, batch: int) -> dict[str, float]:
    create_qmgr(folder, QMGR)
    qm = connect(QMGR, home=folder)
    admin = qm.admin()
    for name in ("A", "B"):
        admin.define_queue(name, {"MAXDEPTH": 10**6})
    message = Message(MQMD(persistence=1, format="MQSTR"), BODY)
    now, uow = PutOptions(syncpoint=False), PutOptions(syncpoint=True)
    qa, qb = qm.open("A", output=True), qm.open("B", output=True)

    def put() -> None:
        for _ in range(n):
            qm.put1("A", message, now)

    def get() -> None:
        for _ in range(n):
            qa.get(GetOptions(syncpoint=False))

    def move(count: int, per_uow: int) -> Callable[[], None]:
        def work() -> None:
            for _ in range(count // per_uow):
                for _ in range(per_uow):
                    qb.put(qa.get(GetOptions(syncpoint=True)), uow)
                qm.commit()

        return work

    out = {"put": _rate(n, put), "get": _rate(n, get)}
    put()
    out["move_1"] = _rate(n, move(n, 1))
    qa.close()
    qb.close()
    admin.clear_queue("A")
    admin.clear_queue("B")
    qa, qb = qm.open("A", output=True), qm.open("B", output=True)
    for _ in range(batch):
        qm.put1("A", message, now)
    out["move_100"] = _rate(batch, move(batch, 100))
    qm.disconnect()
    return out


def _best(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {k: max(a.get(k, 0.0), v) for k, v in b.items()}


def run(
    messages: int = 1000, batch_messages: int = 5000, folder: Path | None = None, rounds: int = 2
) -> dict[str, Any]:
    """Measure; returns rates (messages/s) for both and their ratios.

    fsync times wander, so the two run alternately ``rounds`` times and the best
    rate of each counts.
    """
    batch = max(100, batch_messages - batch_messages % 100)
    bare: dict[str, float] = {}
    qmgr: dict[str, float] = {}
    for _ in range(max(1, rounds)):
        root = Path(tempfile.mkdtemp(prefix="dlqhandler-bench-", dir=folder))
        try:
            bare = _best(bare, _bare(root, messages, batch))
            qmgr = _best(qmgr, _qmgr(root / "home", messages, batch))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return {
        "messages": messages,
        "batch_messages": batch,
        "rounds": rounds,
        "body_bytes": len(BODY),
        "durability": "WAL, synchronous=FULL at every commit of persistent state",
        "qmgr": qmgr,
        "sqlite": bare,
        "ratio": {k: qmgr[k] / bare[k] for k in qmgr},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--batch-messages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="where to put the databases (default: the temp folder)",
    )
    args = parser.parse_args()
    result = run(args.messages, args.batch_messages, args.dir, args.rounds)
    print(
        f"{result['messages']} persistent {result['body_bytes']}-byte messages"
        f" ({result['batch_messages']} for move_100), best of {result['rounds']} rounds;"
        f" {result['durability']}"
    )
    print(f"{'operation':<12}{'qmgr msg/s':>14}{'sqlite msg/s':>16}{'ratio':>9}")
    for key in ("put", "get", "move_1", "move_100"):
        print(
            f"{key:<12}{result['qmgr'][key]:>14.0f}{result['sqlite'][key]:>16.0f}"
            f"{result['ratio'][key]:>9.2f}"
        )


if __name__ == "__main__":
    main()
