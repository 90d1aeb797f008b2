"""Administration of an embedded queue manager: what MQSC commands change.

Local queues, the queue manager object, process definitions (used by
triggering) and authority records. Defining (REPLACE) or altering a queue
evaluates the trigger events a change can cause (conditions 13, 13.1, 13.2
of :mod:`dlqhandler.qmgr.embedded.trigger`) in the same transaction.
Failures raise :class:`AdminError`
carrying the AMQ message runmqsc prints (``AMQ8147E: IBM MQ object X not
found.``).

Authority records are simpler than MQ's object authority manager: a record
is (profile, principal, authorities). When any record whose generic profile
matches the queue exists for a principal, an operation needs its authority
(PUT, GET, BROWSE) in the union of those records; when none exists, it is
allowed. There are no groups, and principals compare case-insensitively.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dlqhandler.errors import DLQHandlerError
from dlqhandler.mq.constants import MQRC_UNKNOWN_OBJECT_NAME, mqi_error
from dlqhandler.qmgr.embedded.dynamic import model_attrs, queue_exists
from dlqhandler.qmgr.embedded.objects import (
    ALIAS_ATTRS,
    MODEL_ATTRS,
    PROCESS_ATTRS,
    QMGR_ATTRS,
    QUEUE_ATTRS,
    REMOTE_ATTRS,
    Value,
    defaults,
    generic_match,
)
from dlqhandler.qmgr.embedded.qstatus import HandleStatus, QueueStatus, handle_status, queue_status
from dlqhandler.qmgr.embedded.store import AVAILABLE, Store
from dlqhandler.qmgr.embedded.trigger import Triggers

__all__ = ["Admin", "AdminError", "AuthRecord", "ObjectRecord", "authorised", "valid_name"]

_OBJECT_NAME = re.compile(r"[A-Za-z0-9._/%]{1,48}")
# The SQL of Admin's helpers for definitions kept as JSON rows of a table of their own
# (name, attrs, created, altered): the table names are these constants, values are bound.
_DEFINITION_SQL = {
    table: {
        "find": f"SELECT attrs FROM {table} WHERE name = ?",  # noqa: S608
        "update": f"UPDATE {table} SET attrs = ?, altered = ? WHERE name = ?",  # noqa: S608
        "insert": f"INSERT INTO {table} VALUES (?, ?, ?, ?)",  # noqa: S608
        "delete": f"DELETE FROM {table} WHERE name = ?",  # noqa: S608
    }
    for table in ("remotes", "models")
}


def valid_name(name: str) -> bool:
    """MQ object names: 1-48 of ``A-Z a-z 0-9 . _ / %``."""
    return bool(_OBJECT_NAME.fullmatch(name))


class AdminError(DLQHandlerError):
    """An admin command that failed; ``amq`` is the runmqsc message id."""

    def __init__(self, amq: str, text: str) -> None:
        super().__init__(f"{amq}: {text}")
        self.amq = amq
        self.text = text


def _is_model(db: sqlite3.Connection, name: str) -> bool:
    """Whether ``name`` is a model queue (QMODEL): queues of every type share one
    namespace."""
    return db.execute("SELECT 1 FROM models WHERE name = ?", (name,)).fetchone() is not None


def _is_alias(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM aliases WHERE name = ?", (name,)).fetchone() is not None


def _is_remote(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM remotes WHERE name = ?", (name,)).fetchone() is not None


def _not_found(name: str) -> AdminError:
    return AdminError("AMQ8147E", f"IBM MQ object {name} not found.")


def _in_use() -> AdminError:
    return AdminError("AMQ8148E", "IBM MQ object in use.")


@dataclass(frozen=True, slots=True)
class ObjectRecord:
    """A defined object: its attributes, creation/alteration times and status."""

    name: str
    attrs: dict[str, Value]
    created: float
    altered: float
    status: dict[str, int]


@dataclass(frozen=True, slots=True)
class AuthRecord:
    profile: str
    principal: str
    objtype: str
    authorities: frozenset[str]


# Authorities that do not apply to an object type (IBM's "Authorities you can set on IBM
# MQ objects"): an umbrella such as ALLMQI grants only those that apply.
_NOT_FOR = {
    "QUEUE": frozenset({"CONNECT"}),
    "QMGR": frozenset({"BROWSE", "CLR", "GET", "PASSALL", "PASSID", "PUT"}),
}


def authorised(
    db: sqlite3.Connection, principal: str, queue: str, authority: str, objtype: str = "QUEUE"
) -> bool:
    """Whether ``principal`` may do ``authority`` on the object ``queue`` of ``objtype``
    (QUEUE, or QMGR with the queue manager's name; no record: yes)."""
    rows = db.execute(
        "SELECT profile, auths FROM authrecs WHERE objtype = ? AND principal = ?",
        (objtype, principal.lower()),
    ).fetchall()
    granted: set[str] = set()
    matched = False
    for profile, auths in rows:
        if generic_match(profile, queue, profile=True):
            matched = True
            granted.update(json.loads(auths))
    return not matched or authority in granted


class Admin:
    """Admin operations on one queue manager's store."""

    def __init__(
        self,
        store: Store,
        qmgr_name: str,
        clock: Callable[[], float],
        *,
        on_alter: Callable[[str], None] | None = None,
        recover: Callable[[], object] | None = None,
        triggers: Triggers | None = None,
    ) -> None:
        self._store = store
        self.qmgr_name = qmgr_name
        self._clock = clock
        self._on_alter = on_alter
        self._recover = recover
        self._triggers = triggers

    # -- the queue manager object ---------------------------------------------------
    def qmgr_attributes(self) -> dict[str, Value]:
        rows = self._store.db.execute("SELECT key, value FROM qmgr_attrs").fetchall()
        out: dict[str, Value] = {"QMNAME": self.qmgr_name, **defaults(QMGR_ATTRS)}
        for key, value in rows:
            spec = QMGR_ATTRS.get(key)
            out[key] = int(value) if spec is not None and spec.kind == "int" else value
        return out

    def alter_qmgr(self, changes: dict[str, Value]) -> None:
        with self._store.write(durable=True) as db:
            db.executemany(
                "INSERT OR REPLACE INTO qmgr_attrs VALUES (?, ?)",
                [(k, str(v)) for k, v in changes.items()],
            )

    # -- local queues ---------------------------------------------------------------
    def _queue_row(self, name: str) -> tuple[str, float, float, int] | None:
        row = self._store.db.execute(
            "SELECT attrs, created, altered, curdepth FROM queues WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else (str(row[0]), float(row[1]), float(row[2]), int(row[3]))

    def queue(self, name: str) -> ObjectRecord:
        """One local queue (raises AdminError AMQ8147E if unknown)."""
        found = self.queues(name, generic=False)
        if not found:
            raise mqi_error(MQRC_UNKNOWN_OBJECT_NAME, name)
        return found[0]

    def queue_status(self, pattern: str) -> list[QueueStatus]:
        """DISPLAY QSTATUS TYPE(QUEUE) of the local queues matching ``pattern``."""
        names = [rec.name for rec in self.queues(pattern)]
        return queue_status(self._store, names, self._clock())

    def handle_status(self, pattern: str) -> list[HandleStatus]:
        """DISPLAY QSTATUS TYPE(HANDLE): the handles open on the matching local queues."""
        return handle_status(self._store, [rec.name for rec in self.queues(pattern)])

    def queues(self, pattern: str = "*", *, generic: bool = True) -> list[ObjectRecord]:
        """Local queues matching an MQSC generic name (``APP.*``), sorted by name."""
        db = self._store.db
        if generic and pattern.endswith("*"):
            rows = db.execute(
                "SELECT name, attrs, created, altered, curdepth FROM queues"
                " WHERE substr(name, 1, ?) = ? ORDER BY name",
                (len(pattern) - 1, pattern[:-1]),
            ).fetchall()
        else:
            rows = db.execute(
                "SELECT name, attrs, created, altered, curdepth FROM queues WHERE name = ?",
                (pattern,),
            ).fetchall()
        procs = {
            (q, kind): n
            for q, kind, n in db.execute(
                "SELECT queue, 'IPPROCS', count(*) FROM handles WHERE input GROUP BY queue"
                " UNION ALL SELECT queue, 'OPPROCS', count(*) FROM handles WHERE output"
                " GROUP BY queue"
            )
        }
        out = []
        for name, attrs, created, altered, depth in rows:
            status = {
                "CURDEPTH": int(depth),
                "IPPROCS": procs.get((name, "IPPROCS"), 0),
                "OPPROCS": procs.get((name, "OPPROCS"), 0),
            }
            out.append(
                ObjectRecord(
                    name,
                    {**defaults(QUEUE_ATTRS), **json.loads(attrs)},
                    float(created),
                    float(altered),
                    status,
                )
            )
        return out

    def define_queue(
        self, name: str, values: dict[str, Value], *, replace: bool = False, like: str | None = None
    ) -> None:
        """DEFINE QLOCAL (REPLACE keeps the messages; LIKE copies another's attributes)."""
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid queue name {name!r}")
        base = defaults(QUEUE_ATTRS)
        if like is not None:
            source = self._queue_row(like)
            if source is None:
                raise _not_found(like)
            base.update(json.loads(source[0]))
        new = {**base, **values}
        attrs = json.dumps(new, sort_keys=True)
        now = self._clock()
        with self._store.write(durable=True) as db:
            exists = db.execute("SELECT attrs FROM queues WHERE name = ?", (name,)).fetchone()
            if (
                (exists and not replace)
                or _is_alias(db, name)
                or _is_remote(db, name)
                or _is_model(db, name)
            ):
                raise AdminError("AMQ8150E", "IBM MQ object already exists.")
            if exists:
                db.execute(
                    "UPDATE queues SET attrs = ?, altered = ? WHERE name = ?", (attrs, now, name)
                )
                if self._triggers is not None:
                    self._triggers.queue_altered(db, name, json.loads(exists[0]), new)
            else:
                db.execute(
                    "INSERT INTO queues (name, attrs, curdepth, created, altered)"
                    " VALUES (?, ?, 0, ?, ?)",
                    (name, attrs, now, now),
                )
        self._altered(name)

    def alter_queue(self, name: str, changes: dict[str, Value]) -> None:
        with self._store.write(durable=True) as db:
            row = db.execute("SELECT attrs FROM queues WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise _not_found(name)
            old = json.loads(row[0])
            attrs = {**old, **changes}
            db.execute(
                "UPDATE queues SET attrs = ?, altered = ? WHERE name = ?",
                (json.dumps(attrs, sort_keys=True), self._clock(), name),
            )
            if self._triggers is not None:
                self._triggers.queue_altered(db, name, old, attrs)
        self._altered(name)

    def _check_idle(self, name: str) -> None:
        """Refuse when the queue is open or has uncommitted messages (dead owners first)."""
        if self._recover is not None:
            self._recover()
        db = self._store.db
        if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1", (name,)).fetchone():
            raise _in_use()
        if db.execute(
            "SELECT 1 FROM messages WHERE queue = ? AND state != ? LIMIT 1", (name, AVAILABLE)
        ).fetchone():
            raise _in_use()

    def delete_queue(self, name: str, *, purge: bool = False) -> None:
        if self._queue_row(name) is None:
            raise _not_found(name)
        self._check_idle(name)
        with self._store.write(durable=True) as db:
            if db.execute("SELECT 1 FROM messages WHERE queue = ? LIMIT 1", (name,)).fetchone():
                if not purge:
                    raise AdminError("AMQ8143E", f"IBM MQ queue {name} not empty.")
                db.execute("DELETE FROM messages WHERE queue = ?", (name,))
            db.execute("DELETE FROM queues WHERE name = ?", (name,))
            db.execute("DELETE FROM trigger_state WHERE queue = ?", (name,))
        self._altered(name)

    def clear_queue(self, name: str) -> int:
        """CLEAR QLOCAL; returns how many messages went."""
        if self._queue_row(name) is None:
            raise _not_found(name)
        self._check_idle(name)
        with self._store.write(durable=True) as db:
            return db.execute("DELETE FROM messages WHERE queue = ?", (name,)).rowcount

    # -- alias queues (QALIAS) -------------------------------------------------------------
    def aliases(self, pattern: str = "*", *, generic: bool = True) -> list[ObjectRecord]:
        """Alias queues matching an MQSC generic name, sorted by name."""
        rows = self._store.db.execute(
            "SELECT name, attrs, created, altered FROM aliases ORDER BY name"
        ).fetchall()
        return [
            ObjectRecord(name, {**defaults(ALIAS_ATTRS), **json.loads(attrs)}, created, altered, {})
            for name, attrs, created, altered in rows
            if (generic_match(pattern, name) if generic else name == pattern)
        ]

    def define_alias(
        self, name: str, values: dict[str, Value], *, replace: bool = False, like: str | None = None
    ) -> None:
        """DEFINE QALIAS (TARGET names the base queue; it is resolved at each MQOPEN/MQPUT1)."""
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid queue name {name!r}")
        base = defaults(ALIAS_ATTRS)
        if like is not None:
            source = self.aliases(like, generic=False)
            if not source:
                raise _not_found(like)
            base.update(source[0].attrs)
        attrs = json.dumps({**base, **values}, sort_keys=True)
        now = self._clock()
        with self._store.write(durable=True) as db:
            exists = _is_alias(db, name)
            local = db.execute("SELECT 1 FROM queues WHERE name = ?", (name,)).fetchone()
            if local or _is_remote(db, name) or (exists and not replace) or _is_model(db, name):
                raise AdminError("AMQ8150E", "IBM MQ object already exists.")
            if exists:
                db.execute(
                    "UPDATE aliases SET attrs = ?, altered = ? WHERE name = ?", (attrs, now, name)
                )
            else:
                db.execute("INSERT INTO aliases VALUES (?, ?, ?, ?)", (name, attrs, now, now))

    def alter_alias(self, name: str, changes: dict[str, Value]) -> None:
        with self._store.write(durable=True) as db:
            row = db.execute("SELECT attrs FROM aliases WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise _not_found(name)
            db.execute(
                "UPDATE aliases SET attrs = ?, altered = ? WHERE name = ?",
                (
                    json.dumps({**json.loads(row[0]), **changes}, sort_keys=True),
                    self._clock(),
                    name,
                ),
            )

    def delete_alias(self, name: str) -> None:
        with self._store.write(durable=True) as db:
            if not _is_alias(db, name):
                raise _not_found(name)
            db.execute("DELETE FROM aliases WHERE name = ?", (name,))

    # -- remote queue definitions and queue manager aliases (QREMOTE) ----------------------
    def remotes(self, pattern: str = "*", *, generic: bool = True) -> list[ObjectRecord]:
        """Remote queue definitions matching an MQSC generic name, sorted by name."""
        rows = self._store.db.execute(
            "SELECT name, attrs, created, altered FROM remotes ORDER BY name"
        ).fetchall()
        return [
            ObjectRecord(
                name, {**defaults(REMOTE_ATTRS), **json.loads(attrs)}, created, altered, {}
            )
            for name, attrs, created, altered in rows
            if (generic_match(pattern, name) if generic else name == pattern)
        ]

    def define_remote(
        self, name: str, values: dict[str, Value], *, replace: bool = False, like: str | None = None
    ) -> None:
        """DEFINE QREMOTE (RNAME, RQMNAME and XMITQ are resolved at each MQOPEN/MQPUT1:
        IBM performs no validation of them when the definition is made)."""
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid queue name {name!r}")
        base = defaults(REMOTE_ATTRS)
        if like is not None:
            source = self.remotes(like, generic=False)
            if not source:
                raise _not_found(like)
            base.update(source[0].attrs)
        self._put_definition(
            "remotes",
            name,
            json.dumps({**base, **values}, sort_keys=True),
            replace=replace,
            taken=lambda db: bool(
                db.execute("SELECT 1 FROM queues WHERE name = ?", (name,)).fetchone()
                or _is_alias(db, name)
                or _is_model(db, name)
            ),
        )

    def alter_remote(self, name: str, changes: dict[str, Value]) -> None:
        self._alter_definition("remotes", name, changes)

    def delete_remote(self, name: str) -> None:
        self._delete_definition("remotes", name)

    # -- definitions kept as JSON rows of their own table (remote and model queues) ------
    def _put_definition(
        self,
        table: str,
        name: str,
        attrs: str,
        *,
        replace: bool,
        taken: Callable[[sqlite3.Connection], bool],
    ) -> None:
        """DEFINE: ``name``'s row of ``table``, new, or replaced (``replace``); AMQ8150E
        when a queue of another type has the name (``taken``: one name space for every
        queue type) or the row exists without ``replace``."""
        sql = _DEFINITION_SQL[table]
        now = self._clock()
        with self._store.write(durable=True) as db:
            exists = db.execute(sql["find"], (name,)).fetchone() is not None
            if taken(db) or (exists and not replace):
                raise AdminError("AMQ8150E", "IBM MQ object already exists.")
            if exists:
                db.execute(sql["update"], (attrs, now, name))
            else:
                db.execute(sql["insert"], (name, attrs, now, now))

    def _alter_definition(self, table: str, name: str, changes: dict[str, Value]) -> None:
        """ALTER: ``changes`` over ``name``'s row of ``table`` (AMQ8147E when none)."""
        sql = _DEFINITION_SQL[table]
        with self._store.write(durable=True) as db:
            row = db.execute(sql["find"], (name,)).fetchone()
            if row is None:
                raise _not_found(name)
            attrs = json.dumps({**json.loads(row[0]), **changes}, sort_keys=True)
            db.execute(sql["update"], (attrs, self._clock(), name))

    def _delete_definition(self, table: str, name: str) -> None:
        """DELETE: ``name``'s row of ``table`` (AMQ8147E when none)."""
        with self._store.write(durable=True) as db:
            if db.execute(_DEFINITION_SQL[table]["delete"], (name,)).rowcount == 0:
                raise _not_found(name)

    def _altered(self, name: str) -> None:
        if self._on_alter is not None:
            self._on_alter(name)

    # -- process definitions -----------------------------------------------------------
    def processes(self, pattern: str = "*") -> list[ObjectRecord]:
        rows = self._store.db.execute(
            "SELECT name, attrs, created, altered FROM processes ORDER BY name"
        ).fetchall()
        return [
            ObjectRecord(n, {**defaults(PROCESS_ATTRS), **json.loads(a)}, c, m, {})
            for n, a, c, m in rows
            if generic_match(pattern, n)
        ]

    def define_process(self, name: str, values: dict[str, Value], *, replace: bool = False) -> None:
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid process name {name!r}")
        now = self._clock()
        attrs = json.dumps({**defaults(PROCESS_ATTRS), **values}, sort_keys=True)
        with self._store.write(durable=True) as db:
            exists = db.execute("SELECT 1 FROM processes WHERE name = ?", (name,)).fetchone()
            if exists and not replace:
                raise AdminError("AMQ8150E", "IBM MQ object already exists.")
            db.execute(
                "INSERT OR REPLACE INTO processes VALUES (?, ?,"
                " coalesce((SELECT created FROM processes WHERE name = ?), ?), ?)",
                (name, attrs, name, now, now),
            )

    def alter_process(self, name: str, changes: dict[str, Value]) -> None:
        with self._store.write(durable=True) as db:
            row = db.execute("SELECT attrs FROM processes WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise _not_found(name)
            attrs = json.dumps({**json.loads(row[0]), **changes}, sort_keys=True)
            db.execute(
                "UPDATE processes SET attrs = ?, altered = ? WHERE name = ?",
                (attrs, self._clock(), name),
            )

    def delete_process(self, name: str) -> None:
        with self._store.write(durable=True) as db:
            if db.execute("DELETE FROM processes WHERE name = ?", (name,)).rowcount == 0:
                raise _not_found(name)

    # -- authority records -------------------------------------------------------------
    def set_authrec(
        self,
        profile: str,
        principal: str,
        *,
        add: Iterable[str] = (),
        remove: Iterable[str] = (),
        objtype: str = "QUEUE",
    ) -> AuthRecord:
        """SET AUTHREC: add then remove authorities (a record with none still denies)."""
        key = (profile, principal.lower(), objtype)
        with self._store.write(durable=True) as db:
            row = db.execute(
                "SELECT auths FROM authrecs WHERE profile = ? AND principal = ? AND objtype = ?",
                key,
            ).fetchone()
            current = set(json.loads(row[0])) if row else set()
            current |= set(add)
            current -= set(remove) | _NOT_FOR[objtype]
            db.execute(
                "INSERT OR REPLACE INTO authrecs VALUES (?, ?, ?, ?)",
                (*key, json.dumps(sorted(current))),
            )
        return AuthRecord(profile, principal.lower(), objtype, frozenset(current))

    def delete_authrec(self, profile: str, principal: str, *, objtype: str = "QUEUE") -> None:
        with self._store.write(durable=True) as db:
            if (
                db.execute(
                    "DELETE FROM authrecs WHERE profile = ? AND principal = ? AND objtype = ?",
                    (profile, principal.lower(), objtype),
                ).rowcount
                == 0
            ):
                raise _not_found(profile)

    def authrecs(
        self, profile: str | None = None, principal: str | None = None
    ) -> list[AuthRecord]:
        rows = self._store.db.execute(
            "SELECT profile, principal, objtype, auths FROM authrecs ORDER BY profile, principal"
        ).fetchall()
        return [
            AuthRecord(p, u, o, frozenset(json.loads(a)))
            for p, u, o, a in rows
            if (profile is None or generic_match(profile, p))
            and (principal is None or u == principal.lower())
        ]

    # -- model queues (QMODEL: see .dynamic for the dynamic queues made of them) ----------
    def models(self, pattern: str = "*") -> list[ObjectRecord]:
        """Model queues matching an MQSC generic name, sorted by name."""
        rows = self._store.db.execute(
            "SELECT name, attrs, created, altered FROM models ORDER BY name"
        ).fetchall()
        return [
            ObjectRecord(n, {**defaults(MODEL_ATTRS), **json.loads(a)}, c, m, {})
            for n, a, c, m in rows
            if generic_match(pattern, n)
        ]

    def define_model(
        self, name: str, values: dict[str, Value], *, replace: bool = False, like: str | None = None
    ) -> None:
        """DEFINE QMODEL (LIKE copies another model's attributes)."""
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid queue name {name!r}")
        base = defaults(MODEL_ATTRS)
        if like is not None:
            source = model_attrs(self._store.db, like)
            if source is None:
                raise _not_found(like)
            base.update(source)
        self._put_definition(
            "models",
            name,
            json.dumps({**base, **values}, sort_keys=True),
            replace=replace,
            taken=lambda db: queue_exists(db, name),
        )

    def alter_model(self, name: str, changes: dict[str, Value]) -> None:
        self._alter_definition("models", name, changes)

    def delete_model(self, name: str) -> None:
        """DELETE QMODEL: the dynamic queues made from it stay (local queues of their own)."""
        self._delete_definition("models", name)
