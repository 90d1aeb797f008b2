"""What every MQI call looks up, cached: queue attributes, authority decisions and the
queue manager's MAXUMSGS.

A put or get reads the queue's attributes and the caller's authority; both
change only by an admin command, and every such change counts up
``meta('objects')`` in its own transaction (:data:`.store.OBJECTS_TRIGGERS`). The
cache is valid while that count stays the same - messages moving on other
connections leave it alone, so handlers sharing a queue manager do not re-read
their queues at every unit of work - and always while this connection holds the
write lock: nobody else can commit then. It is checked once per MQI call.
"""

from __future__ import annotations

import json

from dlqhandler.mq.constants import (
    MQRC_ALIAS_BASE_Q_TYPE_ERROR,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
    mqi_error,
)
from dlqhandler.qmgr.embedded.admin import authorised
from dlqhandler.qmgr.embedded.objects import (
    QMGR_ATTRS,
    QueueView,
    alias_view,
    queue_view,
)
from dlqhandler.qmgr.embedded.store import Store

__all__ = ["Lookups"]


class Lookups:
    """Queue views and authority decisions of one connection."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._views: dict[str, QueueView] = {}
        self._authorities: dict[tuple[str, str, str, str], bool] = {}
        self._maxumsgs: int | None = None
        self._maxmsgl: int | None = None
        self._version = -1
        self._checked_in = -1  # the store's call count when last checked

    def queue(self, queue: str, *, missing: int = MQRC_UNKNOWN_OBJECT_NAME) -> QueueView:
        """The queue's attributes (MQIError ``missing`` when there is no such queue); for
        an alias queue, its base queue's as seen through it (``QueueView.name`` is the
        base queue, where the messages are)."""
        self._check()
        view = self._views.get(queue)
        if view is None:
            row = self._store.db.execute(
                "SELECT attrs FROM queues WHERE name = ?", (queue,)
            ).fetchone()
            view = queue_view(queue, row[0]) if row is not None else self._alias(queue, missing)
            self._views[queue] = view
        return view

    def _alias(self, queue: str, missing: int) -> QueueView:
        """An alias queue resolved to its base queue (the view of the base, with the
        alias's inhibits). IBM's reasons: MQRC_UNKNOWN_ALIAS_BASE_Q (2082) when TARGET
        names no queue, MQRC_ALIAS_BASE_Q_TYPE_ERROR (2001) when it names another alias."""
        db = self._store.db
        alias = db.execute("SELECT attrs FROM aliases WHERE name = ?", (queue,)).fetchone()
        if alias is None:
            raise mqi_error(missing, queue)
        target = str(json.loads(alias[0]).get("TARGET", ""))
        base = db.execute("SELECT attrs FROM queues WHERE name = ?", (target,)).fetchone()
        if base is None:
            if db.execute("SELECT 1 FROM aliases WHERE name = ?", (target,)).fetchone():
                raise mqi_error(
                    MQRC_ALIAS_BASE_Q_TYPE_ERROR, f"{queue}: TARGET({target}) is an alias"
                )
            raise mqi_error(MQRC_UNKNOWN_ALIAS_BASE_Q, f"{queue}: TARGET({target})")
        return alias_view(queue_view(target, base[0]), alias[0])

    def authorised(
        self, principal: str, queue: str, authority: str, objtype: str = "QUEUE"
    ) -> bool:
        self._check()
        key = (principal, queue, authority, objtype)
        allowed = self._authorities.get(key)
        if allowed is None:
            allowed = self._authorities[key] = authorised(
                self._store.db, principal, queue, authority, objtype
            )
        return allowed

    def max_uncommitted(self) -> int:
        """The queue manager's MAXUMSGS (IBM's MaxUncommittedMsgs)."""
        self._check()
        if self._maxumsgs is None:
            row = self._store.db.execute(
                "SELECT value FROM qmgr_attrs WHERE key = 'MAXUMSGS'"
            ).fetchone()
            self._maxumsgs = int(row[0] if row is not None else QMGR_ATTRS["MAXUMSGS"].default)
        return self._maxumsgs

    def max_msg_length(self) -> int:
        """The queue manager's MAXMSGL (IBM's MaxMsgLength)."""
        self._check()
        if self._maxmsgl is None:
            row = self._store.db.execute(
                "SELECT value FROM qmgr_attrs WHERE key = 'MAXMSGL'"
            ).fetchone()
            self._maxmsgl = int(row[0] if row is not None else QMGR_ATTRS["MAXMSGL"].default)
        return self._maxmsgl

    def _check(self) -> None:
        store = self._store
        if store.holding or store.calls == self._checked_in:
            return  # nobody else can commit meanwhile / already checked in this call
        self._checked_in = store.calls
        version = store.objects_version()
        if version != self._version:
            self._views.clear()
            self._authorities.clear()
            self._maxumsgs = None
            self._maxmsgl = None
            self._version = version
