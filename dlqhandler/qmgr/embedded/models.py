"""DEFINE/ALTER/DELETE/DISPLAY QMODEL: the model queues of :mod:`.dynamic`, kept in the
``models`` table with the attributes of :data:`.objects.MODEL_ATTRS`."""

from __future__ import annotations

import json
from collections.abc import Callable

from dlqhandler.qmgr.embedded.admin import AdminError, ObjectRecord, valid_name
from dlqhandler.qmgr.embedded.dynamic import model_attrs, queue_exists
from dlqhandler.qmgr.embedded.objects import MODEL_ATTRS, Value, defaults, generic_match
from dlqhandler.qmgr.embedded.store import Store

__all__ = ["Models"]


class Models:
    """DEFINE/ALTER/DELETE/DISPLAY QMODEL on one queue manager's store."""

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock

    def models(self, pattern: str = "*") -> list[ObjectRecord]:
        rows = self._store.db.execute(
            "SELECT name, attrs, created, altered FROM models ORDER BY name"
        ).fetchall()
        return [
            ObjectRecord(n, {**defaults(MODEL_ATTRS), **json.loads(a)}, c, m, {})
            for n, a, c, m in rows
            if generic_match(pattern, n)
        ]

    def define(
        self, name: str, values: dict[str, Value], *, replace: bool = False, like: str | None = None
    ) -> None:
        if not valid_name(name):
            raise AdminError("AMQ8405I", f"invalid queue name {name!r}")
        base = defaults(MODEL_ATTRS)
        if like is not None:
            source = model_attrs(self._store.db, like)
            if source is None:
                raise AdminError("AMQ8147E", f"IBM MQ object {like} not found.")
            base.update(source)
        attrs = json.dumps({**base, **values}, sort_keys=True)
        now = self._clock()
        with self._store.write(durable=True) as db:
            exists = db.execute("SELECT 1 FROM models WHERE name = ?", (name,)).fetchone()
            if (exists and not replace) or queue_exists(db, name):
                raise AdminError("AMQ8150E", "IBM MQ object already exists.")
            if exists:
                db.execute(
                    "UPDATE models SET attrs = ?, altered = ? WHERE name = ?", (attrs, now, name)
                )
            else:
                db.execute("INSERT INTO models VALUES (?, ?, ?, ?)", (name, attrs, now, now))

    def alter(self, name: str, changes: dict[str, Value]) -> None:
        with self._store.write(durable=True) as db:
            row = db.execute("SELECT attrs FROM models WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise AdminError("AMQ8147E", f"IBM MQ object {name} not found.")
            attrs = json.dumps({**json.loads(row[0]), **changes}, sort_keys=True)
            db.execute(
                "UPDATE models SET attrs = ?, altered = ? WHERE name = ?",
                (attrs, self._clock(), name),
            )

    def delete(self, name: str) -> None:
        """DELETE QMODEL: the dynamic queues made from it stay (IBM: they are local queues
        of their own once created)."""
        with self._store.write(durable=True) as db:
            if db.execute("DELETE FROM models WHERE name = ?", (name,)).rowcount == 0:
                raise AdminError("AMQ8147E", f"IBM MQ object {name} not found.")
