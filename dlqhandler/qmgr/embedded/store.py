"""On-disk home of an embedded queue manager: one SQLite database in WAL mode.

``$DLQHANDLER_HOME/qmgrs/NAME/`` holds ``qmgr.db`` (with its ``-wal``/``-shm``
files), ``turns`` (how waiting writers take turns, :class:`.hold.WriteTurns`)
and ``conns/``, where every live connection keeps an exclusive ``flock`` on
``<connection id>.lock`` for its whole life. Directories are 0700
and files 0600: messages are nobody else's business.

Messages keep their MQ state in their rows: a ``state`` (available, put
pending, taken, trigger pending) and an ``owner`` (the connection whose unit of
work it belongs to). A get under syncpoint marks a row taken, a put under
syncpoint inserts it put pending; MQCMIT deletes the taken rows and publishes
the pending ones, MQBACK restores the taken rows (BackoutCount + 1) and drops
the pending ones. A trigger message written for a FIRST or DEPTH trigger event
inside a unit of work is "trigger pending": the unit of work makes it
available when it ends, committed or backed out (see
:mod:`dlqhandler.qmgr.embedded.trigger`); ``trigger_state`` holds, per queue,
when the last trigger message was written (for TRIGINT).

**A unit of work is one SQLite write transaction** (one per hold, see below).
Its puts, its gets under syncpoint and, while it holds the lock, its browse
locks run inside one ``BEGIN IMMEDIATE`` transaction the connection holds
between MQI calls (a multi-statement call in a savepoint, so a failed call
undoes only itself); MQCMIT is its one durable commit, MQBACK commits the
restoring statements. The handler's browse-lock, put, get under cursor for a
batch of 50 messages is thus one transaction and one fsync.

The exception is the queue attribute HARDENBO. IBM MQ hardens the backout count
of a HARDENBO queue at every get under syncpoint, so that it survives a failure;
NOHARDENBO is IBM's default and lets the count "be lower than it should be"
(IBM documents the attribute as honoured on z/OS only; on distributed
platforms its queue manager, a separate process, always hardens it). Here the
queue manager lives in the application's process, so a killed application is
that failure: on a HARDENBO queue a get under syncpoint commits the held
transaction (its claim with it) before it returns - with an fsync for a
persistent message, so the count survives a power cut too - and a process
killed after MQGET gives the message back with BackoutCount + 1 (the
contract suite kills one right after the get); a rolled-back claim would leave
no trace to count. On a NOHARDENBO queue the claim stays in the held
transaction: a killed process still backs everything out (SQLite rolls the
open transaction back: the message is available again, its uncommitted puts
gone, nothing lost or duplicated) but its BackoutCount is not incremented
unless a hold had already ended with the claim in it (see below), as IBM
documents for NOHARDENBO. MQBACK always counts. dlqhandler's own queues are
NOHARDENBO: the handler, like runmqdlq, never reads BackoutCount (it keeps
its own attempt counts on the status queue, :mod:`dlqhandler.qmgr.attempts`),
and IBM defines SYSTEM.DEAD.LETTER.QUEUE NOHARDENBO; an application whose
logic depends on BackoutCount after a crash (a backout threshold) defines its
queue HARDENBO and pays one NORMAL commit per get.

Why keep the row states (a got message marked taken rather than deleted): a
hold is bounded (:mod:`.hold`: 250 ms, and any wait or call outside syncpoint
ends it), and what a unit of work has done when a hold ends must already be
MQ state other connections see - got messages invisible, uncommitted puts
invisible but counted in CURDEPTH - and a crash must back out; a plain
ROLLBACK could not count BackoutCount either. A hold that ends without MQCMIT
commits at NORMAL: NOHARDENBO claims become durable (and counted by a later
backout) lazily, the unit of work goes on in a new hold. While a hold is open,
other processes read the last committed state (WAL readers never wait): a
message got or locked in it is still seen by their browses and CURDEPTH, and
its puts are not yet counted, for at most one hold; any write of theirs (a get,
a browse lock, a put) waits for the lock and then sees the unit of work
exactly, so nothing is delivered twice; waiting writers take turns with the
holder (:class:`.hold.WriteTurns`); past the busy timeout the write fails with
MQRC_RESOURCE_PROBLEM. A browse lock taken outside a hold is a short
transaction of its own (what an application decides between browse and get
must not start a hold). Connections of one process see each other exactly
(:class:`_Guard`).

Against a bare SQLite durable move (``benchmarks/sqlite_move_floor.py``: 100 moves per
transaction) the handler's gap is the Python of the MQI calls and the handler, and this
schema's statements (four indexes and a depth trigger per row): not the number of
transactions (docs/performance.md; the figures in docs/performance-results.md).

Crash: SQLite rolls back the open transaction of a killed process; what its
earlier holds committed is owned by a dead connection (its lock file can be
locked by someone else), and :mod:`.recovery` backs that out.

Durability: ``synchronous=FULL`` (or, for a held transaction, which begins at
NORMAL because SQLite cannot change the level inside one, an fsync of the WAL
after COMMIT: the same single fsync) for every commit that makes the state of
a persistent message final (put or destructive get outside syncpoint, MQCMIT)
or hardens its claim (a get from a HARDENBO queue), ``NORMAL`` otherwise. In
WAL mode NORMAL survives a killed process but not a power cut, which is
exactly what any other claim or an uncommitted put needs: losing one is a
backout. The WAL is a log, so a power cut loses a suffix of
commits, never one in the middle.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.mq.constants import MQRC_RESOURCE_PROBLEM, MQRC_STORAGE_MEDIUM_FULL, mqi_error
from dlqhandler.qmgr.embedded.hold import BUSY_TIMEOUT, HOLD_LIMIT, HOLDERS, WriteTurns

__all__ = [
    "ALIASES_TABLE",
    "AVAILABLE",
    "DYNAMIC_TABLES",
    "INSERT_MESSAGE",
    "INSERT_MESSAGE_PROPS",
    "OBJECTS_TRIGGERS",
    "PUT_PENDING",
    "REMOTES_TABLE",
    "TAKEN",
    "TRIGGER_PENDING",
    "OnClosed",
    "QMgrPaths",
    "Rows",
    "Store",
    "check_home",
    "valid_qmgr_name",
]

SCHEMA_VERSION = 1
AVAILABLE, PUT_PENDING, TAKEN = 0, 1, 2  # messages.state (the schema spells TAKEN as 2)
TRIGGER_PENDING = 3  # a FIRST/DEPTH trigger message waiting for its unit of work to end
_COLUMNS = (
    "queue, priority, state, owner, msg_id, correl_id, group_id, msg_seq_number,"
    " seg_offset, msg_flags, persistent, put_clock, expiry, expires_at, md, body"
)
INSERT_MESSAGE = f"INSERT INTO messages ({_COLUMNS})"
# A message with its properties (see dlqhandler.qmgr.embedded.propctl): one more value.
INSERT_MESSAGE_PROPS = f"INSERT INTO messages ({_COLUMNS}, props)"
# Message properties, added to schema 1 later: added to older queue managers on connect.
_PROPS_COLUMN = "ALTER TABLE messages ADD COLUMN props BLOB"
OnClosed = Callable[[sqlite3.Connection, list[str]], None]

_QMGR_NAME = re.compile(r"[A-Za-z0-9._]{1,48}")

_TRIGGER_STATE = (
    "CREATE TABLE IF NOT EXISTS trigger_state (queue TEXT PRIMARY KEY,"
    " last_trigger REAL NOT NULL, triggers INTEGER NOT NULL)"
)
# Alias queues (DEFINE QALIAS), added to schema 1 later: created when missing.
ALIASES_TABLE = (
    "CREATE TABLE IF NOT EXISTS aliases (name TEXT PRIMARY KEY, attrs TEXT NOT NULL,"
    " created REAL NOT NULL, altered REAL NOT NULL)"
)
# Remote queue definitions and queue manager aliases (QREMOTE), added to schema 1 later:
# created when missing, as the aliases table is.
REMOTES_TABLE = (
    "CREATE TABLE IF NOT EXISTS remotes (name TEXT PRIMARY KEY, attrs TEXT NOT NULL,"
    " created REAL NOT NULL, altered REAL NOT NULL)"
)
# Model queues (DEFINE QMODEL) and the owners of temporary dynamic queues, added to schema
# 1 later: created when missing (see dlqhandler.qmgr.embedded.dynamic).
DYNAMIC_TABLES = (
    (
        "CREATE TABLE IF NOT EXISTS models (name TEXT PRIMARY KEY, attrs TEXT NOT NULL,"
        " created REAL NOT NULL, altered REAL NOT NULL)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS dynamic_owners (name TEXT PRIMARY KEY, conn TEXT NOT NULL,"
        " handle INTEGER NOT NULL)"
    ),
)
# Every change of a queue definition or an authority record counts up meta('objects'):
# what connections cache of them stays valid while the count does (messages moving on
# other connections do not touch it). Added to schema 1 later: created when missing.
_BUMP = "INSERT INTO meta VALUES ('objects', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1"
OBJECTS_TRIGGERS = tuple(
    f"CREATE TRIGGER IF NOT EXISTS objects_{table}_{event.split()[0].lower()} AFTER {event}"
    f" ON {table} BEGIN {_BUMP}; END"
    for table, events in (
        ("queues", ("INSERT", "UPDATE OF attrs", "DELETE")),
        ("authrecs", ("INSERT", "UPDATE", "DELETE")),
        ("aliases", ("INSERT", "UPDATE OF attrs", "DELETE")),
        ("remotes", ("INSERT", "UPDATE OF attrs", "DELETE")),
        ("models", ("INSERT", "UPDATE OF attrs", "DELETE")),
        ("qmgr_attrs", ("INSERT", "UPDATE", "DELETE")),  # (MAXUMSGS: see .lookups)
    )
    for event in events
)


def valid_qmgr_name(name: str) -> bool:
    """MQ queue manager names: 1-48 of ``A-Z a-z 0-9 . _`` (not ``.``/``..``)."""
    return bool(_QMGR_NAME.fullmatch(name)) and name not in (".", "..")


def _private_dir(path: Path, *, chmod: bool = True) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if chmod:
        os.chmod(path, 0o700)


def check_home(qmgrs_dir: Path) -> None:
    """ConfigError unless ``qmgrs_dir`` (``$DLQHANDLER_HOME/qmgrs``) is a directory or
    can be made one: the nearest of it and its parents that exists must be a directory.
    Every use of the home passes here, so a home that names a file (or sits under one)
    is said at once, rather than as a FileExistsError or an empty list."""
    for path in (qmgrs_dir, *qmgrs_dir.parents):
        if path.is_dir():
            return
        if path.exists() or path.is_symlink():
            home = qmgrs_dir.parent
            where = (
                f"DLQHANDLER_HOME={home} is a file, not a directory"
                if path == home
                else f"DLQHANDLER_HOME={home}: {path} is a file, not a directory, so the "
                f"folder of the embedded queue managers ({qmgrs_dir}) cannot be there"
            )
            raise ConfigError(
                f"{where}; set DLQHANDLER_HOME to a directory (it is created if missing), "
                "or move that file away"
            )


@dataclass(frozen=True, slots=True)
class QMgrPaths:
    """Where one queue manager lives on disk."""

    root: Path

    @classmethod
    def of(cls, qmgrs_dir: Path, name: str) -> QMgrPaths:
        """The paths of queue manager ``name``: ConfigError for a name MQ refuses, or a
        home that cannot hold queue managers (:func:`check_home`)."""
        if not valid_qmgr_name(name):
            raise ConfigError(f"invalid queue manager name {name!r}")
        check_home(qmgrs_dir)
        return cls(qmgrs_dir / name)

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def db(self) -> Path:
        return self.root / "qmgr.db"

    @property
    def conns(self) -> Path:
        return self.root / "conns"

    def lock_file(self, conn_id: str) -> Path:
        return self.conns / f"{conn_id}.lock"

    def exists(self) -> bool:
        return self.db.is_file()

    def create_files(self) -> None:
        """Make the folders (0700) and an empty database file (0600)."""
        _private_dir(self.root.parent.parent, chmod=False)  # $DLQHANDLER_HOME: not ours
        _private_dir(self.root.parent)
        self.root.mkdir(mode=0o700)
        os.chmod(self.root, 0o700)
        _private_dir(self.conns)
        fd = os.open(self.db, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)


class Store:
    """A SQLite connection to one queue manager's database, and its habits.

    Short transactions: :meth:`write` and :meth:`execute` are final when they
    return. The held transaction of a unit of work: :meth:`join` and :meth:`run`
    add to it (beginning it when there is none), :meth:`release` commits it
    (``durable``: and forces the WAL to disk). While it is held, a final
    transaction joins it and commits all of it. ``mutex`` serialises the
    connection's callers (and the hold watchdog, :mod:`.hold`); ``guard``
    takes it after asking the process's other connections to the same queue
    manager to release what they hold.
    """

    def __init__(self, paths: QMgrPaths, *, create: bool = False) -> None:
        self.paths = paths
        # Files SQLite creates itself (-wal, -shm) take the database's mode, but
        # keep the umask tight in case a platform differs.
        old_umask = os.umask(0o077)
        try:
            self.db = sqlite3.connect(
                paths.db, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
        finally:
            os.umask(old_umask)
        self._synchronous = ""
        self.mutex = threading.RLock()
        self.guard = _Guard(self)
        self.held_since: float | None = None  # monotonic time the held transaction began
        self.losses = 0  # held transactions SQLite rolled back (a failed commit, disk full)
        self.calls = 0  # MQI calls begun (guard entries): caches check once per call
        self._wal_fd: int | None = None
        try:
            self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self._set_sync(durable=False)
            if not create:
                self._check_schema()
                self.db.execute(_TRIGGER_STATE)  # added to schema 1 later: create if missing
                if not self.db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'aliases'"
                ).fetchone():
                    self.db.execute(ALIASES_TABLE)
                if not self.db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'remotes'"
                ).fetchone():
                    self.db.execute(REMOTES_TABLE)
                if not self.db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dynamic_owners'"
                ).fetchone():
                    for ddl in DYNAMIC_TABLES:
                        self.db.execute(ddl)
        except (sqlite3.DatabaseError, ConfigError) as exc:
            self.db.close()
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"{paths.db}: not a dlqhandler queue manager ({exc})") from exc
        self._turns = WriteTurns(paths.root / "turns")  # fair turns at the write lock
        if not create and self.db.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE"
            " 'objects\\_%' ESCAPE '\\'"
        ).fetchone()[0] < len(OBJECTS_TRIGGERS):
            with self.write(durable=True) as db:
                for ddl in OBJECTS_TRIGGERS:
                    db.execute(ddl)
        if not create and not self._has_props():
            with self.write(durable=True) as db:
                if not self._has_props():  # (another connection may have been first)
                    db.execute(_PROPS_COLUMN)
        HOLDERS.register(self)

    def _has_props(self) -> bool:
        return any(row[1] == "props" for row in self.db.execute("PRAGMA table_info(messages)"))

    def _check_schema(self) -> None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.OperationalError:
            row = None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise ConfigError(
                f"{self.paths.db}: not a dlqhandler queue manager "
                f"(schema {row[0] if row else 'missing'})"
            )

    def _set_sync(self, *, durable: bool) -> None:
        level = "FULL" if durable else "NORMAL"
        if level != self._synchronous:
            self.db.execute(f"PRAGMA synchronous = {level}")
            self._synchronous = level

    @property
    def holding(self) -> bool:
        """Whether a unit of work's transaction is open (this connection has the write lock)."""
        return self.held_since is not None

    @contextlib.contextmanager
    def join(self) -> Iterator[sqlite3.Connection]:
        """Statements of the held transaction (begun here when none is open).

        They run in a savepoint: a failure undoes them alone. A transaction held
        for longer than :data:`~.hold.HOLD_LIMIT` is released (committed) first.
        """
        with self.mutex, _as_mqi_error():
            self._begin()
            self.db.execute("SAVEPOINT uow")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK TO uow")
                    self.db.execute("RELEASE uow")
                else:  # SQLite rolled the whole transaction back (disk full...)
                    self._lost()
                raise
            self.db.execute("RELEASE uow")

    def run(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> Rows:
        """One statement in the held transaction (its rows read before it ends). A single
        statement needs no savepoint: SQLite undoes a failed statement by itself."""
        with self.mutex:  # (try blocks, not _as_mqi_error: this runs for every message)
            try:
                self._begin()
                try:
                    cursor = self.db.execute(sql, params)
                    return Rows(cursor.fetchall(), cursor.rowcount, cursor.lastrowid)
                except BaseException:
                    if not self.db.in_transaction:
                        self._lost()
                    raise
            except sqlite3.OperationalError as exc:
                raise _mqi_error(exc) from exc

    def _begin(self) -> None:
        """Make sure a held transaction is open (a new one when the old is past the limit)."""
        if self.held_since is not None and time.monotonic() - self.held_since >= HOLD_LIMIT:
            self.release(durable=False)
        if self.held_since is None and not self.db.in_transaction:
            self._set_sync(durable=False)
            self._turns.begin(self.db, BUSY_TIMEOUT)
            self.held_since = time.monotonic()
            HOLDERS.held(self)

    def next_attempt(self) -> None:
        """A waiting MQGET tries again: what the caches hold (queue definitions, inhibits,
        authorities) is checked anew, as for a new call (an ALTER GET(DISABLED) during the
        wait ends it with MQRC_GET_INHIBITED, as IBM's MQGMO_WAIT says)."""
        self.calls += 1

    def release(self, *, durable: bool) -> None:
        """Commit the held transaction, if any; ``durable``: as ``synchronous=FULL`` would.

        The transaction began at NORMAL (SQLite cannot change the level inside
        one), so a durable commit forces the WAL to disk itself after COMMIT:
        what ``FULL`` does, one fsync of the WAL.
        """
        with self.mutex:
            if self.held_since is None:
                return
            self.held_since = None
            HOLDERS.released(self)
            with _as_mqi_error():
                try:
                    self.db.execute("COMMIT")
                except sqlite3.Error:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                    self._lost()
                    raise
                if durable:
                    self._sync_wal()
            self._turns.let_go()

    def _lost(self) -> None:
        self.held_since = None
        HOLDERS.released(self)
        self.losses += 1

    def _sync_wal(self) -> None:
        if self._wal_fd is None:
            self._wal_fd = os.open(f"{self.paths.db}-wal", os.O_RDONLY)
            dir_fd = os.open(self.paths.root, os.O_RDONLY)
            try:
                os.fsync(dir_fd)  # the WAL file's own directory entry, once
            finally:
                os.close(dir_fd)
        os.fsync(self._wal_fd)

    @contextlib.contextmanager
    def write(self, *, durable: bool) -> Iterator[sqlite3.Connection]:
        """One write transaction, final when the block ends (with what is held, if any).

        SQLite failures (busy past the timeout, disk full) become MQIError.
        """
        with self.mutex:
            if self.held_since is not None:
                with self.join() as db:
                    yield db
                self.release(durable=durable)
                return
            with _as_mqi_error():
                self._set_sync(durable=durable)
                self._turns.begin(self.db, BUSY_TIMEOUT)
                try:
                    yield self.db
                except BaseException:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
                self._turns.let_go()

    def execute(
        self,
        sql: str,
        params: tuple[object, ...] | dict[str, object] = (),
        *,
        durable: bool = False,
    ) -> Rows:
        """One statement that writes, final when it returns (a transaction of its own,
        taking its turn, or the held one's commit)."""
        with self.mutex:
            if self.held_since is not None:
                rows = self.run(sql, params)
                self.release(durable=durable)
                return rows
            try:
                self._set_sync(durable=durable)
                self._turns.begin(self.db, BUSY_TIMEOUT)
                try:
                    cursor = self.db.execute(sql, params)
                    rows = Rows(cursor.fetchall(), cursor.rowcount, cursor.lastrowid)
                    self.db.execute("COMMIT")
                except BaseException:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                    raise
                self._turns.let_go()
                return rows
            except sqlite3.OperationalError as exc:
                raise _mqi_error(exc) from exc

    def mark(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> Rows:
        """A browse lock's statement (MQGMO_LOCK, or its release): in the held transaction
        when one is open (other processes see it when the hold ends, and a write of theirs
        waits for that anyway), else final at once at NORMAL."""
        with self.mutex:
            if self.held_since is not None:
                return self.run(sql, params)
            return self.execute(sql, params)

    def data_version(self) -> int:
        """Changes when another connection commits (cheap: no disk I/O)."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def objects_version(self) -> int:
        """Changes when any connection changes a queue definition or authority record."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'objects'").fetchone()
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        HOLDERS.unregister(self)
        self.held_since = None
        self._turns.close()
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None
        self.db.close()


class Rows:
    """A statement's rows, read before its savepoint or transaction ended."""

    def __init__(self, rows: list[Any], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> Any:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[Any]:
        return self._rows


class _Guard:
    """``with store.guard:`` - the other connections of this process to the same queue
    manager release what they hold (so this one sees their units of work as other
    processes will), then this connection's mutex is taken."""

    __slots__ = ("_store",)

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> None:
        HOLDERS.release_neighbours(self._store)
        self._store.mutex.acquire()
        self._store.calls += 1

    def __exit__(self, *exc: object) -> None:
        self._store.mutex.release()


@contextlib.contextmanager
def _as_mqi_error() -> Iterator[None]:
    """SQLite's operational failures as the MQ reasons a queue manager gives."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise _mqi_error(exc) from exc


def _mqi_error(exc: sqlite3.OperationalError) -> MQIError:
    full = "full" in str(exc)
    return mqi_error(MQRC_STORAGE_MEDIUM_FULL if full else MQRC_RESOURCE_PROBLEM, f"SQLite: {exc}")
