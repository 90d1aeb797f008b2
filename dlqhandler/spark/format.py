"""dmpmqmsg record text from message columns, in native expressions (the JVM writes it).

:func:`record_text` is the text :class:`~dlqhandler.formats.dmpmqmsg.DumpWriter`
writes for one message in its default mode (``A`` lines in IBM's order with
AIX/AOX, ``VER`` and the group fields only for an MQMD version 2, character
fields blank padded to full width, upper-case hex, ``X`` lines of 25 bytes), up
to and including the last line's newline; the text writer's own newline then
makes the blank separator line. Character fields are written as their
ISO-8859-1 bytes, as DumpWriter does (the string's bytes are set directly, so
Spark's UTF-8 text writer writes them unchanged).
"""

from __future__ import annotations

from typing import Any

from dlqhandler.formats._attributes import ATTRIBUTES, Kind

__all__ = ["record_text"]

_WIDTH = 25  # bytes per X line, dmpmqmsg's default


def _latin1(text: Any, length: int) -> Any:
    """``text`` blank padded to ``length`` characters, as ISO-8859-1 bytes."""
    from pyspark.sql import functions as F

    return F.encode(F.rpad(F.coalesce(text, F.lit("")), length, " "), "ISO-8859-1")


def _x_lines(body: Any) -> Any:
    """``X`` lines of :data:`_WIDTH` bytes (a single ``X `` for no data)."""
    from pyspark.sql import functions as F

    digits = F.hex(body)
    chunks = F.regexp_replace(digits, rf"(.{{{2 * _WIDTH}}})(?!$)", "$1\nX ")
    return F.concat(F.lit("X "), chunks, F.lit("\n"))


def record_text(md: dict[str, Any], body: Any) -> Any:
    """The record text (a string column) of the MQMD columns ``md`` (attribute name ->
    Column) and the data ``body``."""
    from pyspark.sql import functions as F

    v2 = md["version"] >= 2
    parts: list[Any] = []
    for a in ATTRIBUTES:
        if a.ctx_chars:
            continue  # AID/AOD: the writer's default is AIX/AOX
        col = md[a.attr]
        if a.kind == Kind.LONG:
            value = col.cast("string")
        elif a.kind == Kind.BYTE:
            value = F.hex(col)
        elif a.kind == Kind.CHAR:
            value = _latin1(col, a.length).cast("string")
        else:
            value = F.hex(_latin1(col, a.length))
        line = F.concat(F.lit(f"A {a.code} "), value, F.lit("\n"))
        parts.append(F.when(v2, line).otherwise(F.lit("")) if a.version == 2 else line)
    return F.concat(*parts, _x_lines(body))
