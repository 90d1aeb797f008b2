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

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.mq.constants import (
    MQRC_BACKED_OUT,
    MQRC_NO_MSG_AVAILABLE,
    MQRC_UNKNOWN_OBJECT_NAME,
    reason_name,
)
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.attempts import group_subject, message_subject, recorded_attempts
from dlqhandler.qmgr.port import GetOptions, Queue, QueueManager

__all__ = ["Snapshot", "UnloadStoppedError", "snapshot_queue", "unload_queue"]


class UnloadStoppedError(MQIError):
    """A destructive unload stopped on an MQ error (its ``reason``): ``committed``
    messages (``committed_bytes`` of data) are in the file and gone from the queue.
    What the open unit of work had got is back on the queue: cut from the file when
    ``cut`` (the file ends with the committed messages), else (a commit whose outcome is
    unknown, or a file that cannot be cut) the file's last ``uncertain`` messages may
    also still be on the queue."""

    def __init__(
        self, exc: MQIError, *, committed: int, committed_bytes: int, cut: bool, uncertain: int
    ) -> None:
        if cut or not uncertain:
            fate = "the messages got after the last commit are back on the queue, not in the file"
        else:
            fate = (
                f"the file's last {uncertain} message(s) were not committed as got and may"
                " still be on the queue: check the queue before loading the file"
            )
        super().__init__(
            exc.reason,
            f"{exc.detail or exc}; {committed} message(s) are in the file and were removed"
            f" from the queue; {fate}",
            comp=exc.comp,
            reason_name=reason_name(exc.reason),
        )
        self.committed = committed
        self.committed_bytes = committed_bytes
        self.cut = cut
        self.uncertain = uncertain


Mode = Literal["hex", "A", "p", "t"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A queue browsed into a dmpmqmsg file: the file, the queue, its queue manager, and
    the messages with failed attempts on record on the status queue (``spent``: each
    message and its count; usually none), for the classification to go on from there."""

    path: Path
    queue: str
    qmgr: str
    messages: int
    spent: tuple[tuple[Message, int], ...] = ()


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
    that hold them, after each commit: what a file is cut back to when the unload fails
    otherwise than on MQ (a full disk: the caller cuts it, the stream cannot be flushed).

    A destructive unload that meets an MQ error raises :class:`UnloadStoppedError`: a failed
    commit is never taken as done. What the unit of work had got goes back to the queue
    (MQBACK, or IBM's MQCMIT that answers MQRC_BACKED_OUT) and is cut from the file, so
    the file holds exactly what left the queue; a commit whose outcome is unknown (the
    connection broke during it) leaves the file whole and the error says how many of its
    last messages may also still be on the queue."""
    q = qm.open(queue, input=destructive, browse=not destructive)
    try:
        writer = DumpWriter(stream, qmgr=qm.name, queue=queue, mode=mode)
        options = (
            GetOptions(syncpoint=True, msg_handle=False)
            if destructive
            else GetOptions(browse="first", syncpoint=False, msg_handle=False)
        )
        if not destructive:
            while (message := _next(q, options)) is not None:
                writer.write(message)
                if seen is not None:
                    seen(message)
                options = GetOptions(browse="next", syncpoint=False, msg_handle=False)
            writer.flush()
            return writer.count
        return _unload_destructive(
            qm, q, writer, stream, options, per_uow=per_uow, seen=seen, committed=committed
        )
    finally:
        q.close()


def _next(q: Queue, options: GetOptions) -> Message | None:
    try:
        return q.get(options)
    except MQIError as exc:
        if exc.reason != MQRC_NO_MSG_AVAILABLE:
            raise
        return None


def _unload_destructive(
    qm: QueueManager,
    q: Queue,
    writer: DumpWriter,
    stream: BinaryIO,
    options: GetOptions,
    *,
    per_uow: int,
    seen: Callable[[Message], None] | None,
    committed: Callable[[int, int], None] | None,
) -> int:
    """Get, write, flush, commit: batch after batch (see :func:`unload_queue`)."""
    writer.flush()
    if committed is not None:
        committed(0, writer.bytes_written)  # the header: nothing removed yet
    mark = _position(stream)  # the end of the last committed message (None: cannot seek)
    done = done_bytes = pending_bytes = 0
    committing = False
    try:
        while True:
            message = _next(q, options)
            if message is not None:
                writer.write(message)
                pending_bytes += len(message.body)
                if seen is not None:
                    seen(message)
            if message is None or writer.count % per_uow == 0:
                writer.flush()
                committing = True
                qm.commit()
                committing = False
                done, done_bytes = writer.count, done_bytes + pending_bytes
                pending_bytes = 0
                mark = _position(stream)
                if committed is not None:
                    committed(writer.count, writer.bytes_written)
            if message is None:
                return writer.count
    except MQIError as exc:
        uncertain = writer.count - done
        # Back on the queue for sure: MQCMIT backed it out, or a get failed (its unit of
        # work is backed out here, or by the queue manager when the connection broke).
        back = not committing or exc.reason == MQRC_BACKED_OUT
        if not committing:
            with contextlib.suppress(MQIError):
                qm.backout()
        cut = back and uncertain > 0 and mark is not None and _cut(stream, mark)
        raise UnloadStoppedError(
            exc,
            committed=done,
            committed_bytes=done_bytes,
            cut=cut,
            uncertain=0 if back and cut else uncertain,
        ) from exc


def _position(stream: BinaryIO) -> int | None:
    try:
        return stream.tell() if stream.seekable() else None
    except (OSError, ValueError):
        return None


def _cut(stream: BinaryIO, mark: int) -> bool:
    """Truncate ``stream`` at ``mark`` (False when it cannot be)."""
    try:
        stream.flush()
        stream.seek(mark)
        stream.truncate()
        stream.flush()
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    return True


def snapshot_queue(
    qm: QueueManager,
    queue: str | None,
    path: Path,
    *,
    status_queue: str | None = None,
    status_required: bool = False,
) -> Snapshot:
    """Browse ``queue`` (None: the queue manager's DEADQ) into a new dmpmqmsg file at
    ``path`` (its directory is made); nothing is taken from the queue. The records of
    ``status_queue`` (if named: `run`'s and ``drain --apply``'s failed attempts; none when it does
    not exist) are read once, first, and the snapshot keeps the messages they count
    attempts for (:attr:`Snapshot.spent`): a group member with its group's count, as
    ``drain --apply`` decides every member of a group with it. With ``status_required``
    (the user named the status queue) a missing one is a ConfigError that names it, not
    silently no attempts. Raises MQIError
    when the queue manager or the queue cannot be used, ConfigError when no queue is named
    and the queue manager has no DEADQ."""
    info = qm.inquire()
    name = queue or info.dead_letter_q_name.strip()
    if not name:  # else a browse of "" fails with a bare MQRC_UNKNOWN_OBJECT_NAME
        raise ConfigError(
            f"no queue named and queue manager {info.name} has no DEADQ; name the queue "
            f"(--queue Q, or INPUTQ in the rules table) or set one: ALTER QMGR DEADQ(Q)"
        )
    counts = _status_counts(qm, status_queue, status_required) if status_queue else {}
    spent: list[tuple[Message, int]] = []

    def seen(message: Message) -> None:
        md = message.md
        n = counts.get(message_subject(md.msg_id, md.correl_id).key, 0)
        if not n and md.group_id.strip(b"\x00"):  # a group member: the group's count
            n = counts.get(group_subject(md.group_id).key, 0)
        if n > 0:
            spent.append((message, n))

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        count = unload_queue(qm, name, stream, seen=seen if counts else None)
    return Snapshot(path, name, info.name, count, tuple(spent))


def _status_counts(qm: QueueManager, status_queue: str, required: bool) -> dict[bytes, int]:
    """Every record of ``status_queue`` (key: the record's CorrelId, see
    :func:`dlqhandler.qmgr.attempts.message_subject`) and its count; empty when the
    queue does not exist (no handler ran with it), a ConfigError then if ``required``
    (a name the user gave: a typo would silently count no attempts)."""
    try:
        return recorded_attempts(qm, status_queue)
    except MQIError as exc:
        if exc.reason != MQRC_UNKNOWN_OBJECT_NAME:
            raise
        if required:
            raise ConfigError(
                f"--status-queue {status_queue} does not exist on this queue manager, so "
                f"no RETRY attempts can be read from it; name the queue dlqhandler run "
                f"keeps its attempts on (its --status-queue), or leave the option out"
            ) from None
        return {}
