"""The backlog report: what is on a dead-letter queue, and what a rules table would do.

Pure transforms over the decoded-message contract of :mod:`dlqhandler.spark.messages`
(``error``, ``has_dlh``, ``md_*``, ``dlh_*``), then one aggregation job:

0. :func:`read_dumps` gives that contract straight from the ``dmpmqmsg`` data source
   (``jvm/DmpmqmsgFileFormat.java``): header columns only, so the scan never decodes a
   body nor copies a record (its ``ReadSchema`` shows it), every record kind is decoded
   in the JVM and no Python UDF is in the plan. ``error`` is the data source's
   ``malformed`` reason without its ``<file>:<line>: message <n>: `` prefix: the report
   counts unreadable messages by problem, as it did on the text path. The source finds
   an MQDLH behind an MQRFH2 in front of it (a DLQ defined ``PROPCTL(FORCE)``, IBM's
   dmpmqmsg), so such a message counts as a dead letter, and gives
   ``rfh2_in_front`` and ``property_folders``, which the ``properties`` dimension counts.

1. :func:`facts` keeps the few columns the report needs, adds the time the message was
   dead-lettered (:func:`dlqhandler.spark.ages.dead_lettered_epoch`: the MQDLH's put
   time, the rule ``run`` ages by; null when blank or invalid), with ``--older-than``
   or ``--newer-than`` where the message stands against them (``age_status``), and,
   with rules tables, the decisions of :func:`dlqhandler.spark.classify.classify`
   (the drain's own back end).
2. :func:`dimension_rows` turns every message into one row per dimension it counts in
   (``state``, ``reason``, ``destination``, ``properties``, ...): a DataFrame of
   ``(dim, key, ...)``.
   A message the age selectors leave out counts in ``selection`` alone.
3. :func:`top_counts` groups by ``(dim, key)`` and keeps the ``top`` biggest keys of each
   dimension plus one ``other`` row, so what reaches the driver is bounded by the number
   of dimensions times ``top``, whatever the backlog's size.

:func:`build_report` runs the job and :mod:`dlqhandler.spark.report_json` assembles
``report.json`` from the collected rows.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from dlqhandler.logs import get_logger
from dlqhandler.mq.properties import ALL_PROPERTY_FOLDERS
from dlqhandler.rules import RuleSet
from dlqhandler.spark.ages import age_status, dead_lettered_epoch
from dlqhandler.spark.classify import classify
from dlqhandler.spark.messages import load_source, malformed_parts
from dlqhandler.spark.report_json import assemble
from dlqhandler.spark.report_options import ReportOptions

__all__ = [
    "AGE_BUCKETS",
    "ReportOptions",
    "build_report",
    "dimension_rows",
    "facts",
    "read_dumps",
    "top_counts",
]

AGE_BUCKETS: tuple[tuple[str, int | None], ...] = (
    ("<1h", 3600),
    ("1h-1d", 86400),
    ("1d-7d", 7 * 86400),
    (">7d", None),
)
_SAMPLE_SEEDS = (17, 29, 43)  # three independent hash orders: three sample MsgIds
PROPERTY_FOLDERS = "property_folders"  # the source's column (absent from the drain's read)
FOLDERS = tuple(sorted(ALL_PROPERTY_FOLDERS))  # what it can hold
_log = get_logger(__name__)


def read_dumps(spark: Any, files: Sequence[str], *, split_bytes: int = 128 << 20) -> Any:
    """The messages of ``files`` (resolved dump files: paths or Hadoop URIs) through the
    ``dmpmqmsg`` data source, as the message contract the report reads: ``error``,
    ``has_dlh``, ``dlh_error``, ``md_*``, ``dlh_*`` (no body, no record).

    A session without the data source is a :class:`ConfigError` naming ``python -m
    dlqhandler.spark.jar`` (:func:`dlqhandler.spark.messages.load_source`)."""
    from pyspark.sql import functions as F

    source = load_source(spark, files, split_bytes=split_bytes)
    _line, _number, problem = malformed_parts()  # the report counts by problem
    headers = [c for c in source.columns if c.startswith(("md_", "dlh_"))]
    headers += [PROPERTY_FOLDERS, "rfh2_in_front"]
    return source.select(
        F.when(F.col("malformed").isNotNull(), problem).alias("error"), "has_dlh", *headers
    )


def _decision_columns(frame: Any, ruleset: RuleSet, options: ReportOptions, prefix: str) -> Any:
    """The drain's decision for each message under ``ruleset``, as ``prefix``-columns.

    ``queue`` is the substituted target of a RETRY or FWD when it is a valid name that
    does not loop back onto the input queue, else null (and ``unplaceable`` true).
    """
    from pyspark.sql import functions as F

    decided = classify(
        frame, ruleset, input_queue=options.input_queue, local_qmgr=options.local_qmgr
    )
    puts = F.col("action").isin("RETRY", "FWD")
    valid = F.coalesce(F.col("target_valid"), F.lit(False))
    return decided.select(
        *frame.columns,
        F.col("matched_lines").alias(f"{prefix}_matched"),
        F.col("chosen_line").alias(f"{prefix}_line"),
        F.col("action").alias(f"{prefix}_action"),
        F.when(puts & valid, F.col("target_q")).alias(f"{prefix}_queue"),
        (puts & ~valid).alias(f"{prefix}_unplaceable"),
    )


def facts(messages: Any, options: ReportOptions) -> Any:
    """One row per input record with what the report counts (a pure transform)."""
    from pyspark.sql import functions as F

    state = (
        F.when(F.col("error").isNotNull(), F.lit("unreadable"))
        .when(F.col("has_dlh") == F.lit(True), F.lit("dlh"))
        .otherwise(F.lit("no_dlh"))
    )
    frame = messages.withColumns({"state": state, "put_epoch": dead_lettered_epoch()})
    if options.ages.active:
        frame = frame.withColumn(
            "age_status", age_status(options.ages, options.as_of.timestamp(), F.col("put_epoch"))
        )
    if options.ruleset is not None:
        frame = _decision_columns(frame, options.ruleset, options, "new")
    if options.old_ruleset is not None:
        frame = _decision_columns(frame, options.old_ruleset, options, "old")
    keep = [
        "state",
        "error",
        "md_msg_id",
        "dlh_reason",
        "dlh_dest_q_name",
        "dlh_dest_q_mgr_name",
        "dlh_put_appl_name",
        "put_epoch",
    ]
    keep += [c for c in (PROPERTY_FOLDERS, "rfh2_in_front") if c in frame.columns]
    keep += [c for c in frame.columns if c.startswith(("new_", "old_"))]
    keep += ["age_status"] if options.ages.active else []
    return frame.select(*keep)


def _row(dim: str, *keys: Any, epoch: Any = None, sample: Any = None) -> Any:
    from pyspark.sql import functions as F

    # The key is one string, its parts joined by _SEP: Spark hashes and compares a
    # string several times faster than an array of strings. A part never holds _SEP
    # (it becomes U+FFFD; MQ names cannot hold it and decoded text hardly does) nor
    # NUL (a null part), so strings sort as their parts do.
    return F.struct(
        F.lit(dim).alias("dim"),
        F.concat_ws(
            _SEP,
            *[
                F.coalesce(F.translate(k.cast("string"), _SEP, "\ufffd"), F.lit(_NULL))
                for k in keys
            ],
        ).alias("key"),
        (epoch if epoch is not None else F.lit(None).cast("long")).alias("epoch"),
        *[
            (part if part is not None else F.lit(None).cast("long")).alias(f"m{j}")
            for j, part in enumerate(_msg_id_longs(sample))
        ],
    )


def _msg_id_longs(msg_id: Any) -> list[Any]:
    """A 24-byte MsgId as three signed longs (big-endian thirds), or three Nones.

    An aggregation buffer of fixed-width values keeps Spark's hash aggregation (a
    binary one would make it sort every row); :func:`build_report` packs them back."""
    from pyspark.sql import functions as F

    if msg_id is None:
        return [None] * _MSG_ID_LONGS
    whole = F.length(msg_id) == F.lit(8 * _MSG_ID_LONGS)
    return [
        F.when(whole, F.conv(F.hex(F.substring(msg_id, 1 + 8 * j, 8)), 16, -10).cast("long"))
        for j in range(_MSG_ID_LONGS)
    ]


_MSG_ID_LONGS = 3


_UNBOUNDED = ("state", "age", "chosen", "matched", "selection", "properties", "folder")  # bounded
_NULL = "\x00"  # a null key part (MQ text never holds NUL after decoding)
_SEP = "\x01"  # between the parts of a key


def _age_bucket(as_of: float) -> Any:
    """The age bucket at ``as_of``; ages are compared as ``--older-than`` compares them
    (``>7d`` holds exactly what ``--older-than 7d`` selects)."""
    from pyspark.sql import functions as F

    age = F.lit(as_of) - F.col("put_epoch")
    expr = F.when(F.col("put_epoch").isNull(), F.lit("unknown"))
    for name, limit in AGE_BUCKETS:
        expr = (
            expr.when(age < F.lit(limit), F.lit(name))
            if limit is not None
            else expr.otherwise(F.lit(name))
        )
    return expr


def dimension_rows(frame: Any, options: ReportOptions) -> Any:
    """Explode every message into its dimension rows ``(dim, key, epoch, sample)``.

    ``state`` counts every record; ``reason``, ``destination``, ``application``,
    ``age`` and ``hour`` count messages with an MQDLH; so do ``properties`` (with or
    without, and whether the MQDLH sits behind an MQRFH2) and ``folder`` (one row per
    property folder a message carries), from the data source's property columns;
    ``unreadable`` counts decode errors by their text; with a table, ``chosen`` (line,
    action, has-MQDLH, unplaceable) and ``matched`` (one row per matching rule line);
    with a second table, ``change`` (old and new action, queue and line) for changed
    messages.
    With age selectors, ``selection`` counts every record by its ``age_status`` and
    the other dimensions count the selected messages only.
    """
    from pyspark.sql import functions as F

    dlh = F.col("state") == F.lit("dlh")
    as_of = options.as_of.timestamp()
    second = F.floor(F.col("put_epoch"))  # the time in whole seconds, for oldest and newest
    rows = [
        _row("state", F.col("state")),
        F.when(F.col("state") == F.lit("unreadable"), _row("unreadable", F.col("error"))),
        F.when(dlh, _row("reason", F.col("dlh_reason"))),
        F.when(dlh, _row("destination", F.col("dlh_dest_q_name"), F.col("dlh_dest_q_mgr_name"))),
        F.when(dlh, _row("application", F.col("dlh_put_appl_name"))),
        F.when(dlh, _row("age", _age_bucket(as_of), epoch=second)),
        F.when(
            dlh & F.col("put_epoch").isNotNull(),
            _row("hour", F.floor(F.col("put_epoch") / F.lit(3600)) * F.lit(3600)),
        ),
    ]
    if PROPERTY_FOLDERS in frame.columns:
        folders = F.col(PROPERTY_FOLDERS)
        carried = F.coalesce(F.size(folders) > F.lit(0), F.lit(False))
        front = F.coalesce(F.col("rfh2_in_front") > F.lit(0), F.lit(False))
        rows.append(F.when(dlh, _row("properties", carried, front)))
        rows += [
            F.when(dlh & F.array_contains(folders, F.lit(name)), _row("folder", F.lit(name)))
            for name in FOLDERS
        ]
    extra = []
    if options.ruleset is not None:
        rows.append(
            F.when(
                F.col("state") != F.lit("unreadable"),
                _row(
                    "chosen", F.col("new_line"), F.col("new_action"), dlh, F.col("new_unplaceable")
                ),
            )
        )
        extra.append(F.transform(F.col("new_matched"), lambda line: _row("matched", line)))
    if options.old_ruleset is not None:
        changed = (F.col("state") != F.lit("unreadable")) & (
            (F.col("old_action") != F.col("new_action"))
            | ~F.col("old_queue").eqNullSafe(F.col("new_queue"))
        )
        rows.append(
            F.when(
                changed,
                _row(
                    "change",
                    F.col("old_action"),
                    F.col("old_queue"),
                    F.col("old_line"),
                    F.col("new_action"),
                    F.col("new_queue"),
                    F.col("new_line"),
                    sample=F.col("md_msg_id"),
                ),
            )
        )
    # No lambda over the fixed rows: Spark interprets higher-order functions (filter,
    # transform) row by row, while array + explode + a null filter are generated code.
    every = F.array(*rows)
    if extra:
        every = F.concat(every, *extra)
    if options.ages.active:  # a message left out counts in "selection" and nowhere else
        chosen = _row("selection", F.col("age_status"))
        every = F.when(
            F.col("age_status") == F.lit("selected"), F.concat(F.array(chosen), every)
        ).otherwise(F.array(chosen))
    return frame.select(F.explode(every).alias("r")).filter(F.col("r").isNotNull()).select("r.*")


def top_counts(rows: Any, top: int) -> Any:
    """Count per ``(dim, key)``; keep the ``top`` biggest keys per dim plus one row
    (``other`` true, ``key`` null) summing the rest. Ties break on the key."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    aggs = [
        F.count(F.lit(1)).alias("count"),
        F.min("epoch").alias("min_epoch"),
        F.max("epoch").alias("max_epoch"),
    ]
    parts = [f"m{j}" for j in range(_MSG_ID_LONGS)]
    for i, seed in enumerate(_SAMPLE_SEEDS):
        order = F.when(F.col("m0").isNotNull(), F.xxhash64(*parts, F.lit(seed)))
        aggs += [F.min_by(m, order).alias(f"sample{i}_{m}") for m in parts]
    counted = rows.groupBy("dim", "key").agg(*aggs)
    rank = F.row_number().over(Window.partitionBy("dim").orderBy(F.desc("count"), "key"))
    ranked = counted.withColumn("rank", rank)
    kept = (F.col("rank") <= F.lit(top)) | F.col("dim").isin(*_UNBOUNDED)
    samples = [f"sample{i}_m{j}" for i in range(len(_SAMPLE_SEEDS)) for j in range(_MSG_ID_LONGS)]
    return ranked.groupBy(
        "dim", F.when(kept, F.col("key")).alias("key"), (~kept).alias("other")
    ).agg(
        F.sum("count").alias("count"),
        F.min("min_epoch").alias("min_epoch"),
        F.max("max_epoch").alias("max_epoch"),
        *[F.first(F.when(kept, F.col(s)), ignorenulls=True).alias(s) for s in samples],
    )


def build_report(messages: Any, options: ReportOptions) -> dict[str, Any]:
    """Run the report job over a decoded-message DataFrame; the ``report.json`` object."""
    rows = top_counts(dimension_rows(facts(messages, options), options), options.top)
    collected = [r.asDict() for r in rows.collect()]
    for r in collected:
        r["key"] = (
            None if r["key"] is None else [None if k == _NULL else k for k in r["key"].split(_SEP)]
        )
        found = set()
        for i in range(len(_SAMPLE_SEEDS)):
            parts = [r.pop(f"sample{i}_m{j}") for j in range(_MSG_ID_LONGS)]
            if None not in parts:
                found.add(struct.pack(f">{_MSG_ID_LONGS}q", *parts).hex().upper())
        r["samples"] = sorted(found)
    return assemble(collected, options, properties=PROPERTY_FOLDERS in messages.columns)
