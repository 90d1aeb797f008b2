"""Spark SQL written as text: literals, and queries built in steps and run as one.

The drain and the report build their expressions as SQL text, not as PySpark Column
objects: a Column costs py4j round trips per function (thousands for a large rules
table), PySpark's ``lit`` imports pandas and pyarrow on its first call (0.2 s of every
run), and a DataFrame per step analyses the growing plan again at each. Every value in
the text is a literal of :func:`sql_string`'s; :func:`sql_over` runs a query that reads
:data:`FRAME` over a DataFrame, in one ``spark.sql`` call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FRAME", "sql_over", "sql_string", "standalone"]


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal, read the same whatever
    ``spark.sql.parser.escapedStringLiterals`` says: quoted when it holds no quote, no
    backslash and no control character (no escape to read), else decoded from its UTF-8
    bytes (a regex's backslashes, say)."""
    if "'" not in text and "\\" not in text and text.isprintable():
        return f"'{text}'"
    return f"decode(X'{text.encode('utf-8').hex()}', 'UTF-8')"


FRAME = "\x00frame\x00"  # where a query built as text reads its frame (see sql_over)


def sql_over(frame: Any, query: str) -> Any:
    """``query``, SQL text that reads :data:`FRAME` where ``frame`` goes, as one
    ``spark.sql`` call over ``frame``: one parse and one analysis for the whole query,
    however many steps built its text. (PySpark's formatter puts the frame in FRAME's
    place; the text's own braces, a regex's ``{1,48}``, are doubled for it. No literal
    holds FRAME: :func:`sql_string` writes control characters as hex.)"""
    text = query.replace("{", "{{").replace("}", "}}").replace(FRAME, "{frame}")
    return frame.sparkSession.sql(text, frame=frame)


def standalone(query: str) -> str:
    """``query`` with a table named ``frame`` in :data:`FRAME`'s place: text Spark's parser
    reads alone (to parse it before the frame exists: get_session's ``warm_sql``)."""
    return query.replace(FRAME, "frame")
