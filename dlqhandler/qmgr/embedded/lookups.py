"""What every MQI call looks up, cached: queue attributes and authority decisions.

A put or get reads the queue's attributes and the caller's authority; both
change only by an admin command, and every such change counts up
``meta('objects')`` in its own transaction (:data:`.store.OBJECTS_TRIGGERS`). The
cache is valid while that count stays the same - messages moving on other
connections leave it alone, so handlers sharing a queue manager do not re-read
their queues at every unit of work - and always while this connection holds the
write lock: nobody else can commit then. It is checked once per MQI call.
"""

from __future__ import annotations

from dlqhandler.mq.constants import MQRC_UNKNOWN_OBJECT_NAME, mqi_error
from dlqhandler.qmgr.embedded.admin import authorised
from dlqhandler.qmgr.embedded.objects import QueueView, queue_view
from dlqhandler.qmgr.embedded.store import Store

__all__ = ["Lookups"]


class Lookups:
    """Queue views and authority decisions of one connection."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._views: dict[str, QueueView] = {}
        self._authorities: dict[tuple[str, str, str], bool] = {}
        self._version = -1
        self._checked_in = -1  # the store's call count when last checked

    def queue(self, queue: str, *, missing: int = MQRC_UNKNOWN_OBJECT_NAME) -> QueueView:
        """The queue's attributes (MQIError ``missing`` when there is no such queue)."""
        self._check()
        view = self._views.get(queue)
        if view is None:
            row = self._store.db.execute(
                "SELECT attrs FROM queues WHERE name = ?", (queue,)
            ).fetchone()
            if row is None:
                raise mqi_error(missing, queue)
            view = self._views[queue] = queue_view(queue, row[0])
        return view

    def authorised(self, principal: str, queue: str, authority: str) -> bool:
        self._check()
        key = (principal, queue, authority)
        allowed = self._authorities.get(key)
        if allowed is None:
            allowed = self._authorities[key] = authorised(
                self._store.db, principal, queue, authority
            )
        return allowed

    def _check(self) -> None:
        store = self._store
        if store.holding or store.calls == self._checked_in:
            return  # nobody else can commit meanwhile / already checked in this call
        self._checked_in = store.calls
        version = store.objects_version()
        if version != self._version:
            self._views.clear()
            self._authorities.clear()
            self._version = version
