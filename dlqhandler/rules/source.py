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


def decode_table(source: str | bytes, path: str) -> tuple[str, list[Diagnostic]]:
    """The table's text and a diagnostic per line holding bytes that are not UTF-8.

    ``source`` is the file's bytes, or text that may carry undecodable bytes as
    ``surrogateescape`` characters.
    """
    text = source.decode("utf-8", "surrogateescape") if isinstance(source, bytes) else source
    if _ESCAPED.search(text) is None:
        return text, []
    diags: list[Diagnostic] = []
    bom = text.startswith("\ufeff")
    for number, line in enumerate((text[1:] if bom else text).split("\n"), 1):
        found = _ESCAPED.search(line)
        if found is None:
            continue
        byte = ord(found.group()) - 0xDC00
        count = len(_ESCAPED.findall(line))
        comment = line.lstrip(" \t").startswith("*")
        diags.append(make_diagnostic(
            "W105" if comment else "E109", path, number, found.start() + 1,
            end_column=found.start() + 2, byte=f"0x{byte:02X}",
            more=f" (and {count - 1} more on this line)" if count > 1 else ""))
    return _ESCAPED.sub("\ufffd", text), diags
