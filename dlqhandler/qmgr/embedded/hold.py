"""How long a unit of work may hold the queue manager's write lock, and who ends a hold.

A unit of work is one SQLite write transaction (:mod:`.store`): while it is
open, its connection has the database's only write lock. Four things end a
hold besides MQCMIT and MQBACK, which commit it:

* a hold older than :data:`HOLD_LIMIT` is committed (at ``synchronous=NORMAL``:
  what it contains is uncommitted MQ work, which a crash backs out anyway) by
  the connection's next call, or within half as long again by the watchdog
  thread here when the application makes no call;
* another connection of the same process to the same queue manager starts an
  MQI call: it sees the unit of work exactly as another process would after
  the hold ends (got messages gone, uncommitted puts counted in CURDEPTH);
* a wait (MQGET with a wait interval that finds nothing) and any call outside
  syncpoint commit the hold first (a browse lock, MQGMO_LOCK, or its release
  joins it instead: the lock is no MQ state a crash must keep);
* on a HARDENBO queue, a get under syncpoint commits it (:mod:`.store`).

A hold that ends without MQCMIT commits whatever the unit of work has done so
far (claims of gets from NOHARDENBO queues among it) at ``synchronous=NORMAL``
(a HARDENBO get of a persistent message: durably), and the unit of work goes on
in a new hold.

Meanwhile other processes read the last committed state (WAL readers never
wait), and their writes wait in SQLite's busy handler; past
:data:`BUSY_TIMEOUT` (far longer than any hold) the call fails with
MQRC_RESOURCE_PROBLEM (2102), which is what IBM MQ returns when the queue
manager cannot get a resource it needs: the caller backs out and retries.

Turns (:class:`WriteTurns`): SQLite's busy handler is no queue - a waiting
writer sleeps, longer each time, and tries again, and a process that commits
and begins its next unit of work at once could take the lock back before any
waiter woke, again and again (three consumers of one queue: one got
everything). So a write that has waited :data:`STARVED` in the busy handler
says so (a shared ``flock`` on the queue manager's ``turns`` file) and tries
every :data:`POLL` seconds; a connection that lets go of the lock while a turn
is asked leaves it free for :data:`YIELD` before it takes it again. Waiters
that are not starved sleep as SQLite makes them (polling from the first busy
try would wake every waiter thousands of times a second, on cores the holder
needs). A process alone pays two PRAGMAs and two system calls per hold.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path
from typing import Protocol

__all__ = [
    "BUSY_TIMEOUT",
    "HOLDERS",
    "HOLD_LIMIT",
    "POLL",
    "STARVED",
    "YIELD",
    "Holder",
    "Holders",
    "WriteTurns",
]

HOLD_LIMIT = 0.25  # seconds a unit of work's transaction may stay open
BUSY_TIMEOUT = 30.0  # seconds a write waits for the lock before MQRC_RESOURCE_PROBLEM
STARVED = 0.05  # seconds a write waits in SQLite's busy handler before it asks for a turn
POLL = 0.0005  # seconds between the tries of a write that asked for a turn
YIELD = 0.001  # seconds the lock is left free by one that let go of it while a turn was asked


class WriteTurns:
    """Fair turns at the write lock between processes (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        old_umask = os.umask(0o077)
        try:
            self._fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        finally:
            os.umask(old_umask)
        self.owed = False  # someone waited when this connection last let go
        self._let_go_at = 0.0  # monotonic time of that let-go

    def begin(self, db: sqlite3.Connection, busy_timeout: float) -> None:
        """``BEGIN IMMEDIATE``, waiting for the lock as SQLite does for up to
        :data:`STARVED`, then as a waiter that says so, until ``busy_timeout`` seconds
        (then SQLite's "database is locked")."""
        if self.owed:
            # The waiter's window: YIELD from the let-go, of which the work this process
            # did meanwhile without the lock (logging what it committed...) is part.
            self.owed = False
            rest = YIELD - (time.monotonic() - self._let_go_at)
            if rest > 0:
                time.sleep(rest)
        deadline = time.monotonic() + busy_timeout
        db.execute(f"PRAGMA busy_timeout = {int(min(STARVED, busy_timeout) * 1000)}")
        try:
            if _began(db, deadline):
                return
            db.execute("PRAGMA busy_timeout = 0")
            fcntl.flock(self._fd, fcntl.LOCK_SH)
            try:
                while not _began(db, deadline):
                    time.sleep(POLL)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")

    def let_go(self) -> None:
        """After a commit: remember whether another process is waiting for the lock."""
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.owed = True
            self._let_go_at = time.monotonic()
        else:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)


def _began(db: sqlite3.Connection, deadline: float) -> bool:
    """``BEGIN IMMEDIATE``; False when the lock is taken and ``deadline`` is not past
    (SQLite's "database is locked" is raised after it)."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if not _busy(exc) or time.monotonic() >= deadline:
            raise
        return False
    return True


def _busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


class Holder(Protocol):
    """What the watchdog needs of a connection's store."""

    @property
    def mutex(self) -> threading.RLock: ...

    @property
    def held_since(self) -> float | None: ...

    @property
    def paths(self) -> object: ...

    def release(self, *, durable: bool) -> None: ...


class Holders:
    """The process's stores: which hold a transaction, and the watchdog that ends old holds."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._stores: dict[str, weakref.WeakSet[Holder]] = {}
        self._holding: set[Holder] = set()
        self._thread: threading.Thread | None = None

    def register(self, store: Holder) -> None:
        with self._cond:
            key = str(getattr(store.paths, "db", store.paths))
            self._stores.setdefault(key, weakref.WeakSet()).add(store)

    def unregister(self, store: Holder) -> None:
        with self._cond:
            key = str(getattr(store.paths, "db", store.paths))
            peers = self._stores.get(key)
            if peers is not None:
                peers.discard(store)
                if not peers:
                    del self._stores[key]
            self._holding.discard(store)

    def held(self, store: Holder) -> None:
        with self._cond:
            self._holding.add(store)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="qmgr-hold-watch", daemon=True
                )
                self._thread.start()

    def released(self, store: Holder) -> None:
        with self._cond:
            self._holding.discard(store)

    def release_neighbours(self, store: Holder) -> None:
        """Commit what the process's other connections to ``store``'s queue manager hold.

        A neighbour busy in another thread is left to finish (its own next call or the
        watchdog ends its hold): waiting for it here could deadlock.
        """
        if not self._holding or self._holding == {store}:
            return
        key = str(getattr(store.paths, "db", store.paths))
        with self._cond:
            peers = [
                s
                for s in self._holding
                if s is not store and str(getattr(s.paths, "db", s.paths)) == key
            ]
        for peer in peers:
            _release_if_free(peer)

    def _watch(self) -> None:
        """Every half hold limit, end the holds that are past it. (It polls: waking a
        thread for each unit of work would cost more than the work, the GIL passing.)"""
        while True:
            time.sleep(HOLD_LIMIT / 2)
            with self._cond:
                now = time.monotonic()
                due = [
                    s
                    for s in self._holding
                    if (since := s.held_since) is not None and now - since >= HOLD_LIMIT
                ]
            for store in due:
                _release_if_free(store)

    def _after_fork(self) -> None:
        self._cond = threading.Condition()
        self._stores = {}
        self._holding = set()
        self._thread = None


def _release_if_free(store: Holder) -> None:
    if not store.mutex.acquire(blocking=False):
        return
    try:
        if store.held_since is not None:
            store.release(durable=False)
    except Exception:
        return
    finally:
        store.mutex.release()


HOLDERS = Holders()
os.register_at_fork(after_in_child=HOLDERS._after_fork)
