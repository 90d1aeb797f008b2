"""``dlqhandler qm dmpmqmsg``: unload a queue to a file, or load a file onto a queue.

As IBM's dmpmqmsg: ``-i`` browses, ``-I`` gets destructively, ``-o`` loads;
``-t N`` messages per unit of work; ``-r`` selects a range of message indexes
(``x``, ``x..y``, ``x..``, ``..y``, ``x#n``, ``#n``: the file's messages are
numbered from 1). Every exit prints IBM's two count lines on stderr::

    Read    - Files:   1  Messages:  20000  Bytes:   9240000
    Written - Files:   0  Messages:   5000  Bytes:   2310000

Message properties travel as IBM's dmpmqmsg carries them: it gets without a message
handle, so the queue's PROPCTL puts them in an MQRFH2 in front of the data (with the
default COMPAT when one is in the ``mcd``, ``jms``, ``usr`` or ``mqext`` folder), and a
load is a plain put of that data, which the queue manager turns back into properties
(:mod:`dlqhandler.qmgr.embedded.propctl`). A dead letter's MQRFH2 stands in front of
its MQDLH (MQMD Format ``MQHRF2``, the MQRFH2's Format ``MQDEAD``).

A load that stops early (the queue is full, a bad line in the file) commits the
messages put before the one that failed, never part of a message, and names the
first message not loaded with the ``-r`` that resumes the load without
duplicates. Its exit code is ``PARTIAL`` (6); a file that cannot be opened is
``USAGE`` (2), before connecting.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from dlqhandler.errors import DumpFormatError, MQIError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq.message import Message
from dlqhandler.qmgr import EmbeddedQueueManager, PutOptions
from dlqhandler.qmgr.snapshot import UnloadStoppedError, unload_queue

__all__ = [
    "Context",
    "Counts",
    "LoadStopped",
    "MessageRange",
    "existing_file",
    "load",
    "open_file",
    "parse_range",
    "print_counts",
    "unload",
]

Context = Literal["pass_all", "set_all", "default"]
_STDIO = ("-", "stdout", "stdin")
_RANGE = re.compile(r"(?P<first>\d*)(?:(?P<dots>\.\.)(?P<last>\d*)|#(?P<count>\d+))?")


@dataclass(frozen=True, slots=True)
class MessageRange:
    """1-based message indexes ``first..last`` of a file (``last`` None: to the end).

    ``last == first - 1`` is the empty range (``x#0``, ``#0``): no message is in it.
    """

    first: int = 1
    last: int | None = None

    def __contains__(self, index: object) -> bool:
        return (
            isinstance(index, int)
            and self.first <= index
            and (self.last is None or index <= self.last)
        )

    @property
    def empty(self) -> bool:
        return self.last is not None and self.last < self.first

    def resume_from(self, index: int) -> str:
        """The ``-r`` that loads what is left of this range from message ``index`` on
        (never past its end, so a resumed load neither doubles nor adds messages)."""
        return f"{index}.." if self.last is None else f"{index}..{self.last}"

    def describe(self) -> str:
        """dmpmqmsg's own wording of the range it processes."""
        if self.empty:
            return f"Processing no messages (0 from message index {self.first})."
        if self.last is None:
            return f"Processing message indexes {self.first} onwards."
        if self.first == self.last:
            return f"Processing message index {self.first} only."
        return f"Processing message indexes {self.first} -> {self.last}."


def parse_range(text: str) -> MessageRange:
    """dmpmqmsg's ``-r``, as IBM documents it (argparse type: ArgumentTypeError if bad).

    * ``x``: message x only; ``x..y``: messages x to y (the ends in either order);
      ``x..``: x onwards; ``..y``: 1 to y;
    * ``x#n``: n messages starting at message x; ``#n``: n messages (from the first).

    Indexes start at 1, so an index of 0 is refused. ``n`` is a count, not an index:
    IBM's text ("process n messages") makes ``x#0`` and ``#0`` a request for zero
    messages, so they select nothing (the file is not loaded) rather than being refused
    or read as ``x-1..x``.
    """
    stripped = text.strip()
    m = _RANGE.fullmatch(stripped)
    if (
        m is None
        or not stripped
        or (m["first"] == "" and m["dots"] is None and m["count"] is None)
        or stripped == ".."
    ):
        raise argparse.ArgumentTypeError(
            f"invalid message range {text!r}: use x, x..y, x.., ..y, x#n or #n "
            "(message indexes from 1)"
        )
    first = int(m["first"]) if m["first"] else None
    last: int | None
    if first == 0 or (m["dots"] is not None and m["last"] and int(m["last"]) == 0):
        raise argparse.ArgumentTypeError(
            f"invalid message range {text!r}: message indexes start at 1"
        )
    if m["count"] is not None:
        start = first or 1
        return MessageRange(start, start + int(m["count"]) - 1)
    if m["dots"] is not None:
        start = first or 1
        last = int(m["last"]) if m["last"] else None
        if last is not None and last < start:
            start, last = last, start  # as dmpmqmsg: the two ends in either order
        return MessageRange(start, last)
    assert first is not None
    return MessageRange(first, first)


@dataclass(slots=True)
class Counts:
    """What dmpmqmsg reports: messages and bytes read and written, files each side."""

    read_files: int = 0
    read_msgs: int = 0
    read_bytes: int = 0
    written_files: int = 0
    written_msgs: int = 0
    written_bytes: int = 0
    # -I: the messages removed (committed) so far, and the file's bytes that hold them
    removed_msgs: int = 0
    removed_bytes: int | None = None


def print_counts(counts: Counts) -> None:
    """IBM's two statistics lines, on stderr."""
    print(
        f"Read    - Files:{counts.read_files:4d}  Messages:{counts.read_msgs:6d}  "
        f"Bytes:{counts.read_bytes:10d}",
        file=sys.stderr,
    )
    print(
        f"Written - Files:{counts.written_files:4d}  Messages:{counts.written_msgs:6d}  "
        f"Bytes:{counts.written_bytes:10d}",
        file=sys.stderr,
    )


def existing_file(name: str) -> bool:
    """Whether ``name`` is a regular file that exists (the standard streams, a device or
    a pipe are not files an unload would overwrite)."""
    return name not in _STDIO and Path(name).is_file()


@contextlib.contextmanager
def open_file(name: str, *, write: bool, overwrite: bool = False) -> Iterator[BinaryIO]:
    """The dump file, or a standard stream for ``-``, ``stdout``, ``stdin``.

    A file opened to write is created, never truncated, unless ``overwrite`` (``-F``):
    FileExistsError when a regular file of that name exists (made between the caller's
    check and the open, or by another writer)."""
    if name in _STDIO:
        yield sys.stdout.buffer if write else sys.stdin.buffer
        return
    if not write:
        with open(name, "rb") as f:
            yield f
    elif overwrite or (Path(name).exists() and not existing_file(name)):
        with open(name, "wb") as f:
            yield f
    else:
        with open(name, "xb") as f:
            yield f


class LoadStopped(Exception):  # noqa: N818 - a condition, not a bug
    """A load that stopped before the end of its range (``problem`` says why)."""

    def __init__(self, problem: str, first_not_loaded: int, *, interrupted: bool = False) -> None:
        super().__init__(problem)
        self.problem = problem
        self.first_not_loaded = first_not_loaded
        self.interrupted = interrupted


def load(
    qm: EmbeddedQueueManager,
    queue: str,
    stream: BinaryIO,
    *,
    name: str,
    context: Context,
    per_uow: int,
    selected: MessageRange,
    counts: Counts,
) -> None:
    """Put the file's messages in ``selected`` onto ``queue``, committing every ``per_uow``.

    ``counts`` is updated as it goes (written = committed). On a bad line or a
    failed put the messages before the failing one are committed and
    :class:`LoadStopped` names the first message not committed (so a resume from it
    never loads a message twice).
    """
    q = qm.open(queue, input=False, browse=False, output=True)
    options = PutOptions(syncpoint=True, context=context)
    pending = pending_bytes = 0
    index = last_put = committed_through = 0

    def commit() -> None:
        nonlocal pending, pending_bytes, committed_through
        qm.commit()
        counts.written_msgs += pending
        counts.written_bytes += pending_bytes
        pending = pending_bytes = 0
        committed_through = last_put

    try:
        messages = read_dump(stream, name=name)
        while True:
            if selected.last is not None and index >= selected.last:
                break  # the range is done (or empty): the rest of the file is not read
            try:
                message = next(messages, None)
            except DumpFormatError as exc:
                # Every message before the bad line was yielded (and put when selected):
                # message index + 1 is the first not loaded, whether the line is inside
                # it or junk after message ``index`` (which the error names "after
                # message N": that message is whole and committed here).
                commit()
                raise LoadStopped(str(exc), max(index + 1, selected.first)) from exc
            if message is None:
                break
            index += 1
            counts.read_msgs += 1
            counts.read_bytes += len(message.body)
            if index not in selected:
                continue
            try:
                q.put(message, options)
            except MQIError as exc:
                commit()
                raise LoadStopped(f"putting message {index} onto {queue}: {exc}", index) from exc
            last_put = index
            pending += 1
            pending_bytes += len(message.body)
            if pending >= per_uow:
                commit()
        commit()
    except LoadStopped:
        raise
    except (MQIError, KeyboardInterrupt) as exc:
        # A failed commit, or Ctrl-C: what is not committed is not loaded.
        first = max(committed_through + 1, selected.first)
        with contextlib.suppress(MQIError):
            qm.backout()
        interrupted = isinstance(exc, KeyboardInterrupt)
        raise LoadStopped(
            "interrupted" if interrupted else str(exc), first, interrupted=interrupted
        ) from None
    finally:
        q.close()


def unload(
    qm: EmbeddedQueueManager,
    queue: str,
    stream: BinaryIO,
    *,
    destructive: bool,
    per_uow: int,
    mode: Literal["hex", "A", "p", "t"],
    counts: Counts,
) -> None:
    """Write the queue's messages to the file (:func:`dlqhandler.qmgr.snapshot.unload_queue`:
    -I commits each batch after a flush)."""

    def seen(message: Message) -> None:
        counts.read_msgs += 1
        counts.read_bytes += len(message.body)

    def committed(messages: int, file_bytes: int) -> None:
        counts.removed_msgs, counts.removed_bytes = messages, file_bytes

    counts.written_files = 1
    try:
        unload_queue(
            qm,
            queue,
            stream,
            destructive=destructive,
            per_uow=per_uow,
            mode=mode,
            seen=seen,
            committed=committed,
        )
    except UnloadStoppedError as exc:  # (a failed commit: only what left the queue counts)
        counts.written_msgs, counts.written_bytes = exc.committed, exc.committed_bytes
        raise
    counts.written_msgs, counts.written_bytes = counts.read_msgs, counts.read_bytes
