"""Where things are in a dmpmqmsg file: where each message starts (to plan byte-range
splits), the line numbers, and errors that name the file, line and message.

The reader (:mod:`~dlqhandler.formats.dump_reader`) parses; when a line is wrong it asks
this module where that line is. On a file it can seek, the line and message numbers are
counted only then, from the start of the file; on a stream it cannot (a pipe) it reads
through a :class:`Tally`, which counts as it goes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import BinaryIO

from dlqhandler.errors import DumpFormatError

__all__ = ["Tally", "cut_off", "iter_message_offsets", "kind_before", "line_number", "located"]

_A, _N, _STAR = b"AN*"
_DATA = frozenset(b"XST")
CHUNK = 1 << 16  # bytes read at a time


class Tally:
    """A stream that cannot seek (a pipe), read line by line counting lines and message
    starts, so an error can still name its line and message."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self.lines = 0
        self.messages = 0
        self.newline = True  # the last line read ended with one (LF)
        self.ended = True  # ... or with a CR, at the end of the file: a line end too

    def __iter__(self) -> Iterator[bytes]:
        in_attrs = False
        for raw in self._f:
            self.lines += 1
            self.newline = raw.endswith(b"\n")
            self.ended = raw.endswith((b"\n", b"\r"))
            c = raw[0]
            if c in (_A, _N):
                self.messages += not in_attrs
                in_attrs = True
            elif c in _DATA:
                in_attrs = False
            yield raw


def located(
    f: BinaryIO | Tally,
    path: str,
    detail: str,
    pos: int,
    *,
    eof: bool = False,
    after: bool = False,
) -> DumpFormatError:
    """The error for the line starting at ``pos`` (``eof``: the end of the file): its
    line and message numbers (``after``: the line follows that message's data lines)."""
    if isinstance(f, Tally):
        return DumpFormatError(
            detail,
            path=path,
            line=f.lines + (eof and f.newline),
            message_number=f.messages or None,
            after=after,
        )
    try:
        line = line_number(f, pos)
        f.seek(0)
        number = sum(1 for start in _offsets(f) if start <= pos) or None
    except OSError:  # not seekable (a pipe): no position to give
        return DumpFormatError(detail, path=path, line=0)
    return DumpFormatError(detail, path=path, line=line, message_number=number, after=after)


def cut_off(f: BinaryIO | Tally, path: str, line_start: int, end: int) -> DumpFormatError:
    """The last message ends with a data line: the file was cut off after it.

    dmpmqmsg ends every message with an empty line, so a file whose last line is a
    data line (with or without its newline) lost the rest of that message, however
    much of it is left: nothing of it is returned.
    """
    if isinstance(f, Tally):
        ended = f.ended
    else:
        f.seek(end - 1)
        ended = f.read(1) in (b"\n", b"\r")  # a CR at the end of the file ends its line
    how = "in the middle of this line (no newline)" if not ended else "after this data line"
    return located(
        f,
        path,
        f"the file is cut off {how}: dmpmqmsg ends every message with "
        "an empty line and this last message has none, so its data "
        "may be incomplete; nothing of this message was read. Copy "
        "or dump the file again (if it is complete, add an empty "
        "line at its end)",
        line_start,
    )


def kind_before(f: BinaryIO, pos: int) -> int | None:
    """First byte of the last significant line that ends before ``pos`` (None: none)."""
    tail = b""
    here = pos
    while here > 0:
        size = min(CHUNK, here)
        here -= size
        f.seek(here)
        buf = f.read(size) + tail
        lines = buf.split(b"\n")
        tail = lines[0] if here > 0 else b""
        for line in reversed(lines if here == 0 else lines[1:]):
            if line.endswith(b"\r"):
                line = line[:-1]
            if line and line[0] != _STAR:
                return line[0]
    return None


def line_number(f: BinaryIO, pos: int) -> int:
    """The 1-based number of the line starting at ``pos`` (only computed for an error)."""
    f.seek(0)
    count = 1
    remaining = pos
    while remaining > 0:
        chunk = f.read(min(CHUNK, remaining))
        if not chunk:
            break
        count += chunk.count(b"\n")
        remaining -= len(chunk)
    return count


def iter_message_offsets(source: str | os.PathLike[str] | BinaryIO) -> Iterator[int]:
    """Byte offsets at which messages start (their first ``A``/``N`` line).

    A fast scan without decoding, for planning ``read_dump(start=, end=)``
    splits at message boundaries; it does not validate the file.
    """
    if isinstance(source, str | os.PathLike):
        with open(os.fspath(source), "rb", buffering=CHUNK) as f:
            yield from _offsets(f)
        return
    yield from _offsets(source)


def _offsets(source: BinaryIO) -> Iterator[int]:
    pos = 0
    in_attrs = False
    for raw in source:
        c = raw[0]
        if c in (_A, _N):
            if not in_attrs:
                yield pos
            in_attrs = True
        elif c in _DATA:
            in_attrs = False
        pos += len(raw)
