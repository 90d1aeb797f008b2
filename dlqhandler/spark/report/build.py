"""The backlog report: what is on a dead-letter queue, and what a rules table would do.

One query over the decoded-message contract of :mod:`dlqhandler.spark.messages`
(``error``, ``has_dlh``, ``md_*``, ``dlh_*``), built as SQL text in steps, then one
aggregation job (one parse and one analysis for the whole report: a DataFrame per step
would analyse the growing plan again at each):

0. :func:`read_dumps` gives that contract straight from the ``dmpmqmsg`` data source
   (``jvm/DmpmqmsgFileFormat.java``): header columns only, so the scan never decodes a
   body nor copies a record (its ``ReadSchema`` shows it), every record kind is decoded
   in the JVM and no Python UDF is in the plan. ``error`` is the data source's
   ``malformed`` reason without its ``<file>:<line>: message <n>: `` prefix: the report
   counts unreadable messages by problem, as it did on the text path. The source finds
   an MQDLH behind an MQRFH2 in front of it (a DLQ defined ``PROPCTL(FORCE)``, IBM's
   dmpmqmsg), so such a message counts as a dead letter, and gives
   ``rfh2_in_front`` and ``property_folders``, which the ``properties`` dimension counts,
   and the MsgId as three longs (``msg_id_0`` to ``msg_id_2``), which the samples keep.

1. :func:`facts_query` keeps the few columns the report needs, adds the time the message
   was dead-lettered (:func:`dlqhandler.spark.report.ages.dead_lettered_epoch_query`: the MQDLH's
   put time, the rule ``run`` ages by; null when blank or invalid), with ``--older-than``
   or ``--newer-than`` where the message stands against them (``age_status``), and,
   with rules tables, the decisions of :func:`dlqhandler.spark.classify.classify_query`
   (the drain's own back end).
2. :func:`dimension_rows` counts the messages per combination of the values the
   dimensions read (:func:`_combinations`: one row per message, and one for its hour of
   arrival, into Spark's hash aggregation, partial before the shuffle), then turns each
   combination into one row per dimension it counts in (``state``, ``reason``,
   ``destination``, ``properties``, ...) with its count: rows of ``(dim, key,
   count, ...)``. A message the age selectors leave out counts in ``selection`` alone.
   What the aggregation leaves is read by one task (a ``COALESCE(1)`` hint): its one
   partition satisfies every grouping after it, so no further exchange or job follows.
   With a table, :func:`_unit_fates` first decides, per group or segmented message
   (each member a combination of its own), whether the drain moves it as its rules
   say, keeps it whole on the DLQ, or sends it whole to the catch-all.
3. :func:`top_counts` sums them by ``(dim, key)`` and keeps the ``top`` biggest keys of
   each dimension plus one ``other`` row, so what reaches the driver is bounded by the
   number of dimensions times ``top``, whatever the backlog's size.

:func:`report_query` puts the three together as one text, :func:`report_rows` runs it
over a messages DataFrame;
:func:`build_report` runs its job and :mod:`dlqhandler.spark.report.document` assembles
``report.json`` from the collected rows.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from dlqhandler.logs import get_logger
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP
from dlqhandler.mq.properties import ALL_PROPERTY_FOLDERS
from dlqhandler.rules import PATTERN_FIELDS, RuleSet
from dlqhandler.spark.classify import UNPLACEABLE, classify_query, field_column, hop_limited
from dlqhandler.spark.messages import MESSAGE_COLUMNS, bad_input, load_source, malformed_parts
from dlqhandler.spark.report.ages import age_status, dead_lettered_epoch_query, double
from dlqhandler.spark.report.document import assemble
from dlqhandler.spark.report.options import ReportOptions
from dlqhandler.spark.sql import FRAME, sql_over, sql_string
from dlqhandler.spark.units import (
    IN_UNIT,
    SIMPLE,
    data_length,
    part,
    simple_parts,
    simple_whole,
    unit_whole,
)

__all__ = [
    "AGE_BUCKETS",
    "READ_COLUMNS",
    "ReportOptions",
    "build_report",
    "dimension_rows",
    "facts",
    "facts_query",
    "read_dumps",
    "report_query",
    "report_rows",
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
_MSG_ID_LONGS = 3
_ID_LONGS = tuple(f"msg_id_{j}" for j in range(_MSG_ID_LONGS))  # the dmpmqmsg source's
# The columns of read_dumps, in order: known before Spark starts, so that the report's
# query text is too (its session parses it while it starts: get_session's warm_sql).
READ_COLUMNS: tuple[str, ...] = (
    "error",
    "has_dlh",
    *(c for c in MESSAGE_COLUMNS if c.startswith(("md_", "dlh_"))),
    PROPERTY_FOLDERS,
    "rfh2_in_front",
    "body_length",  # read only for the members of groups and segmented messages
    *_ID_LONGS,  # the MsgId as three longs (the samples)
)


def read_dumps(spark: Any, files: Sequence[str], *, split_bytes: int = 128 << 20) -> Any:
    """The messages of ``files`` (resolved dump files: paths or Hadoop URIs) through the
    ``dmpmqmsg`` data source, as the message contract the report reads: ``error``,
    ``has_dlh``, ``dlh_error``, ``md_*``, ``dlh_*`` (no body, no record).

    A session without the data source is a :class:`ConfigError` naming ``python -m
    dlqhandler.spark.jar`` (:func:`dlqhandler.spark.messages.load_source`)."""
    source = load_source(spark, files, split_bytes=split_bytes)
    _line, _message, problem = malformed_parts()  # the report counts by problem
    return source.selectExpr(
        f"CASE WHEN malformed IS NOT NULL THEN {problem} END AS error", *READ_COLUMNS[1:]
    )


def _decisions(
    source: str,
    columns: list[str],
    ruleset: RuleSet,
    options: ReportOptions,
    prefix: str,
    *,
    catch_all: str | None,
    floors: str | None,
) -> tuple[str, list[str]]:
    """``source`` (a query over messages with ``columns``) with the drain's decision for
    each message under ``ruleset`` (and its ``catch_all``) as ``prefix``-columns; the
    query and its columns.

    ``queue`` and ``qmgr`` are where the drain puts the message (the classification's
    ``out_q``/``out_qm``: '' for the local queue manager): a RETRY's or FWD's target, the
    catch-all for a readable message no rule places, else null (DISCARD, left on the
    DLQ); a group's fate may still keep it (:func:`_unit_fates`). ``unplaceable`` is true
    when rules matched but none could place the message
    (:data:`dlqhandler.spark.classify.UNPLACEABLE`).
    """
    decided = classify_query(
        columns,
        ruleset,
        source=f"({source})",
        input_queue=options.input_queue,
        local_qmgr=options.local_qmgr,
        catch_all=catch_all,
        max_hops=options.max_hops,
        floors=floors,
    )
    limited = hop_limited(columns, options.max_hops)
    added = {
        f"{prefix}_matched": "matched_lines",
        f"{prefix}_line": "chosen_line",
        f"{prefix}_action": "action",
        f"{prefix}_queue": "out_q",
        f"{prefix}_qmgr": "out_qm",
        f"{prefix}_unplaceable": UNPLACEABLE,
        # not placed and past --max-hops: it stays, whatever the catch-all
        f"{prefix}_held": f"({limited} AND action NOT IN ('RETRY', 'FWD', 'DISCARD'))",
    }
    kept = [f"`{c}`" for c in columns] + [f"{e} AS {n}" for n, e in added.items()]
    return f"SELECT {', '.join(kept)} FROM ({decided})", [*columns, *added]


def facts_query(columns: Sequence[str], options: ReportOptions) -> tuple[str, list[str]]:
    """One row per input record with what the report counts, as SQL text over
    :data:`~dlqhandler.spark.sql.FRAME` (the messages, with ``columns``): the query
    and its columns."""
    state = (
        "CASE WHEN error IS NOT NULL THEN 'unreadable'"
        " WHEN has_dlh = true THEN 'dlh' ELSE 'no_dlh' END"
    )
    # Only the columns the report reads go into the query: the classifications carry their
    # input columns through each of their steps, and every name is text to parse and analyse.
    read = {"error", "has_dlh", "md_msg_id", "md_put_date", "md_put_time", "rfh2_in_front"}
    read |= {PROPERTY_FOLDERS} | {field_column(keyword) for keyword in PATTERN_FIELDS}
    units = options.ruleset is not None  # the drain keeps groups whole: the report says so
    if units:
        read |= {"md_group_id", "md_msg_seq_number", "md_offset", "md_msg_flags"}
        read |= {"md_format"}  # with dlh_count, the MQDLHs a put would carry (--max-hops)
        read |= {"body_length"} if "body_length" in columns else {"body"}
    read |= {"md_correl_id"} if options.floors or options.old_floors else set()
    read |= set(_ID_LONGS)  # the source's: the samples' MsgIds need no conversion
    needed = [c for c in columns if c in read or c.startswith("dlh_")]
    kept = ", ".join(f"`{c}`" for c in needed)
    timed = dead_lettered_epoch_query(FRAME, needed)
    member = _unit_member(needed) if units else ""
    query = f"SELECT {kept}, {state} AS state, put_epoch{member} FROM ({timed})"
    have = [*needed, "state", "put_epoch", *(_UNIT_COLUMNS if units else ())]
    if options.ages.active:
        status = age_status(options.ages, options.as_of.timestamp(), "put_epoch")
        query = f"SELECT *, {status} AS age_status FROM ({query})"
        have.append("age_status")
    if options.ruleset is not None:
        new = options.ruleset, options, "new"
        query, have = _decisions(
            query, have, *new, catch_all=options.catch_all, floors=options.floors
        )
    if options.old_ruleset is not None:
        old = options.old_ruleset, options, "old"
        query, have = _decisions(
            query, have, *old, catch_all=options.old_catch_all, floors=options.old_floors
        )
    keep = [
        "state",
        "error",
        *(_ID_LONGS if _ID_LONGS[0] in have else ["md_msg_id"]),
        "dlh_reason",
        "dlh_dest_q_name",
        "dlh_dest_q_mgr_name",
        "dlh_put_appl_name",
        "put_epoch",
    ]
    keep += [c for c in (PROPERTY_FOLDERS, "rfh2_in_front", *_UNIT_COLUMNS) if c in have]
    keep += [c for c in have if c.startswith(("new_", "old_"))]
    keep += ["age_status"] if options.ages.active else []
    return f"SELECT {', '.join(f'`{c}`' for c in keep)} FROM ({query})", keep


# A member of a group or segmented message: its GroupId (null for any other message); for
# a simple member (dlqhandler.spark.units.SIMPLE) the bit of its number and its number if
# flagged last, which the combinations aggregate; for another, its part of the unit
# (dlqhandler.spark.units.part), which is a key: such a member is a combination of its own.
_UNIT_KEYS = ("unit_id", "unit_seq", "unit_off", "unit_len", "unit_flags")
_UNIT_COLUMNS = (*_UNIT_KEYS, "unit_bit", "unit_last")


def _unit_member(columns: list[str]) -> str:
    """The :data:`_UNIT_COLUMNS` of a message (SQL select items, with a leading comma):
    null but for the members of groups and segmented messages."""
    # the data source's body_length; a frame of another source: its body's, else unknown
    length = "body_length" if "body_length" in columns else "octet_length(body)"
    if "body_length" not in columns and "body" not in columns:
        length = "CAST(NULL AS INT)"
    member = f"error IS NULL AND {IN_UNIT}"
    other = f"{member} AND NOT {SIMPLE}"
    simple = f"{member} AND {SIMPLE}"
    values = {
        "unit_id": (member, "md_group_id"),
        "unit_seq": (other, "md_msg_seq_number"),
        "unit_off": (other, "CAST(md_offset AS BIGINT)"),
        "unit_len": (other, f"CAST({data_length(length)} AS BIGINT)"),
        "unit_flags": (other, "md_msg_flags"),
        "unit_bit": (simple, "shiftleft(1L, md_msg_seq_number)"),
        "unit_last": (
            f"{simple} AND (md_msg_flags & {MQMF_LAST_MSG_IN_GROUP}) <> 0",
            "md_msg_seq_number",
        ),
    }
    return "".join(f", CASE WHEN {when} THEN {v} END AS {k}" for k, (when, v) in values.items())


def facts(messages: Any, options: ReportOptions) -> Any:
    """:func:`facts_query` over the ``messages`` DataFrame (a pure transform)."""
    return sql_over(messages, facts_query(messages.columns, options)[0])


def _row(dim: str, *keys: str) -> str:
    """One dimension row of a combination (:func:`_combinations`), as SQL: its ``dim``
    and its key (from the SQL expressions ``keys``). Its values (the count, the times,
    the samples) are the combination's: :func:`dimension_rows` takes them beside it."""
    # The key is one string, its parts joined by _SEP: Spark hashes and compares a
    # string several times faster than an array of strings. A part never holds _SEP
    # (it becomes U+FFFD; MQ names cannot hold it and decoded text hardly does) nor
    # NUL (a null part), so strings sort as their parts do.
    sep, null = f"chr({ord(_SEP)})", f"chr({ord(_NULL)})"  # short text, constant-folded
    parts = ", ".join(
        f"coalesce(translate(CAST({k} AS STRING), {sep}, '\ufffd'), {null})" for k in keys
    )
    return f"named_struct('dim', {sql_string(dim)}, 'key', concat_ws({sep}, {parts}))"


def _msg_id_longs(msg_id: str) -> list[str]:
    """A 24-byte MsgId (a SQL expression) as three signed longs (big-endian thirds), or
    three nulls.

    An aggregation buffer of fixed-width values keeps Spark's hash aggregation (a
    binary one would make it sort every row); :func:`build_report` packs them back."""
    return [
        f"CASE WHEN length({msg_id}) = {8 * _MSG_ID_LONGS}"
        f" THEN CAST(conv(hex(substring({msg_id}, {1 + 8 * j}, 8)), 16, -10) AS BIGINT) END"
        for j in range(_MSG_ID_LONGS)
    ]


_ORDERS = [f"order{i}" for i in range(len(_SAMPLE_SEEDS))]  # each seed's least hash
_SAMPLES = [f"sample{i}_m{j}" for i in range(len(_SAMPLE_SEEDS)) for j in range(_MSG_ID_LONGS)]
_SAMPLE_COLUMNS = (*_ORDERS, *_SAMPLES)


_UNBOUNDED = ("state", "age", "chosen", "matched", "selection", "properties", "folder")  # bounded
_NULL = "\x00"  # a null key part (MQ text never holds NUL after decoding)
_SEP = "\x01"  # between the parts of a key


def _age_bucket(as_of: float) -> str:
    """The age bucket at ``as_of`` (SQL); ages are compared as ``--older-than`` compares
    them (``>7d`` holds exactly what ``--older-than 7d`` selects)."""
    age = f"({double(as_of)} - put_epoch)"
    expr = "CASE WHEN put_epoch IS NULL THEN 'unknown'"
    for name, limit in AGE_BUCKETS:
        if limit is not None:
            expr += f" WHEN {age} < {limit} THEN {sql_string(name)}"
        else:
            expr += f" ELSE {sql_string(name)}"
    return expr + " END"


# Whether a readable message's decision differs between the two tables (its action, or
# the queue or queue manager it goes to): the messages the ``change`` dimension samples,
# with the members of groups and segmented messages (whose group's fate may change).
_CHANGED_RULE = (
    "(state != 'unreadable' AND (old_action != new_action OR NOT old_queue <=> new_queue"
    " OR NOT old_qmgr <=> new_qmgr))"
)
# ... or what comes of its group (a combination's, after _unit_fates): the ``change`` rows.
_CHANGED = f"({_CHANGED_RULE} OR NOT old_group <=> new_group)"


def _combinations(source: str, columns: list[str], options: ReportOptions) -> tuple[str, list[str]]:
    """Count the messages per combination of the values the dimensions read: SQL text
    over ``source`` (the facts, with ``columns``), the one aggregation over every
    message; the query and its columns.

    Most dimensions are functions of a few low-cardinality columns (state, reason,
    destination, application, age bucket, properties, the decisions), so the messages
    of a backlog fall into few combinations: one row per message goes into Spark's hash
    aggregation (partial, before the shuffle) instead of one per dimension. The hour of
    arrival, which would multiply them, counts in a second row of its own (``hour`` set,
    every other key null) for each message that has one. Each combination keeps its
    count, its oldest and newest second of a message with an MQDLH (``min_epoch``,
    ``max_epoch``) and, for changed messages, each sample seed's least hash
    (``order<i>``) with the MsgId that has it (``sample<i>_m<j>``)."""
    dlh = "state = 'dlh'"
    selected = "age_status = 'selected'" if options.ages.active else "true"
    keys = {
        "state": "state",
        "error": "error",
        "reason": f"CASE WHEN {dlh} THEN dlh_reason END",
        "dest_q": f"CASE WHEN {dlh} THEN dlh_dest_q_name END",
        "dest_qm": f"CASE WHEN {dlh} THEN dlh_dest_q_mgr_name END",
        "appl": f"CASE WHEN {dlh} THEN dlh_put_appl_name END",
        "age": f"CASE WHEN {dlh} THEN {_age_bucket(options.as_of.timestamp())} END",
    }
    if PROPERTY_FOLDERS in columns:
        folders = PROPERTY_FOLDERS
        keys["carried"] = f"CASE WHEN {dlh} THEN coalesce(size({folders}) > 0, false) END"
        keys["front"] = f"CASE WHEN {dlh} THEN coalesce(rfh2_in_front > 0, false) END"
        keys["folders"] = f"CASE WHEN {dlh} THEN {folders} END"
    changed = "false"
    if options.ruleset is not None:
        keys |= {c: c for c in ("new_line", "new_action", "new_unplaceable", "new_matched")}
        keys["new_held"] = "new_held"
        keys |= {c: c for c in _UNIT_KEYS}  # null but for groups' members
    if options.old_ruleset is not None:
        keys |= {c: c for c in ("old_action", "old_queue", "old_qmgr", "old_line")}
        keys |= {c: c for c in ("new_queue", "new_qmgr", "old_held")}
        changed = f"({_CHANGED_RULE} OR unit_id IS NOT NULL)"
    if options.ages.active:
        keys["age_status"] = "age_status"
    hour = (
        f"CASE WHEN {dlh} AND put_epoch IS NOT NULL AND {selected}"
        " THEN floor(put_epoch / 3600) * 3600 END"
    )
    # A changed message with a 24-byte MsgId is sampled: the source gives its thirds as
    # longs; the MsgId of another frame is converted here, for the sampled ones only.
    if _ID_LONGS[0] in columns:
        parts = list(_ID_LONGS)
        sampled = f"coalesce({changed}, false) AND {_ID_LONGS[0]} IS NOT NULL"
    else:
        parts = _msg_id_longs("md_msg_id")
        sampled = f"coalesce({changed}, false) AND length(md_msg_id) = {8 * _MSG_ID_LONGS}"
    values = {
        **keys,
        "hour": hour,
        "epoch": f"CASE WHEN {dlh} THEN floor(put_epoch) END",
        **({c: c for c in _UNIT_COLUMNS[len(_UNIT_KEYS) :]} if options.ruleset else {}),
        **{f"m{j}": f"CASE WHEN {sampled} THEN {part} END" for j, part in enumerate(parts)},
        # the hour's row, after the message's own (a message without an hour has none)
        "hour_row": f"explode(CASE WHEN ({hour}) IS NOT NULL THEN array(false, true)"
        " ELSE array(false) END)",
    }
    messages = ", ".join(f"{v} AS `{k}`" for k, v in values.items())
    own = "NOT hour_row"
    ms = ", ".join(f"m{j}" for j in range(_MSG_ID_LONGS))
    orders = {
        name: f"CASE WHEN m0 IS NOT NULL THEN xxhash64({ms}, {seed}) END"
        for name, seed in zip(_ORDERS, _SAMPLE_SEEDS, strict=True)
    }
    rows = ", ".join(
        [
            *[f"CASE WHEN {own} THEN `{k}` END AS `{k}`" for k in keys],
            "CASE WHEN hour_row THEN hour END AS hour",
            f"CASE WHEN {own} THEN epoch END AS epoch",
            *[f"CASE WHEN {own} THEN {order} END AS {name}" for name, order in orders.items()],
            *(["unit_bit", "unit_last"] if options.ruleset else []),
            *[f"m{j}" for j in range(_MSG_ID_LONGS)],
        ]
    )
    aggs = ["count(1) AS `count`", "min(epoch) AS min_epoch", "max(epoch) AS max_epoch"]
    aggs += [f"min({name}) AS {name}" for name in _ORDERS]
    if options.ruleset is not None:  # a unit's simple members: their numbers
        aggs += ["bit_or(unit_bit) AS unit_mask", "min(unit_last) AS unit_lmin"]
        aggs += ["max(unit_last) AS unit_lmax"]
    aggs += [
        f"min_by({m}, {name}) AS sample{i}_{m}"
        for i, name in enumerate(_ORDERS)
        for m in (f"m{j}" for j in range(_MSG_ID_LONGS))
    ]
    grouped = ", ".join([*(f"`{k}`" for k in keys), "hour"])
    query = (
        f"SELECT {grouped}, {', '.join(aggs)} FROM ("
        f"SELECT {rows} FROM (SELECT {messages} FROM ({source}))) GROUP BY {grouped}"
    )
    return query, [*keys, "hour"]


def _unit_fates(source: str, keys: list[str], options: ReportOptions) -> str:
    """SQL text over ``source`` (the combinations, :func:`_combinations`) adding what
    comes of each message's group under each table, as the drain keeps groups whole:
    ``new_group`` (and ``old_group``) null when the message moves as its rule says (it
    is in no group or segmented message, or its unit is whole and every member placed),
    ``'kept'`` when its whole unit stays on the DLQ (a member missing, or a member not
    placed and no catch-all), ``'caught'`` when its whole unit goes to the catch-all
    with its headers (whole, a member not placed).

    One window over each unit's combinations decides: a unit of simple members by their
    aggregates (:func:`dlqhandler.spark.units.simple_whole`), any other by all its parts
    (:func:`dlqhandler.spark.units.unit_whole`). The units' combinations are then
    counted again by the other ``keys`` and the fates: a few rows, not one per unit, go
    on to the dimensions."""
    # a rule chose it (the classification chooses a RETRY or FWD only where it can put)
    placed = {"new": "new_action IN ('RETRY', 'FWD', 'DISCARD')"}
    caught = {"new": options.catch_all is not None}
    if options.old_ruleset is not None:
        placed["old"] = "old_action IN ('RETRY', 'FWD', 'DISCARD')"
        caught["old"] = options.old_catch_all is not None
    other = "unit_seq IS NOT NULL"  # a combination of one member that is not simple
    member = part("unit_seq", "unit_off", "unit_len", "unit_flags")
    unit = {
        "u_members": "sum(`count`)",
        "u_simple": f"sum(CASE WHEN NOT {other} THEN `count` END)",
        "u_mask": "bit_or(unit_mask)",
        "u_lmin": "min(unit_lmin)",
        "u_lmax": "max(unit_lmax)",
        "u_other": f"bool_or({other})",
        "u_parts": f"collect_list(CASE WHEN {other}"
        f" THEN array_repeat({member}, CAST(`count` AS INT)) END)",
        **{f"u_{side}_placed": f"bool_and({p})" for side, p in placed.items()},
        # a member not placed and past --max-hops: the whole unit stays, catch-all or not
        **{f"u_{side}_held": f"bool_or(coalesce({side}_held, false))" for side in placed},
    }
    windowed = ", ".join(f"{e} OVER u AS {n}" for n, e in unit.items())
    # a unit with another member: its simple ones as parts too (none twice, one last)
    every = (
        f"array_sort(concat(flatten(u_parts), {simple_parts('coalesce(u_mask, 0L)', 'u_lmax')}))"
    )
    simple_ok = "coalesce(u_simple = bit_count(u_mask), true) AND coalesce(u_lmin = u_lmax, true)"
    whole = (
        f"CASE WHEN NOT u_other THEN {simple_whole('u_members', 'u_mask', 'u_lmin', 'u_lmax')}"
        f" ELSE {simple_ok} AND {unit_whole('u_all')} END"
    )
    fates = ", ".join(
        f"CASE WHEN unit_id IS NULL OR (u_whole AND u_{side}_placed) THEN CAST(NULL AS STRING)"
        f" WHEN NOT u_whole OR u_{side}_held"
        f" OR {'false' if caught[side] else 'true'}"
        f" THEN 'kept' ELSE 'caught' END AS {side}_group"
        for side in placed
    )
    decided = (
        f"SELECT *, {fates} FROM (SELECT *, {whole} AS u_whole FROM ("
        f"SELECT *, CASE WHEN u_other THEN {every} END AS u_all FROM ("
        f"SELECT *, {windowed} FROM ({source}) WINDOW u AS (PARTITION BY unit_id))))"
    )
    grouped = ", ".join(
        f"`{k}`" for k in [*keys, *(f"{side}_group" for side in placed)] if k not in _UNIT_KEYS
    )
    again = ["sum(`count`) AS `count`", "min(min_epoch) AS min_epoch"]
    again += ["max(max_epoch) AS max_epoch", *(f"min({o}) AS {o}" for o in _ORDERS)]
    again += [
        f"min_by(sample{i}_m{j}, {o}) AS sample{i}_m{j}"
        for i, o in enumerate(_ORDERS)
        for j in range(_MSG_ID_LONGS)
    ]
    return f"SELECT {grouped}, {', '.join(again)} FROM ({decided}) GROUP BY {grouped}"


def dimension_rows(source: str, columns: list[str], options: ReportOptions) -> str:
    """SQL text over ``source`` (the facts, with ``columns``): every dimension row
    ``(dim, key, count, min_epoch, max_epoch, samples)`` of the
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
    combos, combined = _combinations(source, columns, options)
    # What follows the one aggregation over every message reads its few rows (the
    # combinations, hours and groups' members) in one task: one partition satisfies every
    # distribution after it (the units' window, the counts again, the dimensions, the top
    # keys), so Spark plans no exchange after the first and runs no job per stage.
    combos = f"SELECT /*+ COALESCE(1) */ * FROM ({combos})"
    if options.ruleset is not None:
        combos = _unit_fates(combos, combined, options)
    dlh = "(state = 'dlh')"
    readable = "(state != 'unreadable')"
    rows = [
        _row("state", "state"),
        f"CASE WHEN state = 'unreadable' THEN {_row('unreadable', 'error')} END",
        f"CASE WHEN {dlh} THEN {_row('reason', 'reason')} END",
        f"CASE WHEN {dlh} THEN {_row('destination', 'dest_q', 'dest_qm')} END",
        f"CASE WHEN {dlh} THEN {_row('application', 'appl')} END",
        f"CASE WHEN {dlh} THEN {_row('age', 'age')} END",
    ]
    if "folders" in combined:
        rows.append(f"CASE WHEN {dlh} THEN {_row('properties', 'carried', 'front')} END")
        rows += [
            f"CASE WHEN {dlh} AND array_contains(folders, {sql_string(name)})"
            f" THEN {_row('folder', sql_string(name))} END"
            for name in FOLDERS
        ]
    extra = []
    if options.ruleset is not None:
        chosen = _row(
            "chosen", "new_line", "new_action", dlh, "new_unplaceable", "new_group", "new_held"
        )
        rows.append(f"CASE WHEN {readable} THEN {chosen} END")
        extra.append(f"transform(new_matched, line -> {_row('matched', 'line')})")
    if options.old_ruleset is not None:
        change = _row(
            "change",
            *("old_action", "old_queue", "old_qmgr", "old_line", "old_group"),
            *("new_action", "new_queue", "new_qmgr", "new_line", "new_group"),
        )
        rows.append(f"CASE WHEN {_CHANGED} THEN {change} END")
    every = f"array({', '.join(rows)})"
    if extra:
        every = f"concat({every}, {', '.join(extra)})"
    if options.ages.active:  # a message left out counts in "selection" and nowhere else
        selection = _row("selection", "age_status")
        every = (
            f"CASE WHEN age_status = 'selected' THEN concat(array({selection}), {every})"
            f" ELSE array({selection}) END"
        )
    every = f"CASE WHEN hour IS NOT NULL THEN array({_row('hour', 'hour')}) ELSE {every} END"
    # Every row counts its combination's messages; the age rows also keep their oldest and
    # newest times, the change rows their samples (other rows: nulls in their place).
    values = ["`count`"]
    values += [f"CASE WHEN r.dim = 'age' THEN {c} END AS {c}" for c in ("min_epoch", "max_epoch")]
    values += [f"CASE WHEN r.dim = 'change' THEN {c} END AS {c}" for c in _SAMPLE_COLUMNS]
    return (
        f"SELECT r.dim AS dim, r.key AS key, {', '.join(values)}"
        f" FROM (SELECT explode({every}) AS r, * FROM ({combos})) WHERE r IS NOT NULL"
    )


def top_counts(source: str, top: int) -> str:
    """SQL text over ``source`` (the dimension rows): the count per ``(dim, key)`` (the
    sum of its rows' counts); keeps the ``top`` biggest keys per dim plus one row
    (``other`` true, ``key`` null) summing the rest. Ties break on the key."""
    totals = [
        "sum(`count`) AS `count`",
        "min(min_epoch) AS min_epoch",
        "max(max_epoch) AS max_epoch",
    ]
    aggs = totals + [
        f"min_by(sample{i}_m{j}, {order}) AS sample{i}_m{j}"
        for i, order in enumerate(_ORDERS)
        for j in range(_MSG_ID_LONGS)
    ]
    counted = f"SELECT dim, key, {', '.join(aggs)} FROM ({source}) GROUP BY dim, key"
    unbounded = ", ".join(sql_string(d) for d in _UNBOUNDED)
    kept = f"(row_number() OVER (PARTITION BY dim ORDER BY `count` DESC, key) <= {int(top)}"
    ranked = f"SELECT *, {kept} OR dim IN ({unbounded})) AS kept FROM ({counted})"
    again = totals + [f"first(CASE WHEN kept THEN {c} END, true) AS {c}" for c in _SAMPLES]
    key = "CASE WHEN kept THEN key END"
    return (
        f"SELECT dim, {key} AS key, NOT kept AS other, {', '.join(again)}"
        f" FROM ({ranked}) GROUP BY dim, {key}, NOT kept"
    )


def report_query(columns: Sequence[str], options: ReportOptions) -> str:
    """The report job's query over :data:`~dlqhandler.spark.sql.FRAME` (the messages, with
    ``columns``): :func:`facts_query`, :func:`dimension_rows` and :func:`top_counts` as
    one text (one parse, one analysis: each step's DataFrame would analyse the growing
    plan again)."""
    facts_sql, have = facts_query(columns, options)
    return top_counts(dimension_rows(facts_sql, have, options), options.top)


def report_rows(messages: Any, options: ReportOptions) -> Any:
    """The report job's rows over the ``messages`` DataFrame (:func:`report_query`)."""
    return sql_over(messages, report_query(messages.columns, options))


def build_report(messages: Any, options: ReportOptions) -> dict[str, Any]:
    """Run the report job over a decoded-message DataFrame; the ``report.json`` object."""
    rows = report_rows(messages, options)
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
