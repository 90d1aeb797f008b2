"""Model queues (DEFINE QMODEL) and the dynamic queues MQOPEN creates from them.

A model queue is a template: MQOPEN of its name creates a local queue with the
model's local-queue attributes, named from MQOD.DynamicQName (a full name, or a
prefix ending in ``*`` that the queue manager completes with a unique suffix;
IBM's default ``AMQ.*``). The new queue is an ordinary row of ``queues`` whose
attributes carry ``DEFTYPE`` (TEMPDYN or PERMDYN, from the model); a temporary
one also has a row in ``dynamic_owners`` naming the handle that created it, so
that closing that handle, or the end of its connection, deletes the queue with
its messages (IBM: "When you close a temporary dynamic queue, the queue is
deleted, along with any messages that might still be on it. This is true even if
there are uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding against the queue": IBM
keeps it logically deleted, out of every application's reach, until that work ends, so
deleting it at once is what an application sees; the unit of work then commits or backs
out its other queues' work as usual). MQCLOSE's
MQCO_DELETE and MQCO_DELETE_PURGE follow IBM's MQCLOSE rules
(:func:`check_delete`).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Callable
from typing import Literal

from dlqhandler.mq.constants import (
    MQRC_DYNAMIC_Q_NAME_ERROR,
    MQRC_OBJECT_ALREADY_EXISTS,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_Q_NOT_EMPTY,
    mqi_error,
)
from dlqhandler.qmgr.embedded.objects import MODEL_ATTRS, QUEUE_ATTRS, Value, defaults
from dlqhandler.qmgr.embedded.store import AVAILABLE
from dlqhandler.qmgr.port import DEFAULT_DYNAMIC_NAME

__all__ = [
    "DEFAULT_DYNAMIC_NAME",
    "CloseDelete",
    "check_delete",
    "create_dynamic",
    "delete_dynamic",
    "model_attrs",
    "queue_exists",
    "reap_orphans",
]

CloseDelete = Literal["", "delete", "purge"]  # MQCO_NONE, MQCO_DELETE, MQCO_DELETE_PURGE
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")
_SUFFIX_HEX = 16  # the unique part a trailing '*' becomes (48 - 32 characters of prefix)


def model_attrs(db: sqlite3.Connection, name: str) -> dict[str, Value] | None:
    """The attributes of model queue ``name`` (None: there is no such model)."""
    row = db.execute("SELECT attrs FROM models WHERE name = ?", (name,)).fetchone()
    return None if row is None else {**defaults(MODEL_ATTRS), **json.loads(row[0])}


def queue_exists(db: sqlite3.Connection, name: str) -> bool:
    """Whether ``name`` is a local, an alias or a remote queue (one namespace for every
    queue type: a model cannot take its name)."""
    return bool(
        db.execute(
            "SELECT 1 FROM queues WHERE name = ? UNION ALL SELECT 1 FROM aliases WHERE name = ?"
            " UNION ALL SELECT 1 FROM remotes WHERE name = ?",
            (name, name, name),
        ).fetchone()
    )


def _dynamic_name(requested: str, exists: Callable[[str], bool]) -> str:
    """The dynamic queue's name from MQOD.DynamicQName (MQRC_DYNAMIC_Q_NAME_ERROR, 2011,
    for a blank name, a '*' after position 33 or not last, or a character MQ names do not
    allow)."""
    name = requested.rstrip(" ")
    star = name.find("*")
    if not name or (star >= 0 and (star != len(name) - 1 or star > 32)):
        raise mqi_error(MQRC_DYNAMIC_Q_NAME_ERROR, f"DynamicQName {requested.strip()!r}")
    prefix = name[:-1] if star >= 0 else name
    if len(prefix) > 48 or not set(prefix) <= _NAME_CHARS:
        raise mqi_error(MQRC_DYNAMIC_Q_NAME_ERROR, f"DynamicQName {requested.strip()!r}")
    if star < 0:
        return name
    while True:  # (a clash of 64 random bits is next to impossible, but checked)
        candidate = prefix + secrets.token_hex(_SUFFIX_HEX // 2).upper()
        if not exists(candidate):
            return candidate


def create_dynamic(
    db: sqlite3.Connection,
    model: dict[str, Value],
    requested: str,
    *,
    owner: tuple[str, int],
    now: float,
) -> str:
    """Create the dynamic queue MQOPEN of a model asks for (in ``db``'s transaction);
    a temporary one is owned by ``owner`` (connection id, handle number). Returns its
    name (MQRC_OBJECT_ALREADY_EXISTS, 2100, when a full name is taken)."""
    name = _dynamic_name(requested, lambda n: queue_exists(db, n) or _is_model(db, n))
    if queue_exists(db, name) or _is_model(db, name):
        raise mqi_error(MQRC_OBJECT_ALREADY_EXISTS, name)
    attrs = {k: v for k, v in model.items() if k in QUEUE_ATTRS}
    attrs["DEFTYPE"] = model["DEFTYPE"]
    db.execute(
        "INSERT INTO queues (name, attrs, curdepth, created, altered) VALUES (?, ?, 0, ?, ?)",
        (name, json.dumps(attrs, sort_keys=True), now, now),
    )
    if model["DEFTYPE"] == "TEMPDYN":
        db.execute("INSERT INTO dynamic_owners VALUES (?, ?, ?)", (name, *owner))
    return name


def _is_model(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM models WHERE name = ?", (name,)).fetchone() is not None


def owned_by(db: sqlite3.Connection, queue: str, owner: tuple[str, int]) -> bool:
    """Whether ``queue`` is the temporary dynamic queue handle ``owner`` created."""
    row = db.execute(
        "SELECT 1 FROM dynamic_owners WHERE name = ? AND conn = ? AND handle = ?",
        (queue, *owner),
    ).fetchone()
    return row is not None


def check_delete(
    db: sqlite3.Connection, queue: str, deftype: str, owner: tuple[str, int], how: CloseDelete
) -> bool:
    """Whether closing handle ``owner`` of ``queue`` deletes it, checked before anything
    changes. IBM's MQCLOSE: the temporary dynamic queue the handle created is deleted
    with its messages whatever the options; MQCO_DELETE deletes a permanent dynamic
    queue with no messages and nothing uncommitted (else MQRC_Q_NOT_EMPTY, 2055),
    MQCO_DELETE_PURGE one with nothing uncommitted; in every other case either option is
    MQRC_OPTION_NOT_VALID_FOR_TYPE (2045)."""
    if deftype == "TEMPDYN" and owned_by(db, queue, owner):
        return True
    if not how:
        return False
    if deftype != "PERMDYN":
        raise mqi_error(
            MQRC_OPTION_NOT_VALID_FOR_TYPE,
            f"{queue} is not a permanent dynamic queue nor the temporary one this handle created",
        )
    busy = db.execute(
        "SELECT 1 FROM messages WHERE queue = ? AND state != ? LIMIT 1", (queue, AVAILABLE)
    ).fetchone()
    if busy or (
        how == "delete"
        and db.execute("SELECT 1 FROM messages WHERE queue = ? LIMIT 1", (queue,)).fetchone()
    ):
        raise mqi_error(
            MQRC_Q_NOT_EMPTY,
            f"{queue} has "
            + ("uncommitted gets or puts" if busy else "messages (MQCO_DELETE_PURGE purges them)"),
        )
    return True


def delete_dynamic(db: sqlite3.Connection, queue: str) -> None:
    """Delete a dynamic queue with its messages (in ``db``'s transaction)."""
    db.execute("DELETE FROM messages WHERE queue = ?", (queue,))
    db.execute("DELETE FROM queues WHERE name = ?", (queue,))
    db.execute("DELETE FROM trigger_state WHERE queue = ?", (queue,))
    db.execute("DELETE FROM dynamic_owners WHERE name = ?", (queue,))


def reap_orphans(db: sqlite3.Connection) -> list[str]:
    """Delete the temporary dynamic queues whose creating handle is gone (its connection
    ended without closing it: a killed process, backed out by recovery); their names."""
    names = [
        str(row[0])
        for row in db.execute(
            "SELECT name FROM dynamic_owners o WHERE NOT EXISTS (SELECT 1 FROM handles h"
            " WHERE h.conn = o.conn AND h.handle = o.handle)"
        )
    ]
    for name in names:
        delete_dynamic(db, name)
    return names
