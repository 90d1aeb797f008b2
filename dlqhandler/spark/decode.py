"""Decode dmpmqmsg records in the JVM: native column expressions, no Python worker.

Input: a record frame (one row per blank-line separated record, see
:func:`dlqhandler.spark.extract.read_records`) with a ``value`` string column.
Output (:func:`decode_records`): the record frame plus every message column of
:data:`dlqhandler.spark.extract.MESSAGE_SCHEMA` and a boolean ``common``.

``common`` is true only for the case this module decodes exactly like the Python
reader (:mod:`dlqhandler.formats.dump_reader` plus
:func:`dlqhandler.mq.message.decode_dead_letter`), which is what ``dmpmqmsg``
and :class:`~dlqhandler.formats.dmpmqmsg.DumpWriter` write for an MQMD version 2:

* the 28 ``A`` lines in the writer's order (VER RPT ... AIX ... AOX GRP ... ORL),
  ``A VER 2``; integers ``-?[0-9]{1,9}``; character values printable ASCII and
  no longer than their field; hex values full width;
* then one or more ``X`` lines, each ``X`` + one blank + an even number of hex
  digits (upper or lower case);
* a valid version-1 MQDLH at the start of the data: StrucId ``DLH `` in ASCII,
  the MQMD Encoding's integer part 1 (big-endian, e.g. 273) or 2
  (little-endian, e.g. 546), an ASCII-compatible CCSID (819, 1208, 437, ...)
  and printable-ASCII text fields.

Every other record (``S``/``T`` data lines, ``-dc`` or ``-di`` files, MQMD
version 1, EBCDIC or undefined encodings, no MQDLH, anything malformed) is
*not common*: :mod:`dlqhandler.spark.rare` decodes it with the Python reader,
which stays the reference. On a common row ``has_dlh`` is true and
``dlh_error`` null; on other rows the decoded columns are meaningless.

The rules of the Python reader this mirrors: character values are ISO-8859-1
text with trailing blanks removed; ``AIX``/``AOX`` are hex of a character field
(cut at the first NUL); the MQDLH's text is cut at NUL, trailing blanks removed,
and its CodedCharSetId -2 (MQCCSI_INHERIT) becomes the data CCSID.
"""

from __future__ import annotations

from typing import Any

from dlqhandler.formats._attributes import ATTRIBUTES, Kind

__all__ = ["ASCII_CCSIDS", "COMMON_CODES", "decode_records"]

# CCSIDs whose bytes 0x20-0x7E are ASCII (0 = the queue manager's, ISO-8859-1 here).
ASCII_CCSIDS = (0, 367, 437, 819, 850, 852, 858, 912, 923, 1208, 1250, 1251, 1252, 5348)

# The A lines of a version-2 MQMD in the writer's order (AIX/AOX, not -dc's AID/AOD).
_COMMON = tuple(a for a in ATTRIBUTES if a.ctx_chars in (None, False))
COMMON_CODES = tuple(a.code for a in _COMMON)
_SIGNATURE = "".join(f"A {code} " for code in COMMON_CODES)
_N_ATTR = len(_COMMON)

# MQDLH fields: offset, length (text) or None (MQLONG).
_DLH_LONGS = {"reason": 8, "encoding": 108, "coded_char_set_id": 112, "put_appl_type": 124}
_DLH_TEXT = {
    "dest_q_name": (12, 48),
    "dest_q_mgr_name": (60, 48),
    "format": (116, 8),
    "put_appl_name": (128, 28),
    "put_date": (156, 8),
    "put_time": (164, 8),
}
_DLH_LENGTH = 172
_PRINTABLE = r"^[\x20-\x7E]*$"
_INT = r"-?[0-9]{1,9}"


def _value(lines: Any, index: int) -> Any:
    """The value of line ``index`` (0-based): column 7 onwards."""
    from pyspark.sql import functions as F

    return F.substring(F.get(lines, index), 7, 1 << 30)


def _mqlong(body: Any, offset: int, big_endian: Any) -> Any:
    """A signed 32-bit integer at ``offset`` in ``body``, in either byte order."""
    from pyspark.sql import functions as F

    h = F.hex(F.substring(body, offset + 1, 4))
    little = F.concat(
        F.substring(h, 7, 2), F.substring(h, 5, 2), F.substring(h, 3, 2), F.substring(h, 1, 2)
    )
    unsigned = F.conv(F.when(big_endian, h).otherwise(little), 16, 10).cast("long")
    return F.when(unsigned > 0x7FFFFFFF, unsigned - (1 << 32)).otherwise(unsigned).cast("int")


def _dlh_text(body: Any, offset: int, length: int) -> Any:
    """An MQCHARn of the MQDLH: cut at the first NUL (trailing blanks are removed later)."""
    from pyspark.sql import functions as F

    return F.substring_index(
        F.decode(F.substring(body, offset + 1, length), "ISO-8859-1"), "\x00", 1
    )


def decode_records(records: Any, newline: str = "\n") -> Any:
    """Add the message columns and ``common`` to a record frame (see the module doc).

    ``newline`` is the files' line end (``"\\n"`` or ``"\\r\\n"``).
    """
    from pyspark.sql import functions as F

    lines = F.split(F.col("value"), newline.replace("\r", "\\r").replace("\n", "\\n"))
    frame = records.withColumn("_lines", lines)
    ln = F.col("_lines")
    md: dict[str, Any] = {}
    longs: list[Any] = []
    texts: list[Any] = []
    checks: list[Any] = [
        F.size(ln) > _N_ATTR,
        F.concat(*[F.substring(F.get(ln, i), 1, 6) for i in range(_N_ATTR)]) == _SIGNATURE,
        F.get(ln, 0) == "A VER 2",
    ]
    for i, a in enumerate(_COMMON):
        v = _value(ln, i)
        name = f"md_{a.attr}"
        if a.kind == Kind.LONG:
            longs.append(v)
            md[name] = v.try_cast("int")
        elif a.kind == Kind.CHAR:
            texts.append(v)
            checks.append(F.length(v) <= a.length)
            md[name] = F.rtrim(v)
        else:
            raw = F.when(F.length(v) == 2 * a.length, F.unhex(v))
            checks.append(raw.isNotNull())
            if a.kind == Kind.BYTE:
                md[name] = raw
            else:  # CHAR_AS_HEX: the bytes are ISO-8859-1 text, cut at NUL
                md[name] = F.rtrim(F.substring_index(F.decode(raw, "ISO-8859-1"), "\x00", 1))
    checks.append(F.concat_ws("|", *longs).rlike(rf"^(?:{_INT}\|){{{len(longs) - 1}}}{_INT}$"))
    checks.append(F.concat(*texts).rlike(_PRINTABLE))
    nl = newline.replace("\r", "\\r").replace("\n", "\\n")
    xblock = F.substring(
        F.col("value"), F.instr(F.col("value"), newline + "X ") + len(newline), 1 << 30
    )
    checks.append(F.startswith(F.get(ln, _N_ATTR), F.lit("X ")))
    checks.append(xblock.rlike(rf"^X (?:[0-9A-Fa-f]{{2}})*(?:{nl}X (?:[0-9A-Fa-f]{{2}})*)*$"))
    frame = frame.withColumns({**md, "_xblock": xblock, "_md_ok": _all(checks)})
    frame = frame.withColumn(
        "body",
        F.when(
            F.col("_md_ok"),
            F.unhex(
                F.substring(
                    F.replace(F.col("_xblock"), F.lit(newline + "X "), F.lit("")), 3, 1 << 30
                )
            ),
        ),
    )
    return _decode_dlh(frame).drop("_lines", "_xblock", "_md_ok")


def _all(checks: list[Any]) -> Any:
    from pyspark.sql import functions as F

    cond = checks[0]
    for c in checks[1:]:
        cond = cond & c
    return F.coalesce(cond, F.lit(False))


def _decode_dlh(frame: Any) -> Any:
    """The MQDLH columns and the final ``common`` flag."""
    from pyspark.sql import functions as F

    body = F.col("body")
    enc = F.col("md_encoding").bitwiseAND(15)
    big = enc == 1
    data_ccsid = F.when(F.col("md_coded_char_set_id") == 0, F.lit(819)).otherwise(
        F.col("md_coded_char_set_id")
    )
    dlh: dict[str, Any] = {
        f"dlh_{name}": _mqlong(body, off, big) for name, off in _DLH_LONGS.items()
    }
    ccsid = dlh["dlh_coded_char_set_id"]
    dlh["dlh_coded_char_set_id"] = F.when(ccsid == -2, data_ccsid).otherwise(ccsid)
    texts = {
        f"dlh_{name}": _dlh_text(body, off, length) for name, (off, length) in _DLH_TEXT.items()
    }
    frame = frame.withColumns(texts)
    checks = [
        F.col("_md_ok"),
        F.octet_length(body) >= _DLH_LENGTH,
        F.substring(body, 1, 4) == F.lit(bytearray(b"DLH ")),
        enc.isin(1, 2),
        _mqlong(body, 4, big) == 1,
        F.col("md_coded_char_set_id").isin(*ASCII_CCSIDS),
        F.concat(*[F.col(k) for k in texts]).rlike(_PRINTABLE),
    ]
    return frame.withColumns(
        {
            **dlh,
            **{k: F.rtrim(F.col(k)) for k in texts},
            "has_dlh": F.lit(True),
            "dlh_error": F.lit(None).cast("string"),
            "error": F.lit(None).cast("string"),
            "common": _all(checks),
        }
    )
