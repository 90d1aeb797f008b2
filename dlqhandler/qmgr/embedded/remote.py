"""Queue name resolution for remote queues: QREMOTE definitions, queue manager aliases and
the default transmission queue, as IBM's "Name resolution" page describes MQOPEN and MQPUT1.

A put names a queue (``ObjectName``) and a queue manager (``ObjectQMgrName``); the
queue manager name is resolved first:

- blank or this queue manager: the queue is a local queue or an alias (resolved by
  :mod:`.lookups`), or a local definition of a remote queue (QREMOTE with RNAME): the
  message goes on its transmission queue with an MQXQH naming RNAME at RQMNAME;
- a local queue (it must be a transmission queue): the message goes on it, the MQXQH
  naming the queue at that queue manager;
- a queue manager alias (a QREMOTE with RNAME blank): RQMNAME replaces the queue
  manager name (this queue manager: the queue is resolved here), and its XMITQ, if
  any, is the transmission queue;
- anything else: the default transmission queue (the queue manager's DEFXMITQ).

The transmission queue of a definition is its XMITQ, else the local queue named like
RQMNAME, else DEFXMITQ. Each way of failing has IBM's reason (2087, 2091, 2092, 2184,
2196, 2197, 2198, 2199). A route is decided when the queue is opened (MQOPEN) and the
remote definition's PUT inhibit is checked at each put, as for any queue. DEFPRTY and
DEFPSIST are the first definition's in the path (the QREMOTE or the queue manager
alias; the transmission queue when the queue manager name names it or DEFXMITQ is used).

An alias queue whose TARGET is a remote definition puts through it (its own PUT inhibit
counting too; authority is checked on the alias); a queue manager alias of this queue
manager puts on the local queue, its PUT inhibit and defaults counting. Not here: a
reply-to queue alias, clusters and cell directories.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_DEF_XMIT_Q_TYPE_ERROR,
    MQRC_DEF_XMIT_Q_USAGE_ERROR,
    MQRC_PUT_INHIBITED,
    MQRC_REMOTE_Q_NAME_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_DEF_XMIT_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    MQRC_UNKNOWN_REMOTE_Q_MGR,
    MQRC_UNKNOWN_XMIT_Q,
    MQRC_XMIT_Q_TYPE_ERROR,
    MQRC_XMIT_Q_USAGE_ERROR,
    mqi_error,
)
from dlqhandler.qmgr.embedded.lookups import Lookups
from dlqhandler.qmgr.embedded.objects import (
    REMOTE_ATTRS,
    QueueView,
    Value,
    defaults,
    queue_view,
)
from dlqhandler.qmgr.embedded.store import Store

__all__ = ["Remote", "Route", "Router"]


@dataclass(frozen=True, slots=True)
class Remote:
    """What the definitions on a put's path add to it: the MQXQH's RemoteQName and
    RemoteQMgrName of a put bound for another queue manager (``qmgr`` blank: none, the
    path was a queue manager alias of this one), the remote definition (and the alias
    queue naming it) whose PUT inhibits count (None: none), and the defaults of the remote
    definition or queue manager alias in the path (None: the target queue's)."""

    queue: str
    qmgr: str
    definition: str | None = None
    defprty: int | None = None
    defpsist: int | None = None
    alias: str | None = None  # an alias queue whose TARGET is the remote definition

    def defaults_of(self, xmitq: QueueView) -> QueueView:
        """The transmission queue's view with this path's DEFPRTY and DEFPSIST."""
        if self.defprty is None or self.defpsist is None:
            return xmitq
        return replace(xmitq, defprty=self.defprty, defpsist=self.defpsist)


@dataclass(frozen=True, slots=True)
class Route:
    """Where a put goes: ``target`` is the local queue (or alias) the message is put on,
    a transmission queue when ``remote`` is set; ``checked`` is the object whose put
    authority counts (the name MQOPEN was given, or the transmission queue)."""

    target: str
    remote: Remote | None
    checked: str

    def resolved(self, qmgr_name: str) -> tuple[str, str]:
        """MQOD's ResolvedQName and ResolvedQMgrName: the queue, and the queue manager
        that owns it (for a local queue, ``target``: an alias's base is the caller's)."""
        if self.remote is None or not self.remote.qmgr:
            return self.target, qmgr_name
        return self.remote.queue, self.remote.qmgr


class Router:
    """Name resolution on one connection's store (local queues and aliases come from
    its :class:`.Lookups`, cached; remote definitions are read at each resolution)."""

    def __init__(self, store: Store, lookups: Lookups, qmgr_name: str) -> None:
        self._store = store
        self._lookups = lookups
        self._name = qmgr_name

    def route(self, queue: str, qmgr: str = "") -> Route:
        """Resolve ``queue`` at ``qmgr`` (blank: this queue manager) for a put."""
        qmgr = qmgr.strip()
        if not qmgr or qmgr == self._name:
            try:
                self._lookups.queue(queue)  # a local queue or an alias (cached)
            except MQIError as exc:
                if exc.reason == MQRC_UNKNOWN_ALIAS_BASE_Q:
                    through = self._alias_of_remote(queue)
                    if through is not None:
                        return through
                if exc.reason != MQRC_UNKNOWN_OBJECT_NAME:
                    raise
            else:
                return Route(queue, None, queue)
            definition = self._remote(queue)
            if definition is None:
                raise mqi_error(MQRC_UNKNOWN_OBJECT_NAME, queue)
            return self._through_definition(queue, definition)
        return self._to_qmgr(queue, qmgr)

    def is_remote(self, name: str, *, through_alias: bool = False) -> bool:
        """Whether ``name`` is a remote queue definition (or a queue manager alias), or
        (``through_alias``) an alias queue whose TARGET is one."""
        if through_alias:
            row = self._store.db.execute(
                "SELECT attrs FROM aliases WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                return False
            name = str(json.loads(row[0]).get("TARGET", ""))
        return self._remote(name) is not None

    def check_put(self, remote: Remote) -> None:
        """MQRC_PUT_INHIBITED (2051) when the remote definition (or the alias queue) a put
        goes through is PUT(DISABLED) now (one deleted since MQOPEN inhibits nothing). IBM,
        InhibitPut: "put operations must be allowed for every definition in the path"."""
        if remote.definition is not None:
            definition = self._remote(remote.definition)
            if definition is not None and definition["PUT"] == "DISABLED":
                raise mqi_error(MQRC_PUT_INHIBITED, remote.definition)
        if remote.alias is not None:
            row = self._store.db.execute(
                "SELECT attrs FROM aliases WHERE name = ?", (remote.alias,)
            ).fetchone()
            if row is not None and json.loads(row[0]).get("PUT") == "DISABLED":
                raise mqi_error(MQRC_PUT_INHIBITED, remote.alias)

    # -- the cases of IBM's table -------------------------------------------------------------
    def _alias_of_remote(self, alias: str) -> Route | None:
        """An alias queue whose TARGET is a local definition of a remote queue (IBM, 2001:
        an alias may resolve to "a local queue, a local definition of a remote queue, or a
        cluster queue"): the remote definition's route, authority on the alias."""
        row = self._store.db.execute(
            "SELECT attrs FROM aliases WHERE name = ?", (alias,)
        ).fetchone()
        target = str(json.loads(row[0]).get("TARGET", "")) if row is not None else ""
        definition = self._remote(target) if target else None
        if definition is None:
            return None
        route = self._through_definition(target, definition)
        assert route.remote is not None
        return Route(route.target, replace(route.remote, alias=alias), alias)

    def _through_definition(self, name: str, d: dict[str, Value]) -> Route:
        """ObjectName is a local definition of a remote queue."""
        rname, rqmname = str(d["RNAME"]), str(d["RQMNAME"])
        if not rname:
            raise mqi_error(MQRC_REMOTE_Q_NAME_ERROR, f"{name} has RNAME( ): a queue manager alias")
        if not rqmname or rqmname == self._name:
            raise mqi_error(
                MQRC_UNKNOWN_REMOTE_Q_MGR,
                f"{name} has RQMNAME({rqmname}): not another queue manager",
            )
        xmitq = self._xmitq(str(d["XMITQ"]), rqmname)
        return Route(xmitq, _remote(rname, rqmname, name, d), name)

    def _to_qmgr(self, queue: str, qmgr: str) -> Route:
        """ObjectQMgrName names another queue manager (resolved before ObjectName)."""
        row = self._store.db.execute("SELECT attrs FROM queues WHERE name = ?", (qmgr,)).fetchone()
        if row is not None:  # a local queue: it must be a transmission queue
            if not queue_view(qmgr, row[0]).xmitq:
                raise mqi_error(MQRC_XMIT_Q_USAGE_ERROR, f"{qmgr} is not USAGE(XMITQ)")
            return Route(qmgr, Remote(queue, qmgr), qmgr)
        alias = self._remote(qmgr)
        if alias is not None:
            if alias["RNAME"]:
                raise mqi_error(
                    MQRC_UNKNOWN_REMOTE_Q_MGR,
                    f"{qmgr} is a remote queue definition (RNAME set), not a queue manager alias",
                )
            rqmname = str(alias["RQMNAME"])
            if not rqmname:
                raise mqi_error(
                    MQRC_UNKNOWN_REMOTE_Q_MGR, f"queue manager alias {qmgr}: RQMNAME( )"
                )
            if rqmname == self._name:  # an alias of this queue manager: resolved here
                route = self.route(queue)
                if route.remote is not None:  # (a remote definition: its own path)
                    return route
                return Route(route.target, _remote("", "", qmgr, alias), route.checked)
            xmitq = self._xmitq(str(alias["XMITQ"]), rqmname)
            return Route(xmitq, _remote(queue, rqmname, qmgr, alias), qmgr)
        xmitq = self._default_xmitq(qmgr)
        return Route(xmitq, Remote(queue, qmgr), xmitq)

    def _xmitq(self, xmitq: str, rqmname: str) -> str:
        """The transmission queue of a definition: XMITQ, else the queue named RQMNAME,
        else the default transmission queue."""
        db = self._store.db
        name = xmitq or rqmname
        row = db.execute("SELECT attrs FROM queues WHERE name = ?", (name,)).fetchone()
        if row is None:
            if self._other_queue(db, name):
                raise mqi_error(MQRC_XMIT_Q_TYPE_ERROR, f"{name} is not a local queue")
            if xmitq:
                raise mqi_error(MQRC_UNKNOWN_XMIT_Q, f"XMITQ({xmitq})")
            return self._default_xmitq(rqmname)
        if not queue_view(name, row[0]).xmitq:
            raise mqi_error(MQRC_XMIT_Q_USAGE_ERROR, f"{name} is not USAGE(XMITQ)")
        return name

    def _default_xmitq(self, qmgr: str) -> str:
        db = self._store.db
        row = db.execute("SELECT value FROM qmgr_attrs WHERE key = 'DEFXMITQ'").fetchone()
        name = str(row[0]).strip() if row is not None else ""
        if not name:
            raise mqi_error(
                MQRC_UNKNOWN_REMOTE_Q_MGR,
                f"{qmgr}: no transmission queue of that name, no queue manager alias"
                " and no DEFXMITQ",
            )
        found = db.execute("SELECT attrs FROM queues WHERE name = ?", (name,)).fetchone()
        if found is None:
            if self._other_queue(db, name):
                raise mqi_error(
                    MQRC_DEF_XMIT_Q_TYPE_ERROR, f"DEFXMITQ({name}) is not a local queue"
                )
            raise mqi_error(MQRC_UNKNOWN_DEF_XMIT_Q, f"DEFXMITQ({name})")
        if not queue_view(name, found[0]).xmitq:
            raise mqi_error(MQRC_DEF_XMIT_Q_USAGE_ERROR, f"DEFXMITQ({name}) is not USAGE(XMITQ)")
        return name

    def _remote(self, name: str) -> dict[str, Value] | None:
        row = self._store.db.execute("SELECT attrs FROM remotes WHERE name = ?", (name,)).fetchone()
        return None if row is None else {**defaults(REMOTE_ATTRS), **json.loads(row[0])}

    @staticmethod
    def _other_queue(db: sqlite3.Connection, name: str) -> bool:
        return any(
            db.execute(f"SELECT 1 FROM {table} WHERE name = ?", (name,)).fetchone()  # noqa: S608
            for table in ("aliases", "remotes")
        )


def _remote(queue: str, qmgr: str, definition: str, d: dict[str, Value]) -> Remote:
    return Remote(
        queue,
        qmgr,
        definition=definition,
        defprty=int(d["DEFPRTY"]),
        defpsist=1 if d["DEFPSIST"] == "YES" else 0,
    )
