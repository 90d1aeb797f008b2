"""Liveness of connections and crash recovery: backing out what dead connections left.

Every live connection holds an exclusive ``flock`` on ``conns/<id>.lock``. A
lock file someone else can lock belongs to a dead connection (a killed
process leaves it behind, unlocked): :func:`recover_dead_connections` backs
its unit of work out. Whatever a dead connection had not yet committed to
SQLite (its open write transaction) SQLite itself rolled back; what it had
(claims, uncommitted puts, browse locks, handles) is undone here.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Mapping

from dlqhandler.qmgr.embedded.dynamic import reap_orphans
from dlqhandler.qmgr.embedded.store import (
    AVAILABLE,
    PUT_PENDING,
    TAKEN,
    TRIGGER_PENDING,
    OnClosed,
    QMgrPaths,
    Store,
)

__all__ = ["backout_owner", "connection_alive", "hold_lock_file", "recover_dead_connections"]

_TMP_GRACE = 60.0  # seconds before an unlocked <id>.tmp counts as a dead process's


def hold_lock_file(paths: QMgrPaths, conn_id: str, owner: Mapping[str, object]) -> int:
    """Create ``conns/<id>.lock`` already locked (lock a temporary name, then rename);
    returns the descriptor to keep open for the connection's life.

    The file holds ``owner`` as JSON (PID, user, program), which DISPLAY QSTATUS
    TYPE(HANDLE) shows."""
    tmp = paths.conns / f"{conn_id}.tmp"
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, json.dumps(dict(owner)).encode())
    os.rename(tmp, paths.lock_file(conn_id))
    return fd


def connection_alive(paths: QMgrPaths, conn_id: str) -> bool:
    """True while the connection holds its lock file (checked with a non-blocking flock)."""
    try:
        fd = os.open(paths.lock_file(conn_id), os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def backout_owner(
    store: Store, conn_id: str, *, on_closed: OnClosed | None = None
) -> tuple[int, int]:
    """Back out ``conn_id``'s unit of work; drop its locks and handles.

    Its pending trigger messages become available (a backout does that too).
    ``on_closed`` runs in the same transaction with the queues the connection
    had open for input, after its handles are gone (triggering reacts to
    that close). Returns (messages restored, uncommitted puts removed).
    """
    with store.write(durable=False) as db:
        restored = db.execute(
            "UPDATE messages SET state = ?, owner = NULL, backout_count = backout_count + 1,"
            " lock_conn = NULL, lock_handle = NULL WHERE owner = ? AND state = ?",
            (AVAILABLE, conn_id, TAKEN),
        ).rowcount
        removed = db.execute(
            "DELETE FROM messages WHERE owner = ? AND state = ?", (conn_id, PUT_PENDING)
        ).rowcount
        db.execute(
            "UPDATE messages SET state = ?, owner = NULL WHERE owner = ? AND state = ?",
            (AVAILABLE, conn_id, TRIGGER_PENDING),
        )
        db.execute(
            "UPDATE messages SET lock_conn = NULL, lock_handle = NULL WHERE lock_conn = ?",
            (conn_id,),
        )
        closed = [
            r[0]
            for r in db.execute(
                "SELECT DISTINCT queue FROM handles WHERE conn = ? AND input ORDER BY queue",
                (conn_id,),
            )
        ]
        db.execute("DELETE FROM handles WHERE conn = ?", (conn_id,))
        reap_orphans(db)  # its temporary dynamic queues go with its handles
        if closed and on_closed is not None:
            on_closed(db, closed)
    return restored, removed


def recover_dead_connections(
    store: Store, self_id: str, *, scan_db: bool, on_closed: OnClosed | None = None
) -> list[str]:
    """Back out the units of work of every dead connection; returns their ids.

    Dead connections are found by their lock files in ``conns/`` (a killed
    process leaves its file behind, unlocked) and, with ``scan_db``, also by
    the owners named in the database (message owners, lock holders, open
    handles), for a connection whose lock file is gone. A dead connection's
    lock file stays locked while its work is backed out, then is removed.
    ``on_closed`` is passed to :func:`backout_owner`.
    """
    owners: set[str] = set()
    if store.paths.conns.is_dir():
        owners.update(p.stem for p in store.paths.conns.glob("*.lock"))
    if scan_db:
        _remove_stale_temporaries(store.paths)
        owners.update(
            r[0]
            for r in store.db.execute(
                "SELECT owner FROM messages WHERE owner IS NOT NULL"
                " UNION SELECT lock_conn FROM messages WHERE lock_conn IS NOT NULL"
                " UNION SELECT conn FROM handles"
            )
        )
    owners.discard(self_id)
    dead: list[str] = []
    for conn_id in sorted(owners):
        path = store.paths.lock_file(conn_id)
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            backout_owner(store, conn_id, on_closed=on_closed)
            dead.append(conn_id)
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # alive
            backout_owner(store, conn_id, on_closed=on_closed)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            dead.append(conn_id)
        finally:
            os.close(fd)
    return dead


def _remove_stale_temporaries(paths: QMgrPaths) -> None:
    """Remove ``<id>.tmp`` lock files a process died with before renaming them.

    Only old ones: a connection being made creates its file, then locks it - in
    between, an unlocked new file is no sign of a dead process."""
    now = time.time()
    for tmp in paths.conns.glob("*.tmp"):
        try:
            if now - tmp.stat().st_mtime < _TMP_GRACE:
                continue
            fd = os.open(tmp, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # being created right now
        else:
            tmp.unlink(missing_ok=True)
        finally:
            os.close(fd)
