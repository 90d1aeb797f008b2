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
   dead-lettered (:func:`dlqhandler.spark.report.ages.dead_lettered_epoch`: the MQDLH's put
   time, the rule ``run`` ages by; null when blank or invalid), with ``--older-than``
   or ``--newer-than`` where the message stands against them (``age_status``), and,
   with rules tables, the decisions of :func:`dlqhandler.spark.classify.classify`
   (the drain's own back end).
2. :func:`dimension_rows` counts the messages per combination of the values the
   dimensions read (:func:`_combinations`: one row per message, and one for its hour of
   arrival, into Spark's hash aggregation, partial before the shuffle), then turns each
   combination into one row per dimension it counts in (``state``, ``reason``,
   ``destination``, ``properties``, ...) with its count: a DataFrame of ``(dim, key,
   count, ...)``. A message the age selectors leave out counts in ``selection`` alone.
3. :func:`top_counts` sums them by ``(dim, key)`` and keeps the ``top`` biggest keys of
   each dimension plus one ``other`` row, so what reaches the driver is bounded by the
   number of dimensions times ``top``, whatever the backlog's size.

:func:`build_report` runs the job and :mod:`dlqhandler.spark.report.document` assembles
``report.json`` from the collected rows.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from dlqhandler.logs import get_logger
from dlqhandler.mq.properties import ALL_PROPERTY_FOLDERS
from dlqhandler.rules import RuleSet
from dlqhandler.spark.classify import classify
from dlqhandler.spark.messages import bad_input, load_source, malformed_parts
from dlqhandler.spark.report.ages import age_status, dead_lettered_epoch
from dlqhandler.spark.report.document import assemble
from dlqhandler.spark.report.options import ReportOptions

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
    _line, _message, problem = malformed_parts()  # the report counts by problem
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


def _row(dim: str, *keys: Any, values: list[Any]) -> Any:
    """One dimension row of a combination (:func:`_combinations`): its ``dim``, its key
    and ``values`` (:func:`_row_values`)."""
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
        *values,
    )


def _row_values(*, epoch: bool = False, sample: bool = False) -> list[Any]:
    """A combination's count, with its oldest and newest time (``epoch``) and its sample
    MsgIds (``sample``), else nulls in their place: the values of a dimension row."""
    from pyspark.sql import functions as F

    none = F.lit(None).cast("long")
    return [
        F.col("count"),
        *[F.col(c) if epoch else none.alias(c) for c in ("min_epoch", "max_epoch")],
        *[F.col(c) if sample else none.alias(c) for c in _SAMPLE_COLUMNS],
    ]


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
_ORDERS = [f"order{i}" for i in range(len(_SAMPLE_SEEDS))]  # each seed's least hash
_SAMPLES = [f"sample{i}_m{j}" for i in range(len(_SAMPLE_SEEDS)) for j in range(_MSG_ID_LONGS)]
_SAMPLE_COLUMNS = (*_ORDERS, *_SAMPLES)


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


def _changed() -> Any:
    """Whether a readable message's decision differs between the two tables (its action,
    or its queue): the ``change`` dimension and the messages it samples."""
    from pyspark.sql import functions as F

    return (F.col("state") != F.lit("unreadable")) & (
        (F.col("old_action") != F.col("new_action"))
        | ~F.col("old_queue").eqNullSafe(F.col("new_queue"))
    )


def _combinations(frame: Any, options: ReportOptions) -> Any:
    """Count the messages per combination of the values the dimensions read: a pure
    transform, the one aggregation over every message.

    Most dimensions are functions of a few low-cardinality columns (state, reason,
    destination, application, age bucket, properties, the decisions), so the messages
    of a backlog fall into few combinations: one row per message goes into Spark's hash
    aggregation (partial, before the shuffle) instead of one per dimension. The hour of
    arrival, which would multiply them, counts in a second row of its own (``hour`` set,
    every other key null) for each message that has one. Each combination keeps its
    count, its oldest and newest second of a message with an MQDLH (``min_epoch``,
    ``max_epoch``) and, for changed messages, each sample seed's least hash
    (``order<i>``) with the MsgId that has it (``sample<i>_m<j>``)."""
    from pyspark.sql import functions as F

    state = F.col("state")
    dlh = state == F.lit("dlh")
    selected = F.col("age_status") == F.lit("selected") if options.ages.active else F.lit(True)
    keys = {
        "state": state,
        "error": F.col("error"),
        "reason": F.when(dlh, F.col("dlh_reason")),
        "dest_q": F.when(dlh, F.col("dlh_dest_q_name")),
        "dest_qm": F.when(dlh, F.col("dlh_dest_q_mgr_name")),
        "appl": F.when(dlh, F.col("dlh_put_appl_name")),
        "age": F.when(dlh, _age_bucket(options.as_of.timestamp())),
    }
    if PROPERTY_FOLDERS in frame.columns:
        folders = F.col(PROPERTY_FOLDERS)
        keys["carried"] = F.when(dlh, F.coalesce(F.size(folders) > F.lit(0), F.lit(False)))
        keys["front"] = F.when(dlh, F.coalesce(F.col("rfh2_in_front") > F.lit(0), F.lit(False)))
        keys["folders"] = F.when(dlh, folders)
    changed = F.lit(False)
    if options.ruleset is not None:
        keys |= {c: F.col(c) for c in ("new_line", "new_action", "new_unplaceable", "new_matched")}
    if options.old_ruleset is not None:
        keys |= {c: F.col(c) for c in ("old_action", "old_queue", "old_line", "new_queue")}
        changed = _changed()
    if options.ages.active:
        keys["age_status"] = F.col("age_status")
    hour = F.when(
        dlh & F.col("put_epoch").isNotNull() & selected,
        F.floor(F.col("put_epoch") / F.lit(3600)) * F.lit(3600),
    )
    parts = _msg_id_longs(F.col("md_msg_id"))
    sampled = F.coalesce(changed, F.lit(False)) & parts[0].isNotNull()
    values = {
        **keys,
        "hour": hour,
        "epoch": F.when(dlh, F.floor(F.col("put_epoch"))),
        **{f"m{j}": F.when(sampled, part) for j, part in enumerate(parts)},
        # the hour's row, after the message's own (a message without an hour has none)
        "hour_row": F.explode(
            F.when(hour.isNotNull(), F.array(F.lit(False), F.lit(True))).otherwise(
                F.array(F.lit(False))
            )
        ),
    }
    messages = frame.select(*[v.alias(k) for k, v in values.items()])
    own = ~F.col("hour_row")
    ms = [F.col(f"m{j}") for j in range(_MSG_ID_LONGS)]
    orders = {
        name: F.when(ms[0].isNotNull(), F.xxhash64(*ms, F.lit(seed)))
        for name, seed in zip(_ORDERS, _SAMPLE_SEEDS, strict=True)
    }
    rows = messages.select(
        *[F.when(own, F.col(k)).alias(k) for k in keys],
        F.when(F.col("hour_row"), F.col("hour")).alias("hour"),
        F.when(own, F.col("epoch")).alias("epoch"),
        *[F.when(own, order).alias(name) for name, order in orders.items()],
        *ms,
    )
    aggs = [
        F.count(F.lit(1)).alias("count"),
        F.min("epoch").alias("min_epoch"),
        F.max("epoch").alias("max_epoch"),
    ]
    aggs += [F.min(name).alias(name) for name in _ORDERS]
    aggs += [
        F.min_by(m, F.col(name)).alias(f"sample{i}_{m}")
        for i, name in enumerate(_ORDERS)
        for m in (f"m{j}" for j in range(_MSG_ID_LONGS))
    ]
    return rows.groupBy(*keys, "hour").agg(*aggs)


def dimension_rows(frame: Any, options: ReportOptions) -> Any:
    """Every dimension row ``(dim, key, count, min_epoch, max_epoch, samples)`` of the
    messages' combinations (:func:`_combinations`): a combination counts its messages in
    each dimension row it gives.

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

    combos = _combinations(frame, options)
    plain = _row_values()  # built once, shared by the rows (each a few py4j calls)
    state = F.col("state")
    dlh = state == F.lit("dlh")
    readable = state != F.lit("unreadable")
    rows = [
        _row("state", state, values=plain),
        F.when(state == F.lit("unreadable"), _row("unreadable", F.col("error"), values=plain)),
        F.when(dlh, _row("reason", F.col("reason"), values=plain)),
        F.when(dlh, _row("destination", F.col("dest_q"), F.col("dest_qm"), values=plain)),
        F.when(dlh, _row("application", F.col("appl"), values=plain)),
        F.when(dlh, _row("age", F.col("age"), values=_row_values(epoch=True))),
    ]
    if "folders" in combos.columns:
        folders = F.col("folders")
        rows.append(F.when(dlh, _row("properties", F.col("carried"), F.col("front"), values=plain)))
        rows += [
            F.when(
                dlh & F.array_contains(folders, F.lit(name)),
                _row("folder", F.lit(name), values=plain),
            )
            for name in FOLDERS
        ]
    extra = []
    if options.ruleset is not None:
        rows.append(
            F.when(
                readable,
                _row(
                    "chosen",
                    F.col("new_line"),
                    F.col("new_action"),
                    dlh,
                    F.col("new_unplaceable"),
                    values=plain,
                ),
            )
        )
        extra.append(
            F.transform(F.col("new_matched"), lambda line: _row("matched", line, values=plain))
        )
    if options.old_ruleset is not None:
        changed = _changed()
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
                    values=_row_values(sample=True),
                ),
            )
        )
    every = F.array(*rows)
    if extra:
        every = F.concat(every, *extra)
    if options.ages.active:  # a message left out counts in "selection" and nowhere else
        chosen = _row("selection", F.col("age_status"), values=plain)
        every = F.when(
            F.col("age_status") == F.lit("selected"), F.concat(F.array(chosen), every)
        ).otherwise(F.array(chosen))
    every = F.when(
        F.col("hour").isNotNull(), F.array(_row("hour", F.col("hour"), values=plain))
    ).otherwise(every)
    return combos.select(F.explode(every).alias("r")).filter(F.col("r").isNotNull()).select("r.*")


def top_counts(rows: Any, top: int) -> Any:
    """Count per ``(dim, key)`` (the sum of its rows' counts); keep the ``top`` biggest
    keys per dim plus one row (``other`` true, ``key`` null) summing the rest. Ties
    break on the key."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    aggs = [
        F.sum("count").alias("count"),
        F.min("min_epoch").alias("min_epoch"),
        F.max("max_epoch").alias("max_epoch"),
    ]
    aggs += [
        F.min_by(F.col(f"sample{i}_m{j}"), F.col(order)).alias(f"sample{i}_m{j}")
        for i, order in enumerate(_ORDERS)
        for j in range(_MSG_ID_LONGS)
    ]
    counted = rows.groupBy("dim", "key").agg(*aggs)
    rank = F.row_number().over(Window.partitionBy("dim").orderBy(F.desc("count"), "key"))
    ranked = counted.withColumn("rank", rank)
    kept = (F.col("rank") <= F.lit(top)) | F.col("dim").isin(*_UNBOUNDED)
    return ranked.groupBy(
        "dim", F.when(kept, F.col("key")).alias("key"), (~kept).alias("other")
    ).agg(
        F.sum("count").alias("count"),
        F.min("min_epoch").alias("min_epoch"),
        F.max("max_epoch").alias("max_epoch"),
        *[F.first(F.when(kept, F.col(s)), ignorenulls=True).alias(s) for s in _SAMPLES],
    )


def build_report(messages: Any, options: ReportOptions) -> dict[str, Any]:
    """Run the report job over a decoded-message DataFrame; the ``report.json`` object."""
    rows = top_counts(dimension_rows(facts(messages, options), options), options.top)
    # a file that is not a dump (binary after a header) is one line, as for the drain
    collected = [r.asDict() for r in bad_input(rows.collect)]
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
