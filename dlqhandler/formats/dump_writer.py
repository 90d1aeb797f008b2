"""Writer for dmpmqmsg (qload) message files, byte-compatible with IBM's dmpmqmsg.

The layout follows IBM's writer: a ``* DMPMQMSG`` header, then per message the
``A`` lines in table order, the data lines, and an empty line. Data modes are
dmpmqmsg's ``-d`` letters: ``hex`` (the default, ``X`` lines), ``A`` (``-dA``:
invariant characters as ``S`` runs), ``p`` (``-dp``: printable characters as
``S`` runs, ``~`` escapes) and ``t`` (``-dt``: ``T`` text lines, lossy).

Two deliberate differences from dmpmqmsg, both invisible to its reader:
character fields are always written full width and blank padded (dmpmqmsg stops
at a NUL, so a NUL-filled field comes out as ``A RTQ ``), and a message whose
first byte is not in the ``S`` character set starts with ``S ""`` where dmpmqmsg
writes an unquoted ``S `` that its own 2014 reader misreads.
"""

from __future__ import annotations

import binascii
import os
import re
from collections.abc import Iterable
from datetime import datetime
from types import TracebackType
from typing import BinaryIO, Literal

from dlqhandler.errors import DumpFormatError
from dlqhandler.formats._attributes import ATTRIBUTES, Attribute, Kind
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD

__all__ = ["DumpWriter", "Mode", "format_ctime", "write_dump"]

Mode = Literal["hex", "A", "p", "t"]
_K_LONG, _K_BYTE, _K_CHAR_AS_HEX = int(Kind.LONG), int(Kind.BYTE), int(Kind.CHAR_AS_HEX)
_VER = ATTRIBUTES[0]

VERSION = "9.4"  # what we write after "Version:" (the MQ release we emulate)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# -dA: the characters invariant across ASCII and EBCDIC code pages; -dp/-dt: C isprint().
_INVARIANT = rb"A-Za-z0-9 '()+,\-./:=?_"
_PRINTABLE = rb"\x20-\x7e"
_RUNS = {
    "A": re.compile(rb"([" + _INVARIANT + rb"]+)|[^" + _INVARIANT + rb"]+"),
    "p": re.compile(rb"([" + _PRINTABLE + rb"]+)|[^" + _PRINTABLE + rb"]+"),
}
_PRINTABLE_RUN = re.compile(rb"[" + _PRINTABLE + rb"]*")
_UNPRINTABLE_RUN = re.compile(rb"[^" + _PRINTABLE + rb"]*")


def format_ctime(when: datetime) -> str:
    """C ``ctime()`` text, locale independent: ``Thu Nov 21 10:15:34 2024``."""
    return (
        f"{_DAYS[when.weekday()]} {_MONTHS[when.month - 1]} {when.day:2d} "
        f"{when:%H:%M:%S} {when.year}"
    )


class DumpWriter:
    """Writes messages to a binary stream in dmpmqmsg format.

    The header is written at construction. ``qmgr``/``queue`` add the ``* Qmgr``
    and ``* Queue`` lines dmpmqmsg writes when unloading a queue. ``width`` is
    ``-dw`` (bytes per ``X`` line; ``S`` lines carry ``2*width-2``), ``mode`` the
    data mode, ``ctx_chars`` is ``-dc`` (AID/AOD instead of AIX/AOX; loses binary
    context), ``index`` is ``-di`` (``* Index n`` lines). ``header=False`` writes
    messages only: a part to be appended to a file that has its header. The writer never closes
    the stream; leaving the ``with`` block flushes it.
    """

    def __init__(
        self,
        stream: BinaryIO,
        *,
        qmgr: str | None = None,
        queue: str | None = None,
        width: int = 25,
        created: datetime | None = None,
        mode: Mode = "hex",
        ctx_chars: bool = False,
        index: bool = False,
        header: bool = True,
    ) -> None:
        if mode not in ("hex", "A", "p", "t"):
            raise ValueError(f"mode must be 'hex', 'A', 'p' or 't', not {mode!r}")
        self._stream = stream
        self._name = str(getattr(stream, "name", "<stream>"))
        self.width = 25 if width <= 0 else max(width, 10)  # dmpmqmsg's -dw rules
        self.mode: Mode = mode
        self.index = index
        # (MQMD attribute, kind, "A CCC " prefix, minimum MQMD version, the Attribute)
        self._fields = tuple(
            (a.attr, int(a.kind), b"A " + a.code_bytes + b" ", a.version, a)
            for a in ATTRIBUTES
            if a.ctx_chars in (None, ctx_chars)
        )
        self.count = 0
        self.bytes_written = 0
        self._lines = 0
        head = [f"* DMPMQMSG Version:{VERSION} Created:{format_ctime(created or datetime.now())}"]
        if qmgr is not None:
            head.append(f"* Qmgr  = {qmgr.split(' ')[0][:48]}")
        if queue is not None:
            head.append(f"* Queue = {queue[:48]}")
        head.append("")
        if header:
            self._emit([line.encode("latin-1", "replace") + b"\n" for line in head])

    def __enter__(self) -> DumpWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.flush()

    def flush(self) -> None:
        """Flush the stream."""
        self._stream.flush()

    def close(self) -> None:
        """Finish writing: flush. The stream stays open; its owner closes it."""
        self.flush()

    def write(self, message: Message) -> None:
        """Append one message (its MQMD as ``A`` lines, ``message.body`` as data)."""
        out: list[bytes] = []
        if self.index:
            out.append(b"* Index %d\n" % (self.count + 1))
        self._mqmd_lines(message.md, out)
        body = message.body
        if self.mode == "hex":
            self._hex_lines(body, out)
        elif self.mode == "t":
            self._text_lines(body, out)
        else:
            self._string_lines(body, out)
        out.append(b"\n")
        self._emit(out)
        self.count += 1

    def _emit(self, lines: list[bytes]) -> None:
        data = b"".join(lines)
        self._stream.write(data)
        self.bytes_written += len(data)
        self._lines += len(lines)

    def _fail(self, attr: Attribute, problem: str, out: list[bytes]) -> DumpFormatError:
        return DumpFormatError(
            f"message {self.count + 1}: A {attr.code}: {problem}",
            path=self._name,
            line=self._lines + len(out) + 1,
        )

    def _mqmd_lines(self, md: MQMD, out: list[bytes]) -> None:
        version = md.version
        if version not in (1, 2):
            raise self._fail(_VER, f"MQMD version must be 1 or 2, not {version}", out)
        hexlify = binascii.hexlify
        for name, kind, prefix, min_version, attr in self._fields:
            if version < min_version:
                continue
            value = getattr(md, name)
            if kind == _K_LONG:
                if not -0x80000000 <= value <= 0x7FFFFFFF:
                    raise self._fail(attr, f"{value} is not a 32-bit integer", out)
                out.append(b"%s%d\n" % (prefix, value))
            elif kind == _K_BYTE:
                out.append(prefix + hexlify(value).upper() + b"\n")
            else:
                raw = self._char_field(attr, value, out)
                if kind == _K_CHAR_AS_HEX:
                    raw = hexlify(raw).upper()
                out.append(prefix + raw + b"\n")

    def _char_field(self, attr: Attribute, text: str, out: list[bytes]) -> bytes:
        try:
            raw = text.encode("latin-1")
        except UnicodeEncodeError:
            raise self._fail(
                attr, f"{text!r} has characters outside ISO-8859-1 (CCSID 819)", out
            ) from None
        if len(raw) > attr.length:
            raise self._fail(attr, f"{text!r} is longer than {attr.length} bytes", out)
        if attr.kind == Kind.CHAR and (b"\n" in raw or b"\r" in raw):
            raise self._fail(attr, f"{text!r} contains a line break", out)
        return raw.ljust(attr.length, b" ")

    def _hex_lines(self, data: bytes, out: list[bytes]) -> None:
        if not data:
            out.append(b"X \n")
            return
        digits = binascii.hexlify(data).upper()
        step = 2 * self.width
        out.extend(b"X " + digits[i : i + step] + b"\n" for i in range(0, len(digits), step))

    def _s_lines(self, run: bytes, out: list[bytes]) -> None:
        step = 2 * self.width - 2
        for i in range(0, len(run), step):
            chunk = run[i : i + step]
            if self.mode == "p":
                chunk = chunk.replace(b"~", b"~~").replace(b'"', b'~"')
            out.append(b'S "' + chunk + b'"\n')

    def _string_lines(self, data: bytes, out: list[bytes]) -> None:
        """``-dA``/``-dp``: alternate S runs and X runs, always starting with an S run."""
        first = True
        for m in _RUNS[self.mode].finditer(data):
            if m.group(1) is not None:
                self._s_lines(m.group(), out)
            else:
                if first:
                    out.append(b'S ""\n')
                self._hex_lines(m.group(), out)
            first = False
        if first:
            out.append(b'S ""\n')

    def _text_lines(self, data: bytes, out: list[bytes]) -> None:
        """``-dt``: a T line per printable run; a following line terminator is consumed."""
        i = 0
        n = len(data)
        first = True
        while True:
            j = _end(_PRINTABLE_RUN, data, i)
            after = data[j : j + 1]
            if j > i or first or after in (b"\n", b"\r"):
                out.append(b"T " + data[i:j] + b"\n")
            first = False
            i = j
            if i >= n:
                return
            if after in (b"\n", b"\r"):
                i += 1
                if data[i : i + 1] in (b"\n", b"\r") and data[i : i + 1] != after:
                    i += 1  # \r\n and \n\r count as one terminator
                continue
            j = _end(_UNPRINTABLE_RUN, data, i)
            self._hex_lines(data[i:j], out)
            i = j
            if i >= n:
                return


def _end(pattern: re.Pattern[bytes], data: bytes, pos: int) -> int:
    m = pattern.match(data, pos)
    return m.end() if m else pos


def write_dump(
    path: str | os.PathLike[str],
    messages: Iterable[Message],
    *,
    qmgr: str | None = None,
    queue: str | None = None,
    width: int = 25,
    created: datetime | None = None,
    mode: Mode = "hex",
    ctx_chars: bool = False,
    index: bool = False,
) -> int:
    """Write ``messages`` to a new dmpmqmsg file at ``path``; returns how many."""
    with (
        open(path, "wb") as f,
        DumpWriter(
            f,
            qmgr=qmgr,
            queue=queue,
            width=width,
            created=created,
            mode=mode,
            ctx_chars=ctx_chars,
            index=index,
        ) as writer,
    ):
        for message in messages:
            writer.write(message)
        return writer.count
