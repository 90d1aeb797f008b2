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

Columns count characters, an undecodable byte as one, as the lexer does.
Undecodable bytes are replaced by U+FFFD in the text returned, so it can be
printed.
"""

from __future__ import annotations

import re

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic

__all__ = ["decode_table"]

_ESCAPED = re.compile("[\udc80-\udcff]")  # one undecodable byte each (surrogateescape)
_TO_REPLACEMENT = dict.fromkeys(range(0xDC80, 0xDD00), "\ufffd")
_COMMENT = re.compile(r"[ \t]*\*")  # a comment line: '*' after any blanks


def decode_table(source: str | bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """The table's text and a diagnostic per line holding bytes that are not UTF-8.

    ``source`` is the file's bytes, or text that may carry undecodable bytes as
    ``surrogateescape`` characters.
    """
    text = source.decode("utf-8", "surrogateescape") if isinstance(source, bytes) else source
    if _ESCAPED.search(text) is None:
        return text, []
    diags: list[Diagnostic] = []
    base = 1 if text.startswith("\ufeff") else 0  # a BOM is not part of line 1
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
