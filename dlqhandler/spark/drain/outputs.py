"""Load: the drain's output directory (a contract other tools read).

* one dmpmqmsg file per target (queue, queue manager), loadable with
  ``dlqhandler qm dmpmqmsg -o`` or IBM's dmpmqmsg; RETRY targets and FWD
  HEADER(NO) targets get the message without its MQDLH (Format, Encoding and
  CodedCharSetId restored), the rest the message byte for byte;
* ``remaining.dmp``: what stays on the DLQ (only without a catch-all); a
  malformed record stays too but is not written anywhere (its reason is in the
  audit, it is counted as ``malformed``; the input file still holds it);
* ``audit/``: Parquet, one row per message (malformed and discarded ones included);
* ``summary.json`` and ``manifest.json``.

File names come from queue names, which are untrusted (MQ allows ``/`` and
``%``): :func:`target_file_name` maps them to a flat, escaped name, and every
path is checked to stay inside the output directory.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from dlqhandler.outcomes import Disposition
from dlqhandler.spark.files import OutFiles, safe_path
from dlqhandler.spark.messages import SOURCE
from dlqhandler.spark.sql import sql_string

__all__ = [
    "REMAINING_FILE",
    "Written",
    "safe_path",
    "target_file_name",
    "write_outputs",
]

REMAINING_FILE = "remaining.dmp"
_SAFE = re.compile(r"[A-Za-z0-9._-]")


def _escape(name: str) -> str:
    return "".join(ch if _SAFE.fullmatch(ch) else f"~{ord(ch):02X}" for ch in name)


def target_file_name(queue: str, qmgr: str) -> str:
    """``q-<QUEUE>@<QMGR>.dmp`` with every unsafe character as ``~XX``.

    The ``q-`` prefix keeps names like ``..`` or ``.hidden`` harmless; ``/``,
    ``%``, control characters and anything else outside ``[A-Za-z0-9._-]`` are
    escaped, so the result is always one plain file name.
    """
    return f"q-{_escape(queue)}@{_escape(qmgr) if qmgr else 'LOCAL'}.dmp"


# The MQDLH's values as the reader decoded them (and whether an MQRFH2 is in front): the
# data source's writer strips a record with them instead of decoding it again.
_TOLD = ("md_format", "dlh_format", "dlh_encoding", "dlh_coded_char_set_id")
_REMAIN_KEY = "R"  # the directory of remaining.dmp's rows
_NONE_KEY = "N"  # the directory of rows in no dump file (DISCARD, malformed): audit only
_PARTITIONS = ("t", "pf", "ps")  # output key, input file, input split


def _target_key() -> str:
    """The output directory of a row (SQL): ``R`` (remaining.dmp), ``N`` (no dump file: a
    DISCARD or a malformed record), else the target ``queue NUL qmgr`` as upper-case
    hex (any queue name makes a plain name)."""
    target = f"concat_ws({sql_string(chr(0))}, out_q, coalesce(out_qm, ''))"
    return (
        f"CASE WHEN NOT {_KEPT} THEN {sql_string(_NONE_KEY)}"
        f" WHEN disposition = {sql_string(Disposition.REMAIN.value)} THEN {sql_string(_REMAIN_KEY)}"
        f" ELSE hex(encode({target}, 'UTF-8')) END"
    )


# Whether a row goes into a dump file (SQL): not discarded, not malformed.
_KEPT = f"(disposition != {sql_string(Disposition.DISCARD.value)} AND error IS NULL)"


@dataclass
class Written:
    """What :func:`write_outputs` wrote: the dmpmqmsg files (``out_q``, ``out_qm``,
    ``file``, ``bytes``; sorted by target), the audit's Parquet files moved into
    ``audit/`` (none: no row), the rows counted by the ``counts`` columns (one dict
    per combination of their values, with its ``count``), and with ``groups`` the
    writers' group states: the text of each task's file (JSON lines sorted by group, one
    per group: see jvm/GroupStates.java)."""

    files: list[dict[str, Any]]
    audit_files: int
    counts: list[dict[str, Any]]
    group_texts: list[str]


def write_outputs(
    frame: Any,
    out: OutFiles,
    *,
    audit: tuple[str, ...],
    counts: tuple[str, ...],
    audit_options: dict[str, str] | None = None,
    partitions: int | None = None,
    groups: tuple[str, ...] = (),
) -> Written:
    """Write the kept rows of a classified frame (with its ``record``) as one dmpmqmsg
    file per target, and the ``audit`` columns (SQL expressions) of every row to
    ``audit/`` as Parquet, in one job: the input is read and classified once.

    The ``dmpmqmsg`` data source writes both (its option ``audit``: each part file's
    rows also go, through Spark's Parquet writer, to one Parquet file per task),
    partitioned by output key, input file and input split, in input order within each
    split: a task's rows arrive in that order and each directory has its own open
    writer, so nothing is sorted and nothing is shuffled. (When a task could need more
    writers than Spark keeps open, Spark would sort what is left by directory only;
    the driver sees that from the number of directories and writes again, sorted by
    input order.) A record is copied as read, or rewritten without its MQDLH for
    RETRY and FWD HEADER(NO) (``strip_dlh``). The driver then joins, per target, a
    header and the part files in input order (file, split), and moves the Parquet
    files into ``audit/``; it never sees a message. Malformed rows (``error``) and
    DISCARDs are in the audit only.

    ``audit_options`` are options of the audit's Parquet writer (``parquet.*``).

    ``counts`` (SQL expressions of the audit columns, each named: ``x`` or ``... AS x``;
    at least one) are counted by the writer itself (the data source's option
    ``counts``), every row in the same job, and summed here: a summary of what was
    written needs no second job over the audit. Each part's counts file also tells
    which directories a task wrote into.

    ``groups`` (six SQL expressions of the audit columns: a group's id, the sequence
    number, and whether the member is its group's last, a segment, placed, malformed;
    or none) have each task's writers track the message groups among its rows (the data
    source's option ``groups``): :attr:`Written.group_texts`, in the same job.
    """
    if not counts:
        raise ValueError("write_outputs needs at least one column to count by")
    if partitions:
        frame = frame.coalesce(partitions)
    audited = frame.selectExpr(*audit)
    audit_names = audited.columns
    counted = audited.selectExpr(*counts).columns
    from pyspark.sql import functions as F

    count_exprs = [  # an audit column is counted as it is; anything else computed from them
        F.expr(e).alias(f"_n_{name}")  # (``e`` may name itself: ``... AS x``)
        for e, name in zip(counts, counted, strict=True)
        if name not in audit_names
    ]
    count_columns = [n if n in audit_names else f"_n_{n}" for n in counted]
    group_exprs = [F.expr(e).alias(f"_g_{i}") for i, e in enumerate(groups)]
    rows = frame.selectExpr(
        f"{_target_key()} AS t",
        "file_index AS pf",
        "split_start AS ps",
        "seq AS _seq",
        f"CASE WHEN {_KEPT} THEN record END AS record",
        "coalesce(strip_header, false) AS strip_dlh",
        *_TOLD,
        *audit,
    ).select("*", *count_exprs, *group_exprs)
    options: dict[str, Any] = {
        "audit": audit_names,
        "counts": count_columns,
        "groups": [f"_g_{i}" for i in range(len(groups))],
        "parquet": audit_options or {},
    }
    parts_dir = f".parts-{uuid.uuid4().hex}"
    _write_parts(rows, out.uri(parts_dir), sort=False, **options)
    parts = _listed(out, parts_dir)
    if _most_writers(out, parts_dir) > _MAX_WRITERS:  # Spark sorted the rest: write again
        out.delete(parts_dir)
        _write_parts(rows, out.uri(parts_dir), sort=True, **options)
        parts = _listed(out, parts_dir)
    summed = _summed(out, parts_dir, dict(zip(count_columns, counted, strict=True)))
    states = _group_texts(out, parts_dir) if groups else []
    targets = []
    for key in sorted(parts):
        if key == _NONE_KEY:
            continue
        if key == _REMAIN_KEY:
            name, q, qm = REMAINING_FILE, None, None
        else:
            q, qm = bytes.fromhex(key).decode("utf-8").split("\x00", 1)
            name = target_file_name(q, qm)
        targets.append((key, name, q, qm))
    # Joining copies every written byte once more (side by side, outside the GIL).
    sizes = out.join([(name, parts[key]) for key, name, _q, _qm in targets])
    written = [
        {"out_q": q, "out_qm": qm, "file": name, "bytes": size}
        for (_key, name, q, qm), size in zip(targets, sizes, strict=True)
    ]
    written.sort(key=lambda r: (r["out_q"] or "", r["out_qm"] or ""))
    moved = out.gather(parts_dir, "audit")
    out.delete(parts_dir)
    return Written(written, moved, summed, states)


def _summed(out: OutFiles, parts_dir: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """The writers' counts (``part-....counts.json``: JSON lines) summed by their
    values, the columns under their names in ``counts``."""
    total: dict[str, int] = {}
    for text in out.texts(_beside_parts(out, parts_dir, _COUNTS_SUFFIX)):
        for line in text.splitlines():
            if line:
                row = json.loads(line)
                n = row.pop("count")
                key = json.dumps({names[k]: v for k, v in row.items()}, sort_keys=True)
                total[key] = total.get(key, 0) + n
    return [{**json.loads(k), "count": n} for k, n in total.items()]


_COUNTS_SUFFIX = ".counts.json"  # jvm/RowCounts.java
_GROUPS_SUFFIX = ".groups.json"  # jvm/GroupStates.java


def _group_texts(out: OutFiles, parts_dir: str) -> list[str]:
    """The writers' group states (``part-....groups.json``: JSON lines), as written."""
    return out.texts(_beside_parts(out, parts_dir, _GROUPS_SUFFIX))


def _beside_parts(out: OutFiles, parts_dir: str, suffix: str) -> list[str]:
    """The files the writers left beside their parts with names ending ``suffix``."""
    return [
        uri
        for key in out.children(parts_dir)
        if key.startswith("t=")
        for uri in out.parts(parts_dir, key, suffix=suffix)
    ]


_MAX_WRITERS = 256  # open output files per task (spark.sql.maxConcurrentOutputFileWriters)
_TASK = re.compile(r"/part-(\d+)-[^/]*$")  # part-<task>-<job uuid>.c000.dmp


def _listed(out: OutFiles, parts_dir: str) -> dict[str, list[str]]:
    """The dump part files of each output key (``t=<key>``), in input order."""
    return {
        name[2:]: out.parts(parts_dir, name)
        for name in out.children(parts_dir)
        if name.startswith("t=")
    }


def _most_writers(out: OutFiles, parts_dir: str) -> int:
    """The most directories one task wrote into (every part, with or without a dump file,
    leaves its counts file). Each had its own open writer, so more than
    :data:`_MAX_WRITERS` means Spark sorted the rest of that task's rows by directory
    only, and input order within a split may be lost."""
    dirs: dict[str, set[str]] = {}
    for name in out.children(parts_dir):
        if not name.startswith("t="):
            continue
        for uri in out.parts(parts_dir, name, suffix=_COUNTS_SUFFIX):
            task = _TASK.search(uri)
            dirs.setdefault(task.group(1) if task else "", set()).add(uri.rpartition("/")[0])
    return max((len(d) for d in dirs.values()), default=0)


def _write_parts(
    rows: Any,
    parts_uri: str,
    *,
    audit: list[str],
    counts: list[str],
    groups: list[str],
    parquet: dict[str, str],
    sort: bool,
) -> None:
    """One ``dmpmqmsg`` write partitioned by ``t``, file and split, without a header
    (the driver's join writes one), the ``audit`` columns beside each part (with the
    ``parquet`` writer options), the rows counted by ``counts``, and the task's
    ``groups`` (columns: see :func:`write_outputs`); unsorted writes
    need planned writes off (they would add the sort) and concurrent writers."""
    spark = rows.sparkSession
    wanted = {
        "spark.sql.optimizer.plannedWrite.enabled": "true" if sort else "false",
        "spark.sql.maxConcurrentOutputFileWriters": "0" if sort else str(_MAX_WRITERS),
    }
    saved = {k: spark.conf.get(k, None) for k in wanted}
    # Each task moves its own files into place when it commits (algorithm 2): the
    # job commit has no directory tree to merge. The parts directory is private
    # (a hidden sibling of the output until the drain ends), so its partial state
    # is nobody's concern.
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    committer = {
        "mapreduce.fileoutputcommitter.algorithm.version": "2",
        "mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",
    }
    hadoop_saved = {k: hadoop.get(k) for k in committer}
    for k, v in wanted.items():
        spark.conf.set(k, v)
    for k, v in committer.items():
        hadoop.set(k, v)
    try:
        if sort:
            rows = rows.sortWithinPartitions(*_PARTITIONS, "_seq")
        writer = (
            rows.drop("_seq")
            .write.format(SOURCE)
            .option("header", "")
            .option("audit", ",".join(audit))
            .options(**parquet)
        )
        if counts:
            writer = writer.option("counts", ",".join(counts))
        if groups:
            writer = writer.option("groups", ",".join(groups))
        writer.partitionBy(*_PARTITIONS).save(parts_uri)
    finally:
        for k, v in saved.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
        for k, v in hadoop_saved.items():
            if v is None:
                hadoop.unset(k)
            else:
                hadoop.set(k, v)
