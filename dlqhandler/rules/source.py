"""The bytes of a rules table -> its text: the one encoding rule, for lint and run alike.

runmqdlq reads its table as bytes in the queue manager's code page and never
looks inside comments; keywords, symbolic names and MQ object names are all
invariant ASCII. Our rule:

* The table is **UTF-8** (ASCII is a subset); a UTF-8 byte-order mark is skipped.
* A byte that is not part of valid UTF-8 (a Latin-1 ``é`` written on AIX or
  Windows, ``0xE9``) is **accepted in a comment line** with warning W105, as
  runmqdlq ignores comments; **anywhere else it is error E109**, at its line
  and column, because a value spelt in another code page would silently never
  match (convert the file: ``iconv -f ISO-8859-1 -t UTF-8``).

* A table in **UTF-16 or UTF-32** (a byte-order mark, or the NUL bytes every other
  or three in four bytes that ASCII text takes in them: what Windows editors write as
  "Unicode") is one error, E110, naming the encoding and the conversion, rather than an
  error per NUL.
* Lines end with LF or CR LF. A table whose lines end with a CR alone (as classic
  Mac OS wrote them: more CRs without an LF after them than LFs) is one error, E111,
  at the first such CR, naming CR-only line ends and the conversion: it would
  otherwise read as one long line. A stray CR in a table of LF lines is E112, once per
  line (not in a comment line, which runmqdlq ignores), in place of the lexer's "must
  be quoted".

E110 and E111 stop the compilation there: what follows them would be noise.

Columns count characters, an undecodable byte as one, as the lexer does.
Undecodable bytes are replaced by U+FFFD in the text returned, so it can be
printed.
"""

from __future__ import annotations

import re

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic

__all__ = ["FATAL", "decode_table"]

_ESCAPED = re.compile("[\udc80-\udcff]")  # one undecodable byte each (surrogateescape)
_TO_REPLACEMENT = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")
_COMMENT = re.compile(r"[ \t]*\*")  # a comment line: '*' after any blanks


FATAL = frozenset({"E110", "E111"})  # the compiler stops after these
_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "UTF-32", "little-endian"),
    (b"\x00\x00\xfe\xff", "UTF-32", "big-endian"),
    (b"\xff\xfe", "UTF-16", "little-endian"),
    (b"\xfe\xff", "UTF-16", "big-endian"),
)
_HEAD = 256  # bytes looked at for the NUL pattern


def _wide(head: bytes) -> tuple[str, str, str] | None:
    """(encoding, byte order, how it shows) when ``head`` (the table's first bytes) is
    UTF-16 or UTF-32 text, else None."""
    for mark, encoding, order in _BOMS:
        if head.startswith(mark):
            return encoding, order, f"byte-order mark {mark.hex(' ').upper()}"
    nuls = head.count(0)
    if len(head) < 4 or nuls * 4 < len(head):  # ASCII in UTF-16 is half NULs
        return None
    encoding = "UTF-32" if nuls * 8 >= len(head) * 5 else "UTF-16"
    order = "little-endian" if head[0] != 0 else "big-endian"
    return encoding, order, f"{nuls} NUL bytes in its first {len(head)}"


_LONE_CR = re.compile(r"\r(?!\n|\Z)")  # a CR ending the last line is its line end


def decode_table(source: str | bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """The table's text and a diagnostic per line holding bytes that are not UTF-8, or
    the one diagnostic (:data:`FATAL`) of a table in UTF-16/32 or with CR-only lines.

    ``source`` is the file's bytes, or text that may carry undecodable bytes as
    ``surrogateescape`` characters.
    """
    text = source.decode("utf-8", "surrogateescape") if isinstance(source, bytes) else source
    head = source[:_HEAD] if isinstance(source, bytes) else _head_bytes(text)
    wide = _wide(head)
    if wide is not None:
        encoding, order, shown = wide
        # iconv takes the byte order from the mark; without one it must be told
        named = encoding if "mark" in shown else encoding + ("LE" if order[0] == "l" else "BE")
        diag = make_diagnostic(
            "E110", path, 1, 1, encoding=encoding, order=order, shown=shown, iconv=named
        )
        return text.translate(_TO_REPLACEMENT), [diag]
    base = 1 if text.startswith("\ufeff") else 0  # a BOM is not part of line 1
    lone = [m.start() for m in _LONE_CR.finditer(text)]
    # CR-only line ends: lone CRs where a text file has its LFs (random bytes have about
    # as many of each; a CR-only table has none, or a stray one at its end)
    if lone and len(lone) > 4 * text.count("\n"):
        return text.translate(_TO_REPLACEMENT), [_cr_diag("E111", text, lone[0], path, base)]
    strays = _strays(text, lone, path, base)
    if _ESCAPED.search(text) is None:
        return text, strays
    diags: list[Diagnostic] = strays
    # One pass over the undecodable characters (no copy of the text per line): the
    # first of each line is reported, with how many more that line holds.
    number, scanned = 1, base
    first: re.Match[str] | None = None
    line_start = count = 0

    def report() -> None:
        assert first is not None
        byte = ord(first.group()) - 0xDC00
        column = first.start() - line_start
        comment = _COMMENT.match(text, line_start) is not None
        diags.append(
            make_diagnostic(
                "W105" if comment else "E109",
                path,
                number,
                column + 1,
                end_column=column + 2,
                byte=f"0x{byte:02X}",
                more=f" (and {count - 1} more on this line)" if count > 1 else "",
            )
        )

    for found in _ESCAPED.finditer(text, base):
        newlines = text.count("\n", scanned, found.start())
        scanned = found.start()
        if first is not None and newlines:
            report()
            first = None
        number += newlines
        if first is None:
            first, count = found, 0
            line_start = max(text.rfind("\n", 0, found.start()) + 1, base)
        count += 1
    if first is not None:
        report()
    return text.translate(_TO_REPLACEMENT), diags  # (translate: no piece per byte, as sub)


def _head_bytes(text: str) -> bytes:
    """The first bytes of a table given as text (undecodable bytes as surrogates)."""
    try:
        return text[:_HEAD].encode("utf-8", "surrogateescape")[:_HEAD]
    except UnicodeEncodeError:  # text that never was bytes (a lone surrogate of its own)
        return text[:_HEAD].encode("utf-8", "surrogatepass")[:_HEAD]


def _cr_diag(code: str, text: str, at: int, path: str, base: int) -> Diagnostic:
    """``code`` (E111, E112) for the CR at ``at``: its line and its column (in characters,
    the BOM not one)."""
    line = text.count("\n", 0, at) + 1
    start = max(text.rfind("\n", 0, at) + 1, base)
    column = at - start + 1
    return make_diagnostic(code, path, line, column, end_column=column + 1)


def _strays(text: str, lone: list[int], path: str, base: int) -> list[Diagnostic]:
    """E112 for the first stray CR of each line that is not a comment."""
    out: list[Diagnostic] = []
    last_line_start = -1
    for at in lone:
        start = max(text.rfind("\n", 0, at) + 1, base)
        if start == last_line_start or _COMMENT.match(text, start):
            continue
        last_line_start = start
        out.append(_cr_diag("E112", text, at, path, base))
    return out
