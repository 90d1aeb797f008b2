"""A queue written to a dmpmqmsg file, as IBM's ``dmpmqmsg`` unloads it.

:func:`unload_queue` is the one loop: ``qm dmpmqmsg -i`` (browse) and ``-I`` (destructive,
committed in batches after each flush) use it, and so does :func:`snapshot_queue`, the
read-only snapshot ``drain -m`` and ``report -m`` take of a DLQ before Spark reads it. As
IBM's dmpmqmsg, the gets use no message handle, so the queue's PROPCTL decides where
message properties go: on a DLQ defined PROPCTL(FORCE) (or COMPAT, for JMS-style
properties) they come in an MQRFH2 in front of the MQDLH, where the ``dmpmqmsg`` data
source reads them and the drain's outputs keep them (docs/properties.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.mq.constants import MQRC_NO_MSG_AVAILABLE
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.port import GetOptions, QueueManager

__all__ = ["Snapshot", "snapshot_queue", "unload_queue"]

Mode = Literal["hex", "A", "p", "t"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A queue browsed into a dmpmqmsg file: the file, the queue, its queue manager."""

    path: Path
    queue: str
    qmgr: str
    messages: int


def unload_queue(
    qm: QueueManager,
    queue: str,
    stream: BinaryIO,
    *,
    destructive: bool = False,
    per_uow: int = 100,
    mode: Mode = "hex",
    seen: Callable[[Message], None] | None = None,
    committed: Callable[[int, int], None] | None = None,
) -> int:
    """Write every message of ``queue`` to ``stream`` under a dmpmqmsg header, in queue
    order; returns how many. ``destructive`` gets them under syncpoint, committing each
    ``per_uow`` after the file is flushed (a message is never removed before it is
    written); otherwise they are browsed. ``seen`` is told of each message written;
    ``committed`` (destructive) of the messages removed so far and the stream's bytes
    that hold them, after each commit: what a failed unload's file is cut back to."""
    q = qm.open(queue, input=destructive, browse=not destructive)
    try:
        writer = DumpWriter(stream, qmgr=qm.name, queue=queue, mode=mode)
        if destructive and committed is not None:
            committed(0, writer.bytes_written)  # the header: nothing removed yet
        options = (
            GetOptions(syncpoint=True, msg_handle=False)
            if destructive
            else GetOptions(browse="first", syncpoint=False, msg_handle=False)
        )
        while True:
            try:
                message = q.get(options)
            except MQIError as exc:
                if exc.reason != MQRC_NO_MSG_AVAILABLE:
                    raise
                break
            writer.write(message)
            if seen is not None:
                seen(message)
            if not destructive:
                options = GetOptions(browse="next", syncpoint=False, msg_handle=False)
            elif writer.count % per_uow == 0:
                writer.flush()
                qm.commit()
                if committed is not None:
                    committed(writer.count, writer.bytes_written)
        writer.flush()
        if destructive:
            qm.commit()
            if committed is not None:
                committed(writer.count, writer.bytes_written)
        return writer.count
    finally:
        q.close()


def snapshot_queue(qm: QueueManager, queue: str | None, path: Path) -> Snapshot:
    """Browse ``queue`` (None: the queue manager's DEADQ) into a new dmpmqmsg file at
    ``path`` (its directory is made); nothing is taken from the queue. Raises MQIError
    when the queue manager or the queue cannot be used, ConfigError when no queue is named
    and the queue manager has no DEADQ."""
    info = qm.inquire()
    name = queue or info.dead_letter_q_name.strip()
    if not name:  # else a browse of "" fails with a bare MQRC_UNKNOWN_OBJECT_NAME
        raise ConfigError(
            f"no queue named and queue manager {info.name} has no DEADQ; name the queue "
            f"(--queue Q, or INPUTQ in the rules table) or set one: ALTER QMGR DEADQ(Q)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        count = unload_queue(qm, name, stream)
    return Snapshot(path, name, info.name, count)
