"""DISPLAY QSTATUS: who has a queue open, and what is pending on it.

``TYPE(QUEUE)`` gives, per local queue, CURDEPTH, IPPROCS and OPPROCS (handles
open for input and for output by live connections), UNCOM (``NO``, or how many
puts and gets are uncommitted) and MSGAGE (seconds since the oldest message
was put; blank on an empty queue). ``TYPE(HANDLE)`` lists each open handle
with its connection's PID, user and program (APPLTAG), as MQ on UNIX does.

Connections are the lock files under ``conns/`` (a live one is locked by its
process, which wrote its PID, user and program in it); handles are the
``handles`` table. A handle whose connection died is not shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from dlqhandler.qmgr.embedded.recovery import connection_alive
from dlqhandler.qmgr.embedded.store import PUT_PENDING, TAKEN, Store

__all__ = ["HandleStatus", "QueueStatus", "handle_status", "queue_status"]


@dataclass(frozen=True, slots=True)
class QueueStatus:
    """TYPE(QUEUE) status of one local queue."""

    queue: str
    curdepth: int
    ipprocs: int
    opprocs: int
    uncommitted: int
    msgage: int | None  # seconds; None: no message on the queue

    def items(self) -> list[str]:
        """The MQSC attribute items, in runmqsc's order."""
        return [
            f"QUEUE({self.queue})",
            "TYPE(QUEUE)",
            f"CURDEPTH({self.curdepth})",
            f"IPPROCS({self.ipprocs})",
            f"MSGAGE({'' if self.msgage is None else self.msgage})",
            f"OPPROCS({self.opprocs})",
            f"UNCOM({self.uncommitted or 'NO'})",
        ]


@dataclass(frozen=True, slots=True)
class HandleStatus:
    """TYPE(HANDLE) status of one open handle."""

    queue: str
    conn_id: str
    pid: int | None
    user: str
    appl_tag: str
    input: bool
    output: bool
    exclusive: bool = False  # the input is exclusive (MQOO_INPUT_EXCLUSIVE, DEFSOPT, NOSHARE)

    def items(self) -> list[str]:
        """The MQSC attribute items, in runmqsc's order."""
        return [
            f"QUEUE({self.queue})",
            "TYPE(HANDLE)",
            f"APPLTAG({self.appl_tag})",
            "APPLTYPE(USER)",
            f"CONNID({self.conn_id})",
            f"INPUT({('EXCL' if self.exclusive else 'SHARED') if self.input else 'NO'})",
            f"OUTPUT({'YES' if self.output else 'NO'})",
            f"PID({'' if self.pid is None else self.pid})",
            f"USERID({self.user})",
        ]


def _live(store: Store, conn_ids: set[str]) -> dict[str, dict[str, object]]:
    """The live connections among ``conn_ids``, each with what its lock file says."""
    out: dict[str, dict[str, object]] = {}
    for conn in sorted(conn_ids):
        if not connection_alive(store.paths, conn):
            continue
        try:
            info = json.loads(store.paths.lock_file(conn).read_bytes() or b"{}")
        except (OSError, ValueError):
            info = {}
        out[conn] = info if isinstance(info, dict) else {}
    return out


def _in(queues: list[str]) -> str:
    """``IN (?, ?...)`` for ``queues``: only placeholders go into the SQL text."""
    return "IN (" + ",".join("?" * len(queues)) + ")"


def _handles(store: Store, queues: list[str]) -> list[tuple[str, int, str, int, int]]:
    return list(
        store.db.execute(
            "SELECT conn, handle, queue, input, output FROM handles WHERE queue "  # noqa: S608
            f"{_in(queues)} ORDER BY queue, conn, handle",
            queues,
        )
    )


def queue_status(store: Store, queues: list[str], now: float) -> list[QueueStatus]:
    """TYPE(QUEUE) status of each of ``queues`` (existing local queues, in order)."""
    if not queues:
        return []
    rows = _handles(store, queues)
    live = _live(store, {conn for conn, *_ in rows})
    where = _in(queues)
    depth = dict(store.db.execute(f"SELECT name, curdepth FROM queues WHERE name {where}", queues))  # noqa: S608
    pending = dict(
        store.db.execute(
            f"SELECT queue, count(*) FROM messages WHERE queue {where}"  # noqa: S608
            " AND state IN (?, ?) GROUP BY queue",
            [*queues, PUT_PENDING, TAKEN],
        )
    )
    oldest = dict(
        store.db.execute(
            f"SELECT queue, min(put_clock) FROM messages WHERE queue {where}"  # noqa: S608
            " AND state != ? GROUP BY queue",
            [*queues, TAKEN],
        )
    )
    out = []
    for q in queues:
        mine = [r for r in rows if r[2] == q and r[0] in live]
        first = oldest.get(q)
        out.append(
            QueueStatus(
                q,
                int(depth.get(q, 0)),
                sum(1 for r in mine if r[3]),
                sum(1 for r in mine if r[4]),
                int(pending.get(q, 0)),
                None if first is None else max(0, int(now - first)),
            )
        )
    return out


def handle_status(store: Store, queues: list[str]) -> list[HandleStatus]:
    """TYPE(HANDLE) status: every handle live connections hold on ``queues``."""
    if not queues:
        return []
    rows = _handles(store, queues)
    live = _live(store, {conn for conn, *_ in rows})
    out = []
    for conn, _handle, queue, input_, output in rows:
        info = live.get(conn)
        if info is None:
            continue
        pid = info.get("pid")
        out.append(
            HandleStatus(
                queue,
                conn,
                pid if isinstance(pid, int) else None,
                str(info.get("user", "")),
                str(info.get("appl", "")),
                bool(input_),
                bool(output),
                exclusive=input_ == 2,  # (handles.input: 2 is exclusive)
            )
        )
    return out
