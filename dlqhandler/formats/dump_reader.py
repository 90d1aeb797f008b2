"""Streaming reader for dmpmqmsg (qload, SupportPac MO03) message files.

One pass over the lines, constant memory beyond the message being built. The
grammar is IBM's: a header line, then per message an optional ``N`` line and
``A`` attribute lines, then one or more ``X``/``S``/``T`` data lines. Empty lines
and ``*`` comments are skipped anywhere. A message ends at the first line that
is not a data line.

Where the 2014 IBM reader is lenient or buggy we are strict or correct, and say
so in the error: an unquoted ``S`` line is its text with trailing blanks removed
(an empty ``S`` is 0 bytes); integers must be decimal MQLONGs; hex must be hex;
values longer than their field are an error rather than silently cut.

Line ends (the same in the Spark data source, docs/datasource.md "Line ends"): a line
ends at LF; a CR just before it, or a CR that is the file's last byte, is part of the
line end; any other CR is a byte of its line, and one in the header or a ``*`` line
means CR-only line ends, refused by name.

``start``/``end`` let several workers split one big file by byte ranges: a reader
yields exactly the messages whose first line begins in ``[start, end)``
(:func:`~dlqhandler.formats.dump_location.iter_message_offsets` plans them). Where an
error is - its line and message - is :mod:`~dlqhandler.formats.dump_location`'s.
"""

from __future__ import annotations

import binascii
import os
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from dlqhandler.errors import DumpFormatError
from dlqhandler.formats._attributes import ATTRIBUTES_BY_CODE, HEADER_PREFIXES, Kind
from dlqhandler.formats.dump_location import (
    CHUNK,
    Tally,
    cut_off,
    kind_before,
    located,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.names import is_valid_qmgr_name, is_valid_queue_name

__all__ = ["ORIGIN_BYTES", "dump_origin", "origin_of_head", "read_dump"]

_A, _N, _X, _S, _STAR, _BLANK, _LF, _CR = b"ANXS* \n\r"
_NUL = b"\x00"
_DATA = frozenset(b"XST")
_K_LONG, _K_CHAR, _K_BYTE = int(Kind.LONG), int(Kind.CHAR), int(Kind.BYTE)
# code -> (MQMD attribute, kind as a plain int, field length, code text)
_TABLE = {
    a.code_bytes: (a.attr, int(a.kind), a.length, a.code) for a in ATTRIBUTES_BY_CODE.values()
}
# b"A CCC " -> (attribute, kind, length): the reader's fast path
_FAST = {
    b"A " + a.code_bytes + b" ": (a.attr, int(a.kind), a.length)
    for a in ATTRIBUTES_BY_CODE.values()
}

# Reader states.
_HEADER, _EXPECT, _SKIP_ATTRS, _SKIP_DATA, _ATTRS, _DATA_LINES = range(6)  # order matters

_DEFAULTS = MQMD().as_dict()  # MQMD2_DEFAULT: every message starts from it
_HEX_RUN = re.compile(rb"[0-9A-Fa-f]*")
_LONG = re.compile(rb" *([+-]?[0-9]{1,10}) *")
_CODES = ", ".join(sorted(a.code for a in ATTRIBUTES_BY_CODE.values()))
# A CR inside the header line or a '*' line (dmpmqmsg writes none there): the file's
# lines end with a CR alone. A line ends at LF (a CR just before it, or at the very end
# of the file, is part of the line end), so such a file, or the part of it after an LF,
# is one line, and would read as a header or a comment with no messages after it.
_CR_ONLY = (
    "this line holds a CR that is not a line end: the lines of this file end with a CR "
    "alone (CR-only line ends), or the line holds a stray CR; dmpmqmsg lines end with LF "
    "or CR LF, so CR-only lines read as one. Convert the line ends (for example: "
    "tr '\\r' '\\n' < FILE > FILE.lf) and read the converted file"
)


class _LineError(Exception):
    """Internal: a problem on the current line; the loop adds file and line."""

    def __init__(self, detail: str, *, after: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.after = after  # a line after a message's data lines: not part of it


_ORIGIN = re.compile(rb"\* (Qmgr|Queue) *= *(\S*) *\r?\n?")
ORIGIN_BYTES = 4096  # the header, its two name lines and the empty line fit


def dump_origin(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The queue manager and queue a dump was unloaded from: the ``* Qmgr  = `` and
    ``* Queue = `` lines dmpmqmsg writes after its header when its input was a queue
    (``""`` for the queue manager when that line is missing), or None: no ``* Queue``
    line, or a name that is not a valid MQ name (untrusted text, never used then)."""
    with open(path, "rb") as f:
        return origin_of_head(f.read(ORIGIN_BYTES))


def origin_of_head(data: bytes) -> tuple[str, str] | None:
    """:func:`dump_origin` of a dump's first bytes (``ORIGIN_BYTES`` of them are
    enough), however they were read (a Hadoop file's through its filesystem)."""
    head = data.splitlines(keepends=True)
    names: dict[bytes, str] = {}
    for line in head[1:]:
        if not line.startswith(b"*"):
            break
        m = _ORIGIN.fullmatch(line)
        if m is not None:
            names.setdefault(m.group(1), m.group(2).decode("latin-1"))
    queue, qmgr = names.get(b"Queue"), names.get(b"Qmgr", "")
    if queue is None or not is_valid_queue_name(queue):
        return None
    return (qmgr if is_valid_qmgr_name(qmgr) else "", queue)


def read_dump(
    source: str | os.PathLike[str] | BinaryIO,
    *,
    name: str | None = None,
    start: int = 0,
    end: int | None = None,
) -> Iterator[Message]:
    """Iterate the messages of a dmpmqmsg file as ``Message(md, body, dlh=None)``.

    ``source`` is a path or a binary stream positioned at the start of the dump
    (offset 0); ``name`` names it in errors. With ``start``/``end`` only the
    messages whose first ``A``/``N`` line begins at a byte offset in
    ``[start, end)`` are yielded (a message straddling ``end`` is read to its
    last line), so consecutive ranges partition the file; ``start > 0`` needs a
    seekable source. The header line is required when ``start == 0``.

    Raises :class:`~dlqhandler.errors.DumpFormatError` naming the file, the line
    and what was expected.
    """
    if start < 0 or (end is not None and end < start):
        raise ValueError(f"bad byte range start={start} end={end}")
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        return _read_path(path, name or path, start, end)
    label = name or str(getattr(source, "name", "<stream>"))
    return _read_stream(source, label, start, end)


def _read_path(path: str, label: str, start: int, end: int | None) -> Iterator[Message]:
    with open(path, "rb", buffering=CHUNK) as f:
        yield from _read_stream(f, label, start, end)


def _seekable(f: BinaryIO) -> bool:
    try:
        return f.seekable()
    except (AttributeError, ValueError):
        return False


def _read_stream(f: BinaryIO, path: str, start: int, end: int | None) -> Iterator[Message]:
    stop = end if end is not None else 1 << 62
    if start == 0:
        yield from _parse(f if _seekable(f) else Tally(f), path, 0, stop, _HEADER)
        return
    f.seek(start - 1)
    pos = start - 1 + len(f.readline())  # the first line that begins at or after start
    before = kind_before(f, pos)
    state = _EXPECT if before is None else _SKIP_ATTRS if before in b"AN" else _SKIP_DATA
    f.seek(pos)
    yield from _parse(f, path, pos, stop, state)


def _parse(f: BinaryIO | Tally, path: str, pos: int, stop: int, state: int) -> Iterator[Message]:
    """The line loop. ``pos`` is the byte offset of the first line read.

    Hot path: ``A`` lines inside an attribute block are checked first. Line
    numbers are not counted as we go; an error counts newlines up to its line.
    """
    line_start = pos
    raw = b""
    values: dict[str, Any] = {}
    parts: list[bytes] = []
    apply = _apply_attribute
    fast = _FAST
    unhexlify = binascii.unhexlify
    try:
        for raw in f:
            line_start = pos
            pos += len(raw)
            if raw[-1] == _LF:
                raw = raw[:-1]
                if raw and raw[-1] == _CR:
                    raw = raw[:-1]
            elif raw[-1] == _CR:
                raw = raw[:-1]
            if not raw:
                continue
            c = raw[0]
            if c == _A and state == _ATTRS:
                # Fast path for well-formed values; everything else goes to apply().
                spec = fast.get(raw[:6])
                if spec is not None:
                    attr, kind, length = spec
                    value = raw[6:]
                    if kind == _K_LONG:
                        if (
                            value.isdigit()
                            and len(value) < 10
                            and (attr != "version" or value in (b"1", b"2"))
                        ):
                            values[attr] = int(value)
                            continue
                    elif kind == _K_CHAR:
                        if 0 < len(value) <= length and _NUL not in value:
                            values[attr] = value.decode("latin-1").rstrip(" ")
                            continue
                    elif len(value) == 2 * length:  # BYTE or CHAR_AS_HEX, full width
                        try:
                            data = unhexlify(value)
                        except binascii.Error:
                            pass
                        else:
                            values[attr] = data if kind == _K_BYTE else _text(data)
                            continue
                apply(values, raw)
            elif c == _X and state >= _ATTRS:
                rest = raw[1:].lstrip(b" ")
                try:
                    parts.append(unhexlify(rest))
                except binascii.Error:
                    parts.append(_x_slow(raw, len(raw) - len(rest)))
                state = _DATA_LINES
            elif c in _DATA:
                if state in (_DATA_LINES, _ATTRS):
                    parts.append(_data_line(raw, c))
                    state = _DATA_LINES
                elif state in (_SKIP_ATTRS, _SKIP_DATA):
                    state = _SKIP_DATA
                elif state == _EXPECT:
                    if line_start >= stop:
                        return
                    raise _LineError(
                        f"expected a message ('A' or 'N' line), found a {chr(c)!r} data line"
                    )
                else:
                    raise _LineError(_header_problem(raw))
            elif c == _STAR:
                if _CR in raw:
                    raise _LineError(_CR_ONLY)
                if state == _HEADER:
                    if not raw.startswith(HEADER_PREFIXES):
                        raise _LineError(_header_problem(raw))
                    state = _EXPECT
            elif c == _A and state == _SKIP_ATTRS:
                continue
            elif state == _HEADER:
                raise _LineError(_header_problem(raw))
            elif state in (_ATTRS, _SKIP_ATTRS):
                what = "an 'N' line" if c == _N else _show(raw)
                raise _LineError(
                    f"expected an 'A' attribute or an 'X', 'S' or 'T' data line, found {what}"
                )
            else:  # a line that starts a message, or is not valid between messages
                if state == _DATA_LINES:
                    yield Message(MQMD(**values), b"".join(parts))
                if line_start >= stop:
                    return
                if c not in (_A, _N):
                    raise _LineError(
                        f"expected a message ('A' or 'N' line), found {_show(raw)}",
                        after=state == _DATA_LINES,
                    )
                values = dict(_DEFAULTS)
                parts = []
                state = _ATTRS
                if c == _A:
                    apply(values, raw)
    except _LineError as exc:
        raise located(f, path, exc.detail, line_start, after=exc.after) from None
    if state == _DATA_LINES:
        if raw and raw[0] in _DATA:
            raise cut_off(f, path, line_start, pos)
        yield Message(MQMD(**values), b"".join(parts))
    elif state == _ATTRS:
        # End of file is on the line after the last newline (the last line itself when
        # the file does not end with a newline).
        raise located(
            f, path, "expected an 'X', 'S' or 'T' data line, found end of file", pos, eof=True
        )
    elif state == _HEADER:
        raise DumpFormatError(
            "empty file: expected a '* DMPMQMSG' or '* QLOAD' header line", path=path, line=1
        )


def _show(line: bytes, limit: int = 24) -> str:
    text = line[:limit].decode("latin-1")
    return repr(text + ("..." if len(line) > limit else ""))


def _header_problem(line: bytes) -> str:
    if b"\r" in line:
        return _CR_ONLY
    if line.startswith(b"AMQSBCG0"):
        return (
            "amqsbcg browse output is not supported; unload the queue with "
            "'dmpmqmsg -i QUEUE -f FILE' instead"
        )
    return (
        f"not a dmpmqmsg file: expected a '* DMPMQMSG' or '* QLOAD' header line, "
        f"found {_show(line)} (files written with -dH have no header)"
    )


# --- attribute lines ----------------------------------------------------------------


def _apply_attribute(values: dict[str, Any], line: bytes) -> None:
    """Set one MQMD field from an ``A CCC value`` line (IBM columns: code 3-5, value 7-)."""
    spec = _TABLE.get(line[2:5])
    n = len(line)
    if spec is None or n < 5 or line[1] != _BLANK or (n > 5 and line[5] != _BLANK):
        raise _LineError(_attribute_problem(line))
    if n < 7:
        return  # no value: the field keeps its default, as in dmpmqmsg
    attr, kind, length, code = spec
    value = line[6:]
    if kind == _K_LONG:
        if value.isdigit() and n < 16:  # up to 9 digits: always an MQLONG
            number = int(value)
        else:
            m = _LONG.fullmatch(value)
            if m is None or not -0x80000000 <= int(m.group(1)) <= 0x7FFFFFFF:
                raise _LineError(
                    f"A {code}: expected a signed 32-bit decimal integer, found {_show(value)}"
                )
            number = int(m.group(1))
        if attr == "version" and number not in (1, 2):
            raise _LineError(f"A VER: MQMD version must be 1 or 2, found {number}")
        values[attr] = number
    elif kind == _K_CHAR:
        if n - 6 <= length and _NUL not in value:
            values[attr] = value.decode("latin-1").rstrip(" ")
        else:
            values[attr] = _text(_fit(value, length, code))
    elif kind == _K_BYTE:
        values[attr] = _hex_field(value, values[attr], code)
    else:  # a character field spelt in hex (AIX, AOX)
        current = values[attr].encode("latin-1").ljust(length, b" ")
        values[attr] = _text(_hex_field(value, current, code))


def _attribute_problem(line: bytes) -> str:
    if len(line) < 5:
        return f"attribute line too short: expected 'A <code> <value>', found {_show(line)}"
    if line[1] != _BLANK or (len(line) > 5 and line[5] != _BLANK):
        return f"expected 'A <code> <value>' with blanks in columns 2 and 6, found {_show(line)}"
    return f"unrecognised attribute code {line[2:5].decode('latin-1')!r}: expected one of {_CODES}"


def _fit(value: bytes, length: int, code: str) -> bytes:
    if len(value) > length and value[length:].strip(b" "):
        raise _LineError(
            f"A {code}: value is longer than the {length}-byte field: {_show(value, 60)}"
        )
    return value[:length]


def _text(raw: bytes) -> str:
    """Canonical MQCHAR text of file bytes (ISO-8859-1): cut at NUL, trailing blanks off."""
    nul = raw.find(b"\x00")
    if nul >= 0:
        raw = raw[:nul]
    return raw.decode("latin-1").rstrip(" ")


def _hex_field(value: bytes, current: bytes, code: str) -> bytes:
    """Hex digits over the leading bytes of ``current`` (a short value fills only those)."""
    length = len(current)
    if len(value) == 2 * length:
        try:
            return binascii.unhexlify(value)
        except binascii.Error:
            pass
    digits = _hex_prefix(value)
    junk = value[len(digits) :].lstrip(b" ")  # trailing blanks are harmless
    if junk:
        column = 7 + len(value) - len(junk)
        problem = f"unexpected character {chr(junk[0])!r} in column {column}"
    elif len(digits) > 2 * length:
        problem = f"{len(digits) // 2} bytes, more than the {length}-byte field"
    elif len(digits) % 2:
        problem = f"an odd number of hex digits ({len(digits)})"
    else:
        problem = ""
    if problem:
        raise _LineError(f"A {code}: badly formed hex value: {problem}")
    data = binascii.unhexlify(digits)
    return data + current[len(data) :]


# --- data lines ---------------------------------------------------------------------


def _data_line(line: bytes, kind: int) -> bytes:
    """An ``S`` or ``T`` line's bytes (``X`` lines are decoded in the loop)."""
    if kind == _S:
        return _s_line(line[1:].lstrip(b" "))
    return line[2:] + b"\n"  # T: the text after "T " plus the newline the writer consumed


def _hex_prefix(value: bytes) -> bytes:
    m = _HEX_RUN.match(value)
    return m.group() if m else b""


def _x_slow(line: bytes, first: int) -> bytes:
    """An ``X`` line that is not pure hex: ``-da`` ASCII columns, or an error."""
    digits = _hex_prefix(line[first:])
    col = first + len(digits)  # 0-based index of the first non-hex character
    tail = line[col:]
    if tail and tail[0] != _BLANK:
        raise _LineError(
            f"badly formed hex data: non-hex character {chr(tail[0])!r} in column {col + 1}"
        )
    if len(digits) % 2:
        raise _LineError(f"badly formed hex data: odd number of hex digits ({len(digits)})")
    return binascii.unhexlify(digits)  # anything after a blank is the -da ASCII column


def _s_line(rest: bytes) -> bytes:
    """An ``S`` line: quoted with ``~`` escapes, or unquoted to end of line."""
    if rest[:1] != b'"':
        return rest.rstrip(b" ")  # unquoted (the 2014 reader dropped a character here)
    body = rest[1:]
    close = body.find(b'"')
    tilde = body.find(b"~")
    if close >= 0 and (tilde < 0 or tilde > close):
        return body[:close]
    out = bytearray()
    i = 0
    while True:
        close = body.find(b'"', i)
        tilde = body.find(b"~", i)
        if tilde >= 0 and (close < 0 or tilde < close):
            escaped = body[tilde + 1 : tilde + 2]
            if escaped not in (b'"', b"~"):
                found = repr(escaped.decode("latin-1")) if escaped else "end of line"
                raise _LineError(
                    f"unexpected escape sequence in S line: '~' must be followed "
                    f"by '\"' or '~', found {found}"
                )
            out += body[i:tilde]
            out += escaped
            i = tilde + 2
        elif close >= 0:
            out += body[i:close]
            return bytes(out)
        else:
            raise _LineError("unterminated S line: no closing '\"'")
