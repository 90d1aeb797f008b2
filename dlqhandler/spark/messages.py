"""Extract: dmpmqmsg files -> a DataFrame of messages, through the ``dmpmqmsg`` data source.

The JVM reads and decodes every record (``jvm/DmpmqmsgFileFormat.java``: splits cut on
message boundaries in bytes, every record kind decoded there, the columns a query does
not select never materialised), so no Python runs per message and no Python UDF is in
any plan. The session must have the data source on its class path: a session this
package builds has (:func:`dlqhandler.spark.session.jvm_settings`); under
``spark-submit``, ``python -m dlqhandler.spark.jar`` prints the options that put it
there.

The message frame's columns (the contract :mod:`dlqhandler.spark.classify`, the drain's
audit and outputs read; :data:`MESSAGE_COLUMNS` in order):

* ``file_index`` int (position of the file in the input list), ``split_start`` long
  (byte offset of the split that read the message), ``seq`` long (the message's byte
  offset in its file): together the input order;
* ``error`` string: null, or why the record is malformed (the drain's: ``<file>, line
  <n>, message <m>: <problem>``, the file as given); such a row has no message columns
  and stays (REMAIN); ``error_line`` int: that line;
* ``md_<field>`` for every MQMD field, ``has_dlh``, ``dlh_error`` (why there is no
  valid MQDLH), ``dlh_<field>`` for every MQDLH field but the version, ``dlh_count``
  (how many MQDLHs are chained from the first: the hop count; null without one);
* ``decoded_in_python`` boolean: always false (the contract keeps it: nothing is
  decoded in Python any more);
* ``record`` binary (with ``record=True``): the message's bytes as in the file.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dlqhandler.errors import ConfigError, DumpFormatError
from dlqhandler.logs import get_logger
from dlqhandler.mq.mqdlh import MQDLH
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.spark.files import is_local, local_path
from dlqhandler.spark.sql import sql_string

__all__ = [
    "DLH_FIELDS",
    "MD_FIELDS",
    "MESSAGE_COLUMNS",
    "SOURCE",
    "bad_input",
    "balanced_split",
    "dump_error",
    "load_source",
    "malformed_parts",
    "read_messages",
    "spelt_uris",
]

SOURCE = "dmpmqmsg"  # the data source's short name (jvm/DmpmqmsgFileFormat.java)
_SQL_TYPE = {bytes: "binary", str: "string", int: "int"}
MD_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQMD)
)
DLH_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQDLH) if f.name != "version"
)
MESSAGE_COLUMNS = [
    "file_index",
    "split_start",
    "seq",
    "error",
    *(f"md_{name}" for name, _kind in MD_FIELDS),
    "has_dlh",
    "dlh_error",
    *(f"dlh_{name}" for name, _kind in DLH_FIELDS),
    "dlh_count",
    "decoded_in_python",
    "error_line",
]

_log = get_logger(__name__)
T = TypeVar("T")
_GLOB = re.compile(r"([\\{}\[\]*?])")  # Spark globs a path holding one of these
# malformed = "<input_file>:<line>: [after ]message <n>: <problem>" (after the file's own name;
# "after": junk after message n's data lines)
_LOCATED = r"^([0-9]+): ((?:after )?message [0-9]+): (?s:(.*))$"
_DUMP_ERROR = re.compile(r"dmpmqmsg: (.+?):([0-9]+): ([^\n]*)")


def load_source(
    spark: Any, files: Sequence[str], *, split_bytes: int = 128 << 20, **options: str
) -> Any:
    """``spark.read.format("dmpmqmsg").load(files)`` with splits of ``split_bytes``
    (``spark.sql.files.maxPartitionBytes``); a file name is a name, not a glob. A
    session without the data source gets the package's jar added (``ADD JAR``); where
    there is none, a :class:`ConfigError` says how to add it."""
    if not files:
        raise ConfigError("no input files")
    split = max(1 << 10, split_bytes)
    sizes = _local_sizes(files)
    if sizes is not None:
        split = max(1 << 10, balanced_split(sizes, split, _cores(spark)))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(split))
    paths = [_GLOB.sub(r"\\\1", str(f)) for f in files]
    for attempt in range(2):
        try:
            return spark.read.format(SOURCE).options(**options).load(paths)
        except Exception as exc:  # py4j: SparkClassNotFoundException, not converted
            if "DATA_SOURCE_NOT_FOUND" not in str(exc) or SOURCE not in str(exc):
                raise
        # a session this package did not launch (spark-submit without the jar)
        if attempt or not _add_jar(spark):
            break
    raise ConfigError(
        "this Spark session has no 'dmpmqmsg' data source (dlqhandler's jar is not on "
        "its class path): under spark-submit, add the options that "
        "'python -m dlqhandler.spark.jar' prints; without a shipped jar, a JDK (javac) "
        "builds it"
    )


def balanced_split(sizes: Sequence[int], largest: int, cores: int) -> int:
    """The split size for files of ``sizes`` bytes: at most ``largest`` (``--split-mb``),
    and, when the files make more splits than there are ``cores``, a multiple of
    ``cores`` splits (for one file; near it for several), so that every core has a
    split in the last wave of tasks: 13 splits of 128 MiB on 2 cores leave one core
    idle for the thirteenth, 14 of 119 MiB do not. Fewer splits than cores are left to
    Spark, which makes them smaller so that every core has a share."""
    chunks = sum(-(-size // largest) for size in sizes)
    if cores < 2 or chunks <= cores:
        return largest
    want = -(-chunks // cores) * cores
    total = sum(sizes)
    split = -(-total // want)  # at most largest: total / want <= total / chunks <= largest
    if sum(-(-size // split) for size in sizes) < want:
        split = max(1, total // want)
    return split


def _local_sizes(files: Sequence[str]) -> list[int] | None:
    """The sizes of ``files`` when all are local paths (Hadoop URIs are not looked at
    again: their splits are Spark's own), else None."""
    if not all(is_local(f) for f in files):
        return None
    try:
        return [local_path(f).stat().st_size for f in files]
    except (OSError, ConfigError):
        return None


def _cores(spark: Any) -> int:
    """The session's default parallelism: the cores its tasks run on (1 when unknown)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # a session without a SparkContext here (Spark Connect)
        return 1


def _add_jar(spark: Any) -> bool:
    """``ADD JAR`` the package's jar (shipped, or built here with a JDK) to a session that
    lacks it: the session's class loader on the driver (py4j pins this Python thread to
    one JVM thread, whose context class loader it sets) and the executors, which fetch
    it before their next task. False when there is no jar or Spark refuses it."""
    from dlqhandler.spark.jar import compiled_jar

    jar = compiled_jar()
    if jar is None:
        return False
    try:
        spark.sql(f"ADD JAR '{jar}'")
    except Exception as exc:  # py4j/analysis errors: the caller's clear error follows
        _log.warning("jar_not_added", jar=str(jar), why=f"{type(exc).__name__}: {exc}"[:300])
        return False
    return True


def spelt_uris(spark: Any, files: Sequence[str]) -> list[str]:
    """Each file as the source's ``input_file`` spells it: as Spark lists it (its
    ``FileStatus`` path, URL-encoded: ``file:///x``, %-escapes kept)."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    spelt = []
    for name in files:
        path = jvm.org.apache.hadoop.fs.Path(str(name))
        fs = path.getFileSystem(conf)
        status = fs.getFileStatus(fs.makeQualified(path))
        spelt.append(jvm.org.apache.spark.paths.SparkPath.fromFileStatus(status).urlEncoded())
    return spelt


def read_messages(
    spark: Any,
    files: Sequence[str],
    *,
    split_bytes: int = 128 << 20,
    record: bool = False,
    body: bool = False,
    located: bool = False,
) -> Any:
    """The messages of ``files`` as the message frame (the module's contract), with
    ``record`` and ``body`` only when asked: the scan reads what the frame's consumers
    select (a query of header columns never copies a record nor decodes a body).
    ``error`` is the problem alone (what the report counts by), or with ``located`` the
    drain's ``<file>, line <n>, [after ]message <m>: <problem>``."""
    files = [str(f) for f in files]
    # a cut-off message is named by its first line, as the drain always has
    source = load_source(spark, files, split_bytes=split_bytes, cutOffLine="message")
    uris = ", ".join(sql_string(u) for u in spelt_uris(spark, files))
    # the file and the split from the source's own columns: Spark's _metadata columns
    # would cost a copy of every row (they are joined to it and the pair projected)
    index = f"CAST(array_position(array({uris}), input_file) - 1 AS INT)"
    names = f"get(array({', '.join(sql_string(f) for f in files)}), {index})"
    line, message, problem = malformed_parts()
    said = (
        problem
        if not located
        else f"concat({names}, ', line ', {line}, ', ', {message}, ': ', {problem})"
    )
    columns = [
        f"{index} AS file_index",
        "split_start",
        "offset AS seq",
        f"CASE WHEN malformed IS NOT NULL THEN {said} END AS error",
        *(f"md_{name}" for name, _kind in MD_FIELDS),
        "has_dlh",
        "dlh_error",
        *(f"dlh_{name}" for name, _kind in DLH_FIELDS),
        "dlh_count",
        "false AS decoded_in_python",
        f"CASE WHEN malformed IS NOT NULL THEN CAST({line} AS INT) END AS error_line",
    ]
    if body:
        columns.append("body")
    if record:
        columns.append("record")
    return source.selectExpr(*columns)  # SQL text: no Column objects (dlqhandler.spark.sql)


def malformed_parts() -> tuple[str, str, str]:
    """The line, the message (``message <n>``, or ``after message <n>`` for junk after
    its data lines) and the problem of the source's ``malformed`` column
    (``<input_file>:<line>: [after ]message <n>: <problem>``), as SQL string
    expressions."""
    located = "substring(malformed, char_length(input_file) + 2)"
    pattern = sql_string(_LOCATED)
    line, message, problem = (f"regexp_extract({located}, {pattern}, {g})" for g in (1, 2, 3))
    return line, message, problem


def bad_input(job: Callable[[], T]) -> T:
    """Run ``job`` (a Spark action over dumps); a file the data source cannot read as a
    dump (its own error inside the failed Spark job) becomes a :class:`DumpFormatError`
    naming file and line, which the drain and the report say in one line (exit 2)."""
    try:
        return job()
    except Exception as exc:
        problem = dump_error(exc)
        if problem is None:
            raise
        raise problem from None


def dump_error(exc: BaseException) -> DumpFormatError | None:
    """The data source's own error inside a failed Spark job (a file that is not a
    dump: ``dmpmqmsg: <file>:<line>: <problem>``) as a :class:`DumpFormatError`, so the
    CLI says it in one line (exit 2); None for any other failure."""
    try:
        text = str(exc)
    except Exception:  # the JVM is gone: not ours to describe
        return None
    found = _DUMP_ERROR.search(text)
    if found is None or "DumpReadException" not in text:
        return None
    return DumpFormatError(found.group(3).strip(), path=found.group(1), line=int(found.group(2)))
