"""On-disk home of an embedded queue manager: one SQLite database in WAL mode.

``$DLQHANDLER_HOME/qmgrs/NAME/`` holds ``qmgr.db`` (with its ``-wal``/``-shm``
files) and ``conns/``, where every live connection keeps an exclusive
``flock`` on ``<connection id>.lock`` for its whole life. Directories are 0700
and files 0600: messages are nobody else's business.

Units of work never hold a SQLite write lock between MQI calls. A message row
has a ``state`` (available, put pending, taken, trigger pending) and an
``owner`` (the connection whose unit of work it belongs to); each MQI call is
one short SQLite transaction. A trigger message written for a FIRST or DEPTH
trigger event inside a unit of work is "trigger pending": the unit of work
makes it available when it ends, committed or backed out (see
:mod:`dlqhandler.qmgr.embedded.trigger`); ``trigger_state`` holds, per queue, when the
last trigger message was written (for TRIGINT). A connection whose lock file
can be locked by someone else is dead, and :func:`recover_dead_connections`
backs its unit of work out.

Durability: ``synchronous=FULL`` for every transaction that makes the state of
a persistent message final (put outside syncpoint, commit, destructive get
outside syncpoint), ``NORMAL`` otherwise. In WAL mode NORMAL survives a killed
process but not a power cut, which is exactly what a claim or an uncommitted
put needs: losing one is a backout.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dlqhandler.errors import ConfigError
from dlqhandler.mq.constants import MQRC_RESOURCE_PROBLEM, MQRC_STORAGE_MEDIUM_FULL, mqi_error

__all__ = [
    "AVAILABLE",
    "INSERT_MESSAGE",
    "PUT_PENDING",
    "TAKEN",
    "TRIGGER_PENDING",
    "QMgrPaths",
    "Store",
    "backout_owner",
    "connection_alive",
    "initialise",
    "recover_dead_connections",
    "valid_qmgr_name",
]

SCHEMA_VERSION = 1
AVAILABLE, PUT_PENDING, TAKEN = 0, 1, 2  # messages.state (the schema spells TAKEN as 2)
TRIGGER_PENDING = 3  # a FIRST/DEPTH trigger message waiting for its unit of work to end
INSERT_MESSAGE = ("INSERT INTO messages (queue, priority, state, owner, msg_id, correl_id,"
                  " group_id, msg_seq_number, seg_offset, msg_flags, persistent, put_clock,"
                  " expiry, expires_at, md, body)")
OnClosed = Callable[[sqlite3.Connection, list[str]], None]

_QMGR_NAME = re.compile(r"[A-Za-z0-9._]{1,48}")

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
    body BLOB NOT NULL
);
-- Every index is paid for on each put and commit: only the ones gets need. Delivery
-- order is (priority DESC, id) on every queue: a FIFO queue stores DEFPRTY as the
-- ordering priority, as MQ does. Group members (any group or segment flag) only.
CREATE INDEX messages_in_order ON messages (queue, priority DESC, id);
CREATE INDEX messages_by_msg_id ON messages (queue, msg_id);
CREATE INDEX messages_by_correl_id ON messages (queue, correl_id);
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


_TRIGGER_STATE = ("CREATE TABLE IF NOT EXISTS trigger_state (queue TEXT PRIMARY KEY,"
                  " last_trigger REAL NOT NULL, triggers INTEGER NOT NULL)")


def valid_qmgr_name(name: str) -> bool:
    """MQ queue manager names: 1-48 of ``A-Z a-z 0-9 . _`` (not ``.``/``..``)."""
    return bool(_QMGR_NAME.fullmatch(name)) and name not in (".", "..")


def _private_dir(path: Path, *, chmod: bool = True) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if chmod:
        os.chmod(path, 0o700)


@dataclass(frozen=True, slots=True)
class QMgrPaths:
    """Where one queue manager lives on disk."""

    root: Path

    @classmethod
    def of(cls, qmgrs_dir: Path, name: str) -> QMgrPaths:
        if not valid_qmgr_name(name):
            raise ConfigError(f"invalid queue manager name {name!r}")
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
    """A SQLite connection to one queue manager's database, and its habits."""

    def __init__(self, paths: QMgrPaths, *, create: bool = False) -> None:
        self.paths = paths
        # Files SQLite creates itself (-wal, -shm) take the database's mode, but
        # keep the umask tight in case a platform differs.
        old_umask = os.umask(0o077)
        try:
            self.db = sqlite3.connect(paths.db, timeout=60.0, isolation_level=None,
                                      check_same_thread=False)
        finally:
            os.umask(old_umask)
        self._synchronous = ""
        try:
            self.db.execute("PRAGMA busy_timeout = 60000")
            self.db.execute("PRAGMA journal_mode = WAL")
            self._set_sync(durable=False)
            if not create:
                self._check_schema()
                self.db.execute(_TRIGGER_STATE)  # added to schema 1 later: create if missing
        except (sqlite3.DatabaseError, ConfigError) as exc:
            self.db.close()
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"{paths.db}: not a dlqhandler queue manager ({exc})") from exc

    def _check_schema(self) -> None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.OperationalError:
            row = None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise ConfigError(f"{self.paths.db}: not a dlqhandler queue manager "
                              f"(schema {row[0] if row else 'missing'})")

    def _set_sync(self, *, durable: bool) -> None:
        level = "FULL" if durable else "NORMAL"
        if level != self._synchronous:
            self.db.execute(f"PRAGMA synchronous = {level}")
            self._synchronous = level

    @contextlib.contextmanager
    def write(self, *, durable: bool) -> Iterator[sqlite3.Connection]:
        """One short write transaction (BEGIN IMMEDIATE ... COMMIT).

        SQLite failures (busy past the timeout, disk full) become MQIError.
        """
        with _as_mqi_error():
            self._set_sync(durable=durable)
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def execute(self, sql: str, params: tuple[object, ...] | dict[str, object] = (), *,
                durable: bool = False) -> sqlite3.Cursor:
        """One autocommit statement (a transaction of its own)."""
        with _as_mqi_error():
            self._set_sync(durable=durable)
            return self.db.execute(sql, params)

    def data_version(self) -> int:
        """Changes when another connection commits (cheap: no disk I/O)."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        self.db.close()


@contextlib.contextmanager
def _as_mqi_error() -> Iterator[None]:
    """SQLite's operational failures as the MQ reasons a queue manager gives."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        full = "full" in str(exc)
        raise mqi_error(MQRC_STORAGE_MEDIUM_FULL if full else MQRC_RESOURCE_PROBLEM,
                        f"SQLite: {exc}") from exc


def initialise(store: Store, *, name: str, attrs: dict[str, str]) -> None:
    """Create the schema and the queue manager object's attributes."""
    statements = [s.strip() for s in _split_sql(_SCHEMA) if s.strip()]
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
        if text.endswith(";") and (not text.upper().startswith("CREATE TRIGGER")
                                   or text.upper().endswith("END;")):
            out.append(text)
            current = []
    return out


# -- liveness and crash recovery -------------------------------------------------

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


def backout_owner(store: Store, conn_id: str, *, on_closed: OnClosed | None = None
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
            (AVAILABLE, conn_id, TAKEN)).rowcount
        removed = db.execute("DELETE FROM messages WHERE owner = ? AND state = ?",
                             (conn_id, PUT_PENDING)).rowcount
        db.execute("UPDATE messages SET state = ?, owner = NULL WHERE owner = ? AND state = ?",
                   (AVAILABLE, conn_id, TRIGGER_PENDING))
        db.execute("UPDATE messages SET lock_conn = NULL, lock_handle = NULL"
                   " WHERE lock_conn = ?", (conn_id,))
        closed = [r[0] for r in db.execute(
            "SELECT DISTINCT queue FROM handles WHERE conn = ? AND input ORDER BY queue",
            (conn_id,))]
        db.execute("DELETE FROM handles WHERE conn = ?", (conn_id,))
        if closed and on_closed is not None:
            on_closed(db, closed)
    return restored, removed


def recover_dead_connections(store: Store, self_id: str, *, scan_db: bool,
                             on_closed: OnClosed | None = None) -> list[str]:
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
        owners.update(r[0] for r in store.db.execute(
            "SELECT owner FROM messages WHERE owner IS NOT NULL"
            " UNION SELECT lock_conn FROM messages WHERE lock_conn IS NOT NULL"
            " UNION SELECT conn FROM handles"))
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
    """Remove ``<id>.tmp`` lock files a process died with before renaming them."""
    for tmp in paths.conns.glob("*.tmp"):
        try:
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
