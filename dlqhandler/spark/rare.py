"""The Python path for the records the JVM decode does not take (the rare ones).

:func:`rare_udf` is an Arrow UDF whose argument is null except for the records
:mod:`dlqhandler.spark.decode` flags as not common (EBCDIC or undefined
encodings, no MQDLH, ``S``/``T`` lines, ``-dc``/``-di`` files, malformed text).
It runs in the same task as the native decode of the record's neighbours, so
input order needs no shuffle and nothing is cached.
Each record is parsed by the reference reader
(:func:`dlqhandler.formats.dmpmqmsg.read_dump`) and each message decoded with
:func:`dlqhandler.mq.message.decode_dead_letter`, exactly as the drain did for
every message before the JVM decode. A record may hold several messages (a file
written without blank separator lines); they get consecutive ``sub`` numbers.

A record that does not parse, or the cut-off last record of a file (``cut``),
becomes one row with ``error`` set and no message columns: it stays where it is
(``remaining``) and nothing of it is delivered. ``error_line`` is the line of
the problem counted from the record's first line; the drain turns it into a
file line number (:func:`dlqhandler.spark.extract.locate_errors`).
"""

from __future__ import annotations

import io
import operator
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dlqhandler.errors import DLQHandlerError, DumpFormatError, MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq.message import Message, decode_dead_letter

__all__ = ["SUB_BITS", "arrow_schema", "rare_udf"]

SUB_BITS = 20  # seq = record position << SUB_BITS | message index within the record
_CUT = (
    "the file ends inside this message (no blank line after it: the file was cut off); "
    "nothing of it is delivered"
)
_FAKE_HEADER = b"* DMPMQMSG Version:9.4 Created:(record)\n"


def rare_udf(return_ddl: str, md_names: list[str], dlh_names: list[str]) -> Any:
    """An Arrow UDF ``(value binary, cut boolean) -> array<struct<return_ddl>>``.

    Spark evaluates it with ``value`` null for every common record (the native
    decode took those): only the rare records' text reaches Python, and a null
    costs nothing but its validity bit. A rare record yields one struct per
    message (``sub`` numbers them), or one with ``error`` and ``error_line``.
    """
    from pyspark.sql.pandas.functions import arrow_udf

    md_get = operator.attrgetter(*md_names)
    dlh_get = operator.attrgetter(*dlh_names)
    md_keys = [f"md_{n}" for n in md_names]
    dlh_keys = [f"dlh_{n}" for n in dlh_names]

    def row(sub: int, outcome: Message | tuple[str, int]) -> dict[str, Any]:
        out: dict[str, Any] = {"sub": sub}
        if not isinstance(outcome, Message):
            out["error"], out["error_line"] = outcome
            return out
        out.update(zip(md_keys, md_get(outcome.md), strict=True))
        out["body"] = outcome.body
        try:
            dlh = decode_dead_letter(outcome.md, outcome.body).dlh
        except MalformedMessageError as exc:
            out["has_dlh"], out["dlh_error"] = False, str(exc)
            return out
        out["has_dlh"] = True
        out.update(zip(dlh_keys, dlh_get(dlh), strict=True))
        return out

    def decode(value: pa.Array, cut: pa.Array) -> pa.Array:

        result: list[Any] = [None] * len(value)
        for i in pc.indices_nonzero(pc.is_valid(value)).to_pylist():
            item = {"value": value[i].as_py(), "cut": bool(cut[i].as_py())}
            result[i] = [row(sub, outcome) for sub, outcome in _record_rows(item)]
        return pa.array(result, type=_arrow_type(return_ddl))

    make: Any = arrow_udf  # its overloads do not cover a list-of-struct return type
    return make(decode, f"array<struct<{return_ddl}>>")


def _arrow_type(ddl: str) -> Any:
    return pa.list_(pa.struct(list(arrow_schema(ddl))))


def _record_rows(item: dict[str, Any]) -> Iterator[tuple[int, Message | tuple[str, int]]]:
    """Messages of one record, or an (error, line) pair for what does not parse."""
    raw: bytes = item["value"]
    if item["cut"]:
        yield 0, (_CUT, 1)
        return
    sub = 0
    try:
        # The record without its separator: give it back the empty line that ends a
        # message in a dump, or the reader takes it for a cut-off file.
        for message in read_dump(io.BytesIO(_FAKE_HEADER + raw + b"\n\n"), name="record"):
            yield sub, message
            sub += 1
    except DumpFormatError as exc:
        yield sub, (exc.detail, max(1, exc.line - 1))
    except DLQHandlerError as exc:  # pragma: no cover - the reader raises DumpFormatError
        yield sub, (str(exc), 1)


def arrow_schema(ddl: str) -> Any:
    """A pyarrow schema from a ``"name type, ..."`` DDL string (int, long, string,
    binary, boolean)."""
    kinds = {
        "int": pa.int32(),
        "long": pa.int64(),
        "string": pa.string(),
        "binary": pa.binary(),
        "boolean": pa.bool_(),
    }
    fields = []
    for part in ddl.split(", "):
        name, kind = part.split(" ")
        fields.append(pa.field(name, kinds[kind]))
    return pa.schema(fields)
