"""Extract: dmpmqmsg files -> a DataFrame of decoded messages (one row each).

Reading is the JVM's: Spark's text source with the blank-line record separator
(``lineSep`` ``"\\n\\n"``, or ``"\\r\\n\\r\\n"`` for CRLF files) cuts every file
into records, one per message, and Hadoop's record reader cuts splits at record
boundaries. Inputs are path strings or Hadoop URIs (``file:``, ``hdfs:``,
``s3a:`` ...); the driver looks at each file's first and last bytes through the
Hadoop FileSystem API (header, line ends, a cut-off end), never with Python.
The common record is decoded in the JVM by the drain's Java UDF
(:mod:`dlqhandler.spark.jar`, ``jvm/DumpRecordDecoder.java``: one pass over the
record's characters), or, where no JDK can build it, by Spark's column expressions
(:mod:`dlqhandler.spark.decode`); only the rest (records without an MQDLH, ``S``/``T``
lines, malformed text) goes to a Python worker (:mod:`dlqhandler.spark.rare`), and
the count of those is kept.

The message frame's columns (the contract :mod:`dlqhandler.spark.classify`, the
audit and ``dlqhandler report`` read; :data:`MESSAGE_SCHEMA` in order):

* ``file_index`` int (position of the file in the input list), ``split_start``
  long (byte offset of the Hadoop split that read the record), ``seq`` long
  (increasing in input order within a split): together the input order;
* ``error`` string: null, or why the record is malformed (file, line, message
  number and problem); such a row has no message columns and stays (REMAIN);
* ``md_<field>`` for every MQMD field, ``body`` (the data, MQDLH included),
  ``has_dlh``, ``dlh_error`` (why there is no valid MQDLH), ``dlh_<field>`` for
  every MQDLH field but the version;
* ``decoded_in_python`` boolean: the row took the Python path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

from dlqhandler.errors import ConfigError, DumpFormatError
from dlqhandler.mq.mqdlh import MQDLH
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.spark.decode import decode_records
from dlqhandler.spark.inputs import header_problem, resolve_inputs
from dlqhandler.spark.jar import DECODER_FUNCTION, register_decoder
from dlqhandler.spark.rare import SUB_BITS, rare_udf

__all__ = [
    "DLH_FIELDS",
    "MD_FIELDS",
    "MESSAGE_COLUMNS",
    "MESSAGE_SCHEMA",
    "Messages",
    "expand_inputs",
    "load_messages",
    "locate_errors",
    "read_messages",
    "read_records",
]

_SQL_TYPE = {bytes: "binary", str: "string", int: "int"}
MD_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQMD)
)
DLH_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQDLH) if f.name != "version"
)

MESSAGE_SCHEMA = ", ".join(
    ["file_index int", "split_start long", "seq long", "error string"]
    + [f"md_{name} {kind}" for name, kind in MD_FIELDS]
    + ["body binary", "has_dlh boolean", "dlh_error string"]
    + [f"dlh_{name} {kind}" for name, kind in DLH_FIELDS]
)
MESSAGE_COLUMNS = [part.split(" ")[0] for part in MESSAGE_SCHEMA.split(", ")]

_PROBE = 1 << 16  # bytes read at each end of a file by the driver
_TAIL_MATCH = 64


def expand_inputs(inputs: list[str], spark: Any = None) -> list[str]:
    """The files ``inputs`` name (paths, directories, globs, Hadoop URIs listed through
    ``spark``), each once: :func:`dlqhandler.spark.inputs.resolve_inputs`."""
    found = resolve_inputs(inputs, spark)
    if found.pending:
        raise ConfigError(f"--input {found.pending[0]}: a Hadoop URI needs a Spark session")
    return list(found.files)


@dataclass(frozen=True, slots=True)
class _File:
    """What the driver learnt from a file's ends (through the Hadoop FileSystem)."""

    index: int
    uri: str  # fully qualified, as Spark's _metadata.file_path spells it
    name: str  # as given, for messages
    size: int
    newline: str
    cut_tail: bytes | None  # the last bytes of a file that does not end with a blank line
    cut_length: int | None  # the cut-off record's length, when the probe saw all of it


def _probe(spark: Any, index: int, name: str) -> _File:
    jvm = spark.sparkContext._jvm  # py4j: the JVM reads the file
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(name)
    fs = path.getFileSystem(conf)
    qualified = fs.makeQualified(path)
    status = fs.getFileStatus(qualified)
    size = int(status.getLen())
    if status.isDirectory():
        raise ConfigError(f"--input {name}: a directory; give its files")
    if size == 0:
        raise DumpFormatError(
            "empty file: expected a '* DMPMQMSG' or '* QLOAD' header line", path=name, line=1
        )
    stream = fs.open(qualified)
    try:
        head = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, min(size, _PROBE)))
        tail_len = min(size, _PROBE)
        stream.seek(size - tail_len)
        tail = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, tail_len))
    finally:
        stream.close()
    problem = header_problem(head)
    if problem:
        first = head.lstrip(b"\r\n")
        raise DumpFormatError(problem, path=name, line=1 + len(head) - len(first))
    newline = "\r\n" if b"\r\n" in head else "\n"
    sep = newline.encode() * 2
    cut_tail = cut_length = None
    if not tail.endswith(sep):
        cut_tail = tail[-_TAIL_MATCH:]
        at = tail.rfind(sep)
        if at >= 0:
            cut_length = len(tail) - at - len(sep)
        elif tail_len == size:
            cut_length = size  # the whole file is one record (a header and nothing else)
    uri = qualified.toUri()
    authority = uri.getRawAuthority()
    # Spark's _metadata.file_path spelling: file:/x (no empty authority), %-escapes kept.
    spelt = f"{uri.getScheme()}:{'//' + authority if authority else ''}{uri.getRawPath()}"
    return _File(index, spelt, name, size, newline, cut_tail, cut_length)


def read_records(
    spark: Any, inputs: Sequence[str | PathLike[str]], *, split_bytes: int = 128 << 20
) -> tuple[Any, list[_File]]:
    """One row per blank-line separated record of the input files.

    Columns: ``file_index``, ``split_start``, ``seq``, ``value`` (the record, leading
    line ends removed), ``raw_len`` and ``lead`` (characters before and removed),
    ``lines`` (line ends the record and its separator take), ``skip`` (empty or
    comments only: the header), ``cut`` (the unterminated last record of a file),
    ``newline``. ``split_bytes`` becomes ``spark.sql.files.maxPartitionBytes``.
    """
    from pyspark.sql import functions as F

    files = [_probe(spark, i, str(name)) for i, name in enumerate(inputs)]
    if not files:
        raise ConfigError("no input files")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1 << 10, split_bytes)))
    uris = F.array(*[F.lit(f.uri) for f in files])
    frames = []
    for newline in sorted({f.newline for f in files}):
        group = [f for f in files if f.newline == newline]
        raw = (
            spark.read.option("lineSep", newline * 2)
            .text([f.uri for f in group])
            .select(
                "value",
                F.col("_metadata.file_path").alias("_path"),
                F.col("_metadata.file_block_start").alias("split_start"),
                F.monotonically_increasing_id().alias("_id"),
            )
        )
        value = F.ltrim(F.col("value"), F.lit(newline))
        file_index = (F.array_position(uris, F.col("_path")) - 1).cast("int")
        cut = F.lit(False)
        for f in group:
            if f.cut_tail is None:
                continue
            binary = F.col("value").cast("binary")
            # (not "in the last split": a record belongs to the split it starts in)
            this = (file_index == f.index) & (
                F.substring(binary, -len(f.cut_tail), len(f.cut_tail))
                == F.lit(bytearray(f.cut_tail))
            )
            if f.cut_length is not None:
                this = this & (F.octet_length(binary) == f.cut_length)
            cut = cut | this
        frames.append(
            raw.select(
                file_index.alias("file_index"),
                "split_start",
                F.shiftleft(F.col("_id").bitwiseAND((1 << 33) - 1), SUB_BITS).alias("seq"),
                value.alias("value"),
                F.length("value").alias("raw_len"),
                (F.length("value") - F.length(value)).alias("lead"),
                (
                    F.length("value")
                    - F.length(F.replace(F.col("value"), F.lit("\n"), F.lit("")))
                    + 2
                ).alias("lines"),
                _skip(value).alias("skip"),
                cut.alias("cut"),
                F.lit(newline).alias("newline"),
            )
        )
    records = frames[0]
    for other in frames[1:]:
        records = records.unionByName(other)
    return records, files


def _skip(value: Any) -> Any:
    """An empty record, or comment lines only (the file header)."""
    return (value == "") | (value.startswith("*") & ~value.rlike(r"\n[^*]"))


@dataclass
class Messages:
    """The message frame, its records (for :func:`locate_errors`), the files and the
    decoder of the common record (``jvm`` or ``expressions``)."""

    frame: Any
    records: Any
    files: list[_File]
    decoder: str = "jvm"


_PY_DDL = ", ".join(["sub int", "error string", "error_line int", *MESSAGE_SCHEMA.split(", ")[4:]])
# What DumpRecordDecoder.java returns: the MQMD, the body, the MQDLH (no flags).
_JVM_FIELDS = (
    [f"md_{name} {kind}" for name, kind in MD_FIELDS]
    + ["body binary"]
    + [f"dlh_{name} {kind}" for name, kind in DLH_FIELDS]
)
_JVM_DDL = ", ".join(_JVM_FIELDS)


def _jvm_decode(records: Any) -> Any:
    """The record frame plus the message columns and ``common``, decoded by
    :file:`jvm/DumpRecordDecoder.java` from ``_record`` (the record with ``\n`` line
    ends; null, so not common, for a rare record)."""
    from pyspark.sql import functions as F

    frame = records.withColumn("_m", F.call_function(DECODER_FUNCTION, F.col("_record")))
    columns = {part.split(" ")[0]: F.col("_m").getField(part.split(" ")[0]) for part in _JVM_FIELDS}
    return frame.withColumns(
        {
            **columns,
            "has_dlh": F.lit(True),
            "dlh_error": F.lit(None).cast("string"),
            "error": F.lit(None).cast("string"),
            "common": F.col("_m").isNotNull(),
        }
    ).drop("_m")


def load_messages(
    spark: Any, inputs: Sequence[str | PathLike[str]], *, split_bytes: int = 128 << 20
) -> Messages:
    """Records -> messages: native decode for the common ones, Python for the rest.

    One pipeline per task, no shuffle, nothing cached: the native columns, and for
    a rare record the Python path's (:func:`dlqhandler.spark.rare.rare_udf`, whose
    argument is null on common rows), one row per message it holds. The frame has
    :data:`MESSAGE_SCHEMA` plus ``decoded_in_python``, ``error_line`` (the
    problem's line within its record; :func:`locate_errors` makes it a file line) and
    ``record``: the record's text with ``\n`` line ends when the native decode took
    it (the drain writes it as it is), else null.
    """
    from pyspark.sql import functions as F

    records, files = read_records(spark, inputs, split_bytes=split_bytes)
    jvm = register_decoder(spark, _JVM_DDL)
    natives = []
    for newline in sorted({f.newline for f in files}):
        group = records.filter(F.col("newline") == newline) if len(files) > 1 else records
        group = group.withColumn(
            "_record",
            F.col("value")
            if newline == "\n"
            else F.replace(F.col("value"), F.lit(newline), F.lit("\n")),
        )
        natives.append(_jvm_decode(group) if jvm else decode_records(group, newline))
    decoded = natives[0]
    for other in natives[1:]:
        decoded = decoded.unionByName(other)
    rare = ~F.col("common") | F.col("cut")
    md_names = [name for name, _kind in MD_FIELDS]
    dlh_names = [name for name, _kind in DLH_FIELDS]
    py = rare_udf(_PY_DDL, md_names, dlh_names)
    frame = (
        decoded.filter(~F.col("skip"))
        .withColumn("_py", py(F.when(rare, F.col("value").cast("binary")), F.col("cut")))
        .withColumn("_rare", rare)
        .select(
            "*",
            F.inline_outer("_py").alias(
                *[f"_p_{part.split(' ')[0]}" for part in _PY_DDL.split(", ")]
            ),
        )
    )
    picked = {"seq": F.col("seq") + F.coalesce(F.col("_p_sub").cast("long"), F.lit(0))}
    for name in MESSAGE_COLUMNS[3:]:
        picked[name] = F.when(F.col("_rare"), F.col(f"_p_{name}")).otherwise(F.col(name))
    frame = frame.select(
        "file_index",
        "split_start",
        *[picked[n].alias(n) for n in picked],
        F.col("_rare").alias("decoded_in_python"),
        F.col("_p_error_line").alias("error_line"),
        F.when(~F.col("_rare"), F.col("_record")).alias("record"),
    )
    return Messages(
        frame.select(*MESSAGE_COLUMNS, "decoded_in_python", "error_line", "record"),
        records,
        files,
        "jvm" if jvm else "expressions",
    )


def locate_errors(
    spark: Any, records: Any, errors: list[Any], files: list[_File]
) -> list[tuple[int, int, int, str]]:
    """``(file_index, split_start, seq, reason)`` for each error row, the reason
    naming the file, the line and the message number.

    Two small jobs over record positions of the files concerned (no decode): totals
    per split, and what precedes each error within its split.
    """
    from pyspark.sql import functions as F

    wanted = sorted({r["file_index"] for r in errors})
    pos = records.filter(F.col("file_index").isin(wanted)).select(
        "file_index",
        "split_start",
        "seq",
        "lines",
        "lead",
        (~F.col("skip")).cast("int").alias("msg"),
    )
    per_split = (
        pos.groupBy("file_index", "split_start")
        .agg(F.sum("lines").alias("lines"), F.sum("msg").alias("msgs"))
        .collect()
    )
    keys = spark.createDataFrame(
        sorted(
            {(r["file_index"], r["split_start"], r["seq"] >> SUB_BITS << SUB_BITS) for r in errors}
        ),
        "e_file int, e_split long, e_seq long",
    )
    same = (F.col("file_index") == F.col("e_file")) & (F.col("split_start") == F.col("e_split"))
    before = {
        (r["e_file"], r["e_split"], r["e_seq"]): (r["lines"], r["msgs"])
        for r in pos.join(F.broadcast(keys), same & (F.col("seq") < F.col("e_seq")))
        .groupBy("e_file", "e_split", "e_seq")
        .agg(F.sum("lines").alias("lines"), F.sum("msg").alias("msgs"))
        .collect()
    }
    leads = {
        (r["file_index"], r["split_start"], r["seq"]): r["lead"]
        for r in pos.join(F.broadcast(keys), same & (F.col("seq") == F.col("e_seq")))
        .select("file_index", "split_start", "seq", "lead")
        .collect()
    }
    located = []
    for r in errors:
        fi, split, seq = r["file_index"], r["split_start"], r["seq"]
        record = seq >> SUB_BITS << SUB_BITS
        lines_before = sum(
            s["lines"] for s in per_split if s["file_index"] == fi and s["split_start"] < split
        )
        msgs_before = sum(
            s["msgs"] for s in per_split if s["file_index"] == fi and s["split_start"] < split
        )
        lines_in, msgs_in = before.get((fi, split, record), (0, 0))
        lead = leads.get((fi, split, record), 0) or 0
        if files[fi].newline == "\r\n":
            lead //= 2
        line = lines_before + (lines_in or 0) + lead + (r["error_line"] or 1)
        number = 1 + msgs_before + (msgs_in or 0) + (seq - record)
        located.append(
            (fi, split, seq, f"{files[fi].name}, line {line}, message {number}: {r['error']}")
        )
    return located


def read_messages(
    spark: Any, files: Sequence[str | PathLike[str]], *, split_bytes: int = 128 << 20
) -> Any:
    """The messages of ``files`` as a DataFrame (see :func:`load_messages`), without
    the record text."""
    return load_messages(spark, files, split_bytes=split_bytes).frame.drop("record")
