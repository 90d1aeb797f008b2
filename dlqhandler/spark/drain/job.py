"""The drain job: extract -> classify -> load (and optionally apply).

Extract is the ``dmpmqmsg`` data source (:mod:`dlqhandler.spark.messages`: header
columns and the record bytes, no body, no Python UDF); load writes the dump files and
the audit's Parquet in the same job (:mod:`dlqhandler.spark.drain.outputs`); a malformed
record's reason names its file, line and message number as the data source read it.

``run_drain(spark, ruleset, config)`` is the job in a session someone else holds (a
notebook's, a test's); :func:`dlqhandler.spark.drain.drain` runs it whole for
``dlqhandler drain`` and ``spark-submit ops/spark/drain.py``. Transforms take and return
DataFrames; only :mod:`dlqhandler.spark.drain.outputs` and
:mod:`dlqhandler.spark.drain.apply` touch files and queue managers.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, ControlQueues
from dlqhandler.errors import ConfigError
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.outcomes import Disposition, Outcome
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.port import QueueManager
from dlqhandler.rules import RuleSet
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.spark.classify import (
    UNPLACEABLE,
    catch_all_queue,
    classify,
    classify_query,
    floors_view,
)
from dlqhandler.spark.drain.outputs import REMAINING_FILE, write_outputs
from dlqhandler.spark.files import output_files
from dlqhandler.spark.messages import MESSAGE_COLUMNS, bad_input, read_messages
from dlqhandler.spark.progress import step
from dlqhandler.spark.sql import FRAME, sql_string, standalone
from dlqhandler.spark.units import IN_UNIT, data_length

__all__ = ["DrainConfig", "DrainResult", "classification_text", "mode_problem", "run_drain"]


class DrainConfig(BaseModel):
    """Validated drain settings (from the command line)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    output: Path | str  # a local directory, or a Hadoop URI (hdfs:, s3a:, viewfs:...)
    inputs: tuple[str, ...] = ()  # resolved files (dlqhandler.spark.inputs.resolve_inputs)
    input_notes: tuple[str, ...] = ()  # files read once though given twice, left out
    snapshot: Path | None = None  # a dump browsed from a queue manager by the driver
    qmgr: str | None = None
    queue: str | None = None
    catch_all: str | None = None
    dry_run: bool = False
    apply: bool = False
    local_qmgr: str = ""
    status_queue: str | None = None  # apply: attempt counts shared with dlqhandler run
    # a snapshot's messages with failed attempts on record: the lowest rule line left to
    # each, keyed by (MsgId, CorrelId) (dlqhandler.spark.classify.spent_floors)
    floors: dict[tuple[bytes, bytes], int] = Field(default_factory=dict)
    max_hops: int = Field(default=DEFAULT_MAX_HOPS, ge=1)  # run's --max-hops
    partitions: int | None = Field(default=None, ge=1)
    split_bytes: int = Field(default=128 << 20, ge=1)  # Spark's maxPartitionBytes default


@dataclass
class DrainResult:
    manifest: dict[str, Any]
    summary: dict[str, Any]
    output: Path | str
    failures: int = 0
    notes: list[str] = field(default_factory=list)


_EXAMPLES = 5  # malformed records named in the summary

_AUDIT_COLUMNS = (
    "hex(md_msg_id) AS msgid",
    "hex(md_correl_id) AS correlid",
    "dlh_reason AS reason",
    "dlh_dest_q_name AS destq",
    "dlh_dest_q_mgr_name AS destqm",
    "dlh_format AS format",
    "md_persistence AS persistence",
    "has_dlh",
    "matched_lines",
    "chosen_line",
    "action",
    "target_q",
    "target_qm",
    "disposition",
    "out_q",
    "out_qm",
    "outcome",
    "file_index",
    "split_start",
    "seq",
    "error",
    "error_line",
    "decoded_in_python",
    # a member of a group or a segment: the offline drain keeps groups whole (_split_groups)
    f"CASE WHEN {IN_UNIT} THEN hex(md_group_id) END AS groupid",
    "md_msg_seq_number AS msgseqnumber",
    "md_msg_flags AS msgflags",
)


# The audit's Parquet: its MsgIds and CorrelIds are unique per row, where a dictionary or
# min/max statistics only cost time (profiled: a tenth of the write), and no reader of
# the audit uses Parquet's size statistics.
_AUDIT_PARQUET = {
    "parquet.enable.dictionary": "false",
    "parquet.size.statistics.enabled": "false",
    "parquet.column.statistics.enabled#msgid": "false",
    "parquet.column.statistics.enabled#correlid": "false",
}


_SEGMENT_FLAGS = MQMF_SEGMENT | MQMF_LAST_SEGMENT
_GROUP_FLAGS = MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP


# What a group's check reads of each member (SQL over the audit's columns), in the order
# the data source's option ``groups`` takes them (jvm/GroupStates.java): its group, its
# sequence number, whether it is flagged the group's last, a segment, in a group
# (MsgFlags), placed, malformed.
_PLACED = (Disposition.RETRY, Disposition.FWD, Disposition.DISCARD)
_GROUP_MEMBER = (
    "groupid",
    "msgseqnumber",
    f"(msgflags & {MQMF_LAST_MSG_IN_GROUP}) <> 0",
    f"(msgflags & {_SEGMENT_FLAGS}) <> 0",
    f"(msgflags & {_GROUP_FLAGS}) <> 0",
    f"disposition IN ({', '.join(sql_string(d.value) for d in _PLACED)})",
    # a member that stays (malformed; with a catch-all, classify leaves only those and
    # the ones carrying --max-hops MQDLHs): its group stays whole with it, catch-all or not
    f"(error IS NOT NULL OR disposition = {sql_string(Disposition.REMAIN.value)})",
)


def _split_groups(audit: Any, gapped: Callable[[], Any] | None = None) -> list[Any]:
    """The groups (and segmented messages) the drain would split, from its ``audit``:
    those with a member not placed (IGNORE, no MQDLH, a target that is not valid or
    loops, a malformed record), and those not whole in the input, as
    :func:`dlqhandler.mq.groups.is_complete` tells: a logical message missing (every
    number 1..n, n flagged LAST_MSG_IN_GROUP; 1 alone for a segmented message outside a
    group), or a segment missing (``gapped``: the GroupIds of :func:`_segment_gaps`, read
    only when the audit holds a segment: that needs each payload's length). Rows of
    ``groupid``, ``malformed`` and ``whole``, few (collected to the driver); one
    aggregation of the audit. (The offline drain's writers track the same as they
    write: :func:`_split_from_states`.)"""
    from pyspark.sql import functions as F

    _id, seq, is_last, segment, grouped, placed, malformed = _GROUP_MEMBER
    # Whole: in a group, one last number, and the distinct numbers, sorted, are 1..last
    # (none missing; the segments of one logical message share its number, other numbers
    # appear once); compared only when their count is last (no sequence of a stray
    # number). Outside a group (a segmented message): the number 1 alone.
    whole = (
        "(segmented OR members = size(seqs)) AND CASE WHEN grouped"
        " THEN size(lasts) = 1 AND size(seqs) = get(lasts, 0)"
        " AND array_sort(seqs) = sequence(1, size(seqs))"
        " ELSE seqs = array(1) END"
    )
    units = (
        audit.filter("groupid IS NOT NULL")
        .groupBy("groupid")
        .agg(
            F.expr(f"bool_and({placed})").alias("placed"),
            F.expr(f"bool_or({malformed})").alias("malformed"),
            F.expr(f"bool_or({segment})").alias("segmented"),
            F.expr(f"bool_or({grouped})").alias("grouped"),
            F.expr(f"collect_set(CASE WHEN {is_last} THEN {seq} END)").alias("lasts"),
            F.expr(f"collect_set({seq})").alias("seqs"),
            F.expr("count(*)").alias("members"),
        )
        .withColumn("whole", F.expr(whole))
    )
    segmented = audit.filter(f"groupid IS NOT NULL AND {segment}")
    if gapped is not None and not segmented.isEmpty():
        gaps = gapped().withColumn("gap", F.lit(True))
        units = units.join(gaps, "groupid", "left").withColumn(
            "whole", F.expr("whole AND gap IS NULL")
        )
    rows: list[Any] = (
        units.filter("NOT placed OR NOT whole").select("groupid", "malformed", "whole").collect()
    )
    return rows


def _split_from_states(texts: list[str], gapped: Callable[[], set[str]]) -> list[dict[str, Any]]:
    """What :func:`_split_groups` finds, from the writers' group states (``texts``: each
    task's file, JSON lines sorted by group; jvm/GroupStates.java) merged by group: the
    groups with a member not placed or not whole, as dicts of ``groupid``, ``malformed``
    and ``whole``. ``gapped`` gives the GroupIds with a segment missing
    (:func:`_segment_gaps`); it is asked only when a group holds a segment.

    The files are merged as sorted streams, one group at a time: the driver holds their
    text and one group's lines, not a state per group. A group seen by one task only,
    whole and placed there (a line without ``q``), is not even parsed: most groups are."""
    gaps = gapped() if any('"s":true' in text for text in texts) else set()
    split = []
    streams = [_lines(text) for text in texts]
    for g, run in itertools.groupby(heapq.merge(*streams), key=lambda pair: pair[0]):
        lines = [line for _g, line in run]
        if len(lines) == 1 and '"q":' not in lines[0] and g not in gaps:
            continue  # whole and placed in the one task that saw it
        st = functools.reduce(_merged, (json.loads(line) for line in lines))
        seqs, lasts = _seqs(st), _lasts(st)
        n = len(seqs)
        # the numbers 1..n: in a group, n the one flagged last; outside one, 1 alone
        numbered = seqs == set(range(1, n + 1)) and (lasts == {n} if st["r"] else n == 1)
        whole = (st["s"] or st["k"] == n) and numbered and g not in gaps
        if not st["p"] or not whole:
            split.append({"groupid": g, "malformed": st["m"], "whole": whole})
    return split


def _lines(text: str) -> Iterator[tuple[str, str]]:
    """(group id, line) of each line of a task's group states, in their (sorted) order."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        start = end + 1
        if line:
            head = line[6 : line.index('"', 6)]  # {"g":"<id>", the id as written
            yield (head if "\\" not in head else json.loads(line)["g"]), line


def _merged(was: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """Two states of one group (from two tasks) as one."""
    return {
        "g": state["g"],
        "p": was["p"] and state["p"],
        "m": was["m"] or state["m"],
        "s": was["s"] or state["s"],
        "r": was["r"] or state["r"],
        "k": was["k"] + state["k"],
        "q": _seqs(was) | _seqs(state),
        "l": _lasts(was) | _lasts(state),
    }


def _seqs(state: dict[str, Any]) -> set[int]:
    """A group state's distinct sequence numbers (without ``q``: 1..n)."""
    return set(state["q"]) if "q" in state else set(range(1, state["n"] + 1))


def _lasts(state: dict[str, Any]) -> set[int]:
    """A group state's distinct numbers flagged last (without ``l``: n, in a group)."""
    if "l" in state:
        return set(state["l"])
    return {state["n"]} if state["r"] else set()


def _segment_gaps(messages: Any) -> Any:
    """The GroupIds (hex, as the audit's ``groupid``) of the units in ``messages`` (the
    message frame with ``body``) with a segment missing, as
    :func:`dlqhandler.mq.groups.is_complete` tells: each logical message (GroupId,
    MsgSeqNumber) is one message that is no segment at Offset 0, or segments from
    Offset 0 without a gap (each Offset the previous one plus its length, the data
    after the MQDLH) up to one LAST_SEGMENT, the last. A frame, joined to the groups."""
    from pyspark.sql import functions as F

    last = f"(md_msg_flags & {MQMF_LAST_SEGMENT}) <> 0"
    part = (
        "struct(CAST(md_offset AS BIGINT) AS off,"
        f" CAST({data_length('octet_length(body)')} AS BIGINT) AS len,"
        f" {last} AS last, (md_msg_flags & {_SEGMENT_FLAGS}) <> 0 AS seg)"
    )
    whole = (
        "CASE WHEN size(p) = 1 AND NOT p[0].seg THEN p[0].off = 0"
        " ELSE p[0].off = 0 AND element_at(p, -1).last AND size(filter(p, x -> x.last)) = 1"
        " AND forall(zip_with(slice(p, 1, size(p) - 1), slice(p, 2, size(p)),"
        " (a, b) -> b.off = a.off + a.len), x -> x) END"
    )
    return (
        messages.filter(f"error IS NULL AND {IN_UNIT}")
        .selectExpr(
            "hex(md_group_id) AS groupid", "md_msg_seq_number AS seqnumber", f"{part} AS part"
        )
        .groupBy("groupid", "seqnumber")
        .agg(F.expr("array_sort(collect_list(part))").alias("p"))
        .filter(f"NOT ({whole})")
        .select("groupid")
        .distinct()
    )


def _keep_groups_whole(frame: Any, split: list[Any], catch_all: str | None) -> Any:
    """The classified ``frame`` with every member of the ``split`` groups
    (:func:`_split_groups`) left where its group is left, as ``dlqhandler run`` and
    ``--apply`` leave a group whole: all of it stays, or goes to the catch-all with its
    headers (not a group with a malformed member, nor one not whole in the input, which
    ``--apply`` leaves on the queue); written member by member, a load would deliver a
    group with members missing."""
    from pyspark.sql import functions as F

    def ids(rows: list[Any]) -> str:
        return ", ".join(f"X'{r['groupid']}'" for r in rows) or "NULL"

    def left(r: Any) -> bool:
        return bool(r["malformed"] or not r["whole"] or catch_all is None)

    stays = ids([r for r in split if left(r)])
    caught = ids([r for r in split if not left(r)])
    remain, catch = sql_string(Disposition.REMAIN.value), sql_string(Disposition.CATCHALL.value)
    to_catch_all = sql_string(catch_all) if catch_all is not None else "CAST(NULL AS STRING)"
    # a member by its flags too: a message with the GroupId but no group or segment flag
    # is in no group (as run and --apply tell, mq.groups.in_unit), and moves on its own
    stay = f"(md_group_id IN ({stays}) AND {IN_UNIT})"
    take = f"(md_group_id IN ({caught}) AND {IN_UNIT})"
    return frame.withColumns(
        {
            "disposition": F.expr(
                f"CASE WHEN {stay} THEN {remain} WHEN {take} THEN {catch} ELSE disposition END"
            ),
            "out_q": F.expr(
                f"CASE WHEN {stay} THEN CAST(NULL AS STRING) WHEN {take} THEN {to_catch_all}"
                " ELSE out_q END"
            ),
            "out_qm": F.expr(
                f"CASE WHEN {stay} THEN CAST(NULL AS STRING) WHEN {take} THEN '' ELSE out_qm END"
            ),
            "strip_header": F.expr(f"CASE WHEN {stay} OR {take} THEN false ELSE strip_header END"),
        }
    )


# Outcomes of --apply that carried out a rule: the one applied (``applied_line``; null:
# the implicit IGNORE) is not the first match when puts failed and the rules were asked
# again with the new attempt count (a RETRY spent, then the next matching rule). A
# commit of unknown outcome carried its rule out too, whether or not it took.
_CARRIED_OUT = (Outcome.OK, Outcome.DISCARDED, Outcome.CATCH_ALL, Outcome.UNKNOWN)


def _carried_out() -> str:
    return f"outcome IN ({', '.join(sql_string(o.value) for o in _CARRIED_OUT)})"


def _applied_line() -> str:
    """A row's ``chosen_line`` after ``--apply`` (SQL): the rule carried out, else the
    first match (a failed, skipped or remaining message)."""
    return f"CASE WHEN {_carried_out()} THEN applied_line ELSE chosen_line END"


def _applied_action(ruleset: RuleSet) -> str:
    """A row's ``action`` after ``--apply`` (SQL): that of the rule carried out (IGNORE
    when none: the catch-all took it), else the first match's."""
    whens = " ".join(f"WHEN {r.line} THEN {sql_string(r.action.kind)}" for r in ruleset.rules)
    applied = f"CASE applied_line {whens} ELSE 'IGNORE' END" if whens else "'IGNORE'"
    return f"CASE WHEN {_carried_out()} THEN {applied} ELSE action END"


def _applied_disposition() -> str:
    """The disposition of a row ``--apply`` acted on, from its ``outcome`` (SQL)."""
    o, d = Outcome, Disposition
    return (
        f"CASE outcome WHEN {sql_string(o.DISCARDED.value)} THEN {sql_string(d.DISCARD.value)}"
        f" WHEN {sql_string(o.CATCH_ALL.value)} THEN {sql_string(d.CATCHALL.value)}"
        f" WHEN {sql_string(o.OK.value)} THEN action"
        f" WHEN {sql_string(o.SKIPPED.value)} THEN {sql_string(d.SKIPPED.value)}"
        f" WHEN {sql_string(o.UNKNOWN.value)} THEN {sql_string(d.UNKNOWN.value)}"
        f" ELSE {sql_string(d.REMAIN.value)} END"
    )


def _outcome_column(apply: bool) -> str:
    """A row's ``outcome`` (SQL): what ``--apply`` did, else what the files assume."""
    if apply:
        return "outcome"
    o, d = Outcome, Disposition
    return (
        f"CASE disposition WHEN {sql_string(d.DISCARD.value)} THEN {sql_string(o.DISCARDED.value)}"
        f" WHEN {sql_string(d.REMAIN.value)} THEN {sql_string(o.REMAINING.value)}"
        f" WHEN {sql_string(d.CATCHALL.value)} THEN {sql_string(o.CATCH_ALL.value)}"
        f" ELSE {sql_string(o.ASSUMED.value)} END"
    )


def classification_text(ruleset: RuleSet, config: DrainConfig) -> str:
    """The classification :func:`run_drain` runs, as SQL text Spark's parser reads alone
    (its session parses it while it starts: get_session's ``warm_sql``); the same text
    as the one run over the read messages, whose columns these are."""
    columns = [*MESSAGE_COLUMNS, *([] if config.apply else ["record"])]
    query = classify_query(
        columns,
        ruleset,
        source=FRAME,
        input_queue=config.queue,
        local_qmgr=config.local_qmgr,
        catch_all=catch_all_queue(ruleset, config.catch_all),
        max_hops=config.max_hops,
    )
    return standalone(query)


def run_drain(
    spark: Any,
    ruleset: RuleSet,
    config: DrainConfig,
    connect: Callable[[], QueueManager] | None = None,
) -> DrainResult:
    """Run the whole drain; returns the manifest and the summary.

    ``connect`` (apply mode) is a picklable factory of queue manager connections,
    built by the composition root: executors call it to get their own.
    """
    check_config(config)
    from pyspark.sql import functions as F

    out = output_files(spark, config.output)
    out.mkdirs()
    # the inputs were resolved once, by the caller (dlqhandler.spark.inputs.resolve_inputs)
    files = [str(config.snapshot)] if config.snapshot is not None else list(config.inputs)
    catch_all = catch_all_queue(ruleset, config.catch_all)

    def reread(*, body: bool = False) -> Any:
        """The input's message frame (``body``: with each message's data)."""
        return read_messages(
            spark,
            [str(f) for f in files],
            split_bytes=config.split_bytes,
            record=not config.apply and not body,
            body=body,
            located=True,
        )

    step(spark, "read the input")
    loaded = reread()
    input_queue = config.queue
    frame = classify(
        loaded,
        ruleset,
        input_queue=input_queue,
        local_qmgr=config.local_qmgr,
        catch_all=catch_all,
        max_hops=config.max_hops,
        floors=floors_view(spark, config.floors),
    )

    failures = 0
    left: list[tuple[str, str, int]] = []
    left_counts: dict[str, int] = {}
    classified = frame  # the offline drain's, before its outcome: see regrouped
    if config.apply:
        from dlqhandler.spark.drain.apply import apply_frame

        if connect is None or input_queue is None:
            raise ConfigError("--apply needs a queue manager connection and a queue")
        step(spark, "apply the actions")
        # The actions run exactly once: an eager local checkpoint cuts the lineage, so
        # no later job (nor an evicted cache block) can run them again - a second run
        # would find the moved messages gone and record them as skipped.
        frame = bad_input(
            lambda: apply_frame(
                frame,
                ruleset,
                input_queue,
                catch_all,
                connect,
                status_queue=config.status_queue,
                max_hops=config.max_hops,
                control_queues=ControlQueues(
                    input_queue, config.status_queue or DEFAULT_STATUS_QUEUE, DEFAULT_AUDIT_QUEUE
                ).roles(),
            ).localCheckpoint(eager=True)
        )
        frame = frame.withColumns(
            {
                "chosen_line": F.expr(_applied_line()),
                "action": F.expr(_applied_action(ruleset)),
            }
        )
        frame = frame.withColumn("disposition", F.expr(_applied_disposition()))
        # a commit of unknown outcome is no failure, but the drain is not done: PARTIAL
        failures = frame.filter(
            F.col("outcome").isin(
                Outcome.FAILED.value, Outcome.UNKNOWN.value, Outcome.NOT_CONNECTED.value
            )
        ).count()
        # rows not acted on (a task could not connect) or whose action failed: how
        # many, and why (few reasons: each the first words of an MQ error)
        reasons = (
            frame.filter(F.col("outcome").isin(Outcome.NOT_CONNECTED.value, Outcome.FAILED.value))
            .groupBy("outcome", "apply_error")
            .count()
        )
        left = [
            (str(r["outcome"]), str(r["apply_error"]), int(r["count"]))
            for r in reasons.orderBy(F.desc("count")).limit(4 * _EXAMPLES).collect()
        ]
        left_counts = {
            str(r["outcome"]): int(r["n"])
            for r in reasons.groupBy("outcome").agg(F.sum("count").alias("n")).collect()
        }
    frame = frame.withColumn("outcome", F.expr(_outcome_column(config.apply)))

    def split_groups(counts: list[dict[str, Any]]) -> list[Any]:
        """The groups the dry run would split (--apply moves groups whole itself), when
        the counts show a message in a group: from the audit just written."""
        if config.apply or not any(c["in_group"] for c in counts):
            return []
        audit = spark.read.schema(audit_schema()).parquet(out.uri("audit"))
        return _split_groups(audit, lambda: _segment_gaps(reread(body=True)))

    def regrouped(split: list[Any]) -> Any:
        """The frame again, with the ``split`` groups kept whole."""
        step(spark, "keep message groups whole: write again")
        whole = _keep_groups_whole(classified, split, catch_all)
        return whole.withColumn("outcome", F.expr(_outcome_column(config.apply)))

    written = None

    def audit_schema() -> Any:  # to read the audit back without a footer (analysis: 0.2 s)
        return frame.selectExpr(*_AUDIT_COLUMNS).schema

    if config.dry_run or config.apply:
        step(spark, "classify, write the audit")
        bad_input(lambda: frame.selectExpr(*_AUDIT_COLUMNS).write.parquet(out.uri("audit")))
        # The audit holds every column the summary counts: no second pass over the bodies.
        groups = _groups(spark.read.schema(audit_schema()).parquet(out.uri("audit")))
        split = split_groups(groups)
        if split:  # written again, the split groups kept whole
            instead = regrouped(split)
            out.delete("audit")
            bad_input(lambda: instead.selectExpr(*_AUDIT_COLUMNS).write.parquet(out.uri("audit")))
            groups = _groups(spark.read.schema(audit_schema()).parquet(out.uri("audit")))
    else:
        step(spark, "classify, write the dmpmqmsg files and the audit")

        def write(rows: Any, groups: tuple[str, ...] = ()) -> Any:
            return bad_input(
                lambda: write_outputs(
                    rows,
                    out,
                    partitions=config.partitions,
                    audit=_AUDIT_COLUMNS,
                    audit_options=_AUDIT_PARQUET,
                    counts=_COUNTED,
                    groups=groups,
                )
            )

        written = write(frame, _GROUP_MEMBER)  # the writers track the groups too
        if not written.audit_files:  # no message at all: an empty audit all the same
            out.delete("audit")
            spark.createDataFrame([], audit_schema()).write.parquet(out.uri("audit"))
        split = _split_from_states(
            written.group_texts,
            lambda: {r["groupid"] for r in _segment_gaps(reread(body=True)).collect()},
        )
        if split:  # written again, the split groups kept whole
            instead = regrouped(split)
            for r in written.files:
                out.delete(r["file"])
            out.delete("audit")
            written = write(instead)
        groups = written.counts
    summary = _summarise(groups, ruleset, applied=config.apply)
    summary["decoder"] = "jvm"  # the dmpmqmsg data source decodes every record
    if config.apply:  # left on the DLQ (counted remaining): not acted on, or failed; why
        for outcome in (Outcome.NOT_CONNECTED, Outcome.FAILED):
            summary["totals"][outcome.value] = left_counts.get(outcome.value, 0)
            summary[outcome.value] = [  # the most frequent reasons
                {"reason": why, "messages": n} for o, why, n in left if o == outcome.value
            ]
    outputs: list[dict[str, Any]] = []
    remaining: dict[str, Any] = {"file": None, "messages": summary["totals"]["remaining"]}
    counts = summary.pop("_per_file")
    for r in written.files if written is not None else []:
        key = (None, None) if r["out_q"] is None else (r["out_q"], r["out_qm"] or "")
        n = counts[key]
        if r["file"] == REMAINING_FILE:
            remaining = {"file": REMAINING_FILE, "messages": n}
        else:
            outputs.append(
                {
                    "queue": r["out_q"],
                    "qmgr": r["out_qm"],
                    "file": r["file"],
                    "messages": n,
                    "bytes": r["bytes"],
                }
            )
    if summary["totals"]["malformed"]:  # each names its file, line and message number
        audit = spark.read.schema(audit_schema()).parquet(out.uri("audit"))
        summary["malformed_examples"] = [
            str(r["error"])
            for r in audit.filter(F.col("error").isNotNull())
            .orderBy("file_index", "seq")
            .select("error")
            .limit(_EXAMPLES)
            .collect()
        ]
    if summary["totals"]["unknown"]:  # each named: it may have left the queue or not
        audit = spark.read.schema(audit_schema()).parquet(out.uri("audit"))
        unknown = audit.filter(F.col("outcome") == Outcome.UNKNOWN.value).select("msgid")
        summary["unknown_outcome"] = sorted(str(r["msgid"]) for r in unknown.collect())
    manifest = {
        "rules_sha256": ruleset.sha256,
        "input": [str(f) for f in files]
        if config.snapshot is None
        else {"qmgr": config.qmgr, "queue": config.queue},
        "mode": "dry-run" if config.dry_run else ("apply" if config.apply else "offline"),
        "catch_all": catch_all,
        "input_notes": list(config.input_notes),
        # the dead-letter queue the input came from (a target there is a loop), if known
        "input_queue": {"queue": config.queue, "qmgr": config.local_qmgr} if config.queue else None,
        "outputs": outputs,
        "discarded": summary["totals"]["discarded"],
        "remaining": remaining,
        "totals": summary["totals"],
    }
    out.write_text("summary.json", json.dumps(summary, indent=2) + "\n")
    out.write_text("manifest.json", json.dumps(manifest, indent=2) + "\n")
    return DrainResult(manifest, summary, config.output, failures)


# What the summary counts by (SQL over the audit's columns: the writers count them as they
# write, --dry-run and --apply count the audit): the groups are few (rules x targets x
# reasons), whatever the number of messages.
_COUNTED = (
    "disposition",
    "chosen_line",
    "action",
    "reason",
    "out_q",
    "out_qm",
    "has_dlh",
    "matched_lines",
    "error IS NOT NULL AS malformed",
    "decoded_in_python",
    "groupid IS NOT NULL AS in_group",
    # Matched by rules, each a RETRY or FWD whose target is not a valid name or
    # loops back onto the input DLQ: left (or sent to the catch-all), as run leaves it
    # once every attempt failed (not counted with --apply, where such a target is an
    # action that failed: see _summarise).
    f"error IS NULL AND {UNPLACEABLE} AS unplaceable",
)


def _groups(audit: Any) -> list[dict[str, Any]]:
    """The audit's rows counted by :data:`_COUNTED`, in one aggregation job."""
    from pyspark.sql import functions as F

    rows = audit.selectExpr(*_COUNTED)
    return [
        r.asDict() for r in rows.groupBy(*rows.columns).agg(F.count("*").alias("count")).collect()
    ]


def _summarise(
    groups: list[dict[str, Any]], ruleset: RuleSet, *, applied: bool = False
) -> dict[str, Any]:
    """Every count of the summary from the rows counted by :data:`_COUNTED` (one dict
    per combination of values, with its ``count``). ``applied`` (--apply): a target
    refused is a failed action there, and a message left is in a group not whole on
    the queue: none is counted unplaceable; ``chosen`` counts the rule carried out."""
    from collections import Counter

    per_file: Counter[tuple[str | None, str | None]] = Counter()  # what each output file holds
    malformed = python = 0
    by_disposition: Counter[str] = Counter()
    matched: Counter[int] = Counter()
    chosen: Counter[int] = Counter()
    by_action: Counter[str] = Counter()
    by_reason: Counter[int | None] = Counter()
    by_target: Counter[tuple[str, str, str]] = Counter()
    no_dlh = unmatched = unplaceable = 0
    for g in groups:
        n = g["count"]
        if g["unplaceable"] and not applied:
            unplaceable += n
        if g["decoded_in_python"] and not g["malformed"]:
            python += n
        if g["malformed"]:
            malformed += n
        elif g["disposition"] == Disposition.REMAIN:
            per_file[(None, None)] += n
        elif g["disposition"] != Disposition.DISCARD:
            per_file[(g["out_q"], g["out_qm"] or "")] += n
        by_disposition[g["disposition"]] += n
        by_action[g["action"]] += n
        by_reason[g["reason"]] += n
        for line in g["matched_lines"] or ():
            matched[line] += n
        if g["chosen_line"] is not None:
            chosen[g["chosen_line"]] += n
        elif g["has_dlh"] and not g["unplaceable"]:  # matched, none could place it
            unmatched += n
        if not g["has_dlh"] and not g["malformed"]:
            no_dlh += n
        if g["out_q"] is not None:
            by_target[(g["disposition"], g["out_q"], g["out_qm"] or "")] += n
    rules: list[dict[str, Any]] = [
        {
            "line": r.line,
            "action": r.action.kind,
            "matched": matched.get(r.line, 0),
            "chosen": chosen.get(r.line, 0),
        }
        for r in ruleset.rules
    ]
    return {
        "rules_sha256": ruleset.sha256,
        "totals": {
            "messages": sum(by_disposition.values()),
            "retried": by_disposition.get(Disposition.RETRY, 0),
            "forwarded": by_disposition.get(Disposition.FWD, 0),
            "discarded": by_disposition.get(Disposition.DISCARD, 0),
            "catch_all": by_disposition.get(Disposition.CATCHALL, 0),
            "remaining": by_disposition.get(Disposition.REMAIN, 0),
            "skipped": by_disposition.get(Disposition.SKIPPED, 0),
            "unknown": by_disposition.get(Disposition.UNKNOWN, 0),
            "no_dlh": no_dlh,
            "unmatched": unmatched,
            "unplaceable": unplaceable,
            "malformed": malformed,
            "decoded_in_python": python,
        },
        "by_rule": rules,
        "by_action": [{"action": k, "count": v} for k, v in sorted(by_action.items())],
        "by_reason": [
            {"reason": k, "count": v}
            for k, v in sorted(by_reason.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
        ],
        "by_target": [
            {"disposition": d, "queue": q, "qmgr": qm, "count": v}
            for (d, q, qm), v in sorted(by_target.items())
        ],
        "never_matched": [r["line"] for r in rules if r["matched"] == 0],
        # With --apply "chosen" is the rule carried out: one whose puts all failed (the
        # next matching rule then chosen) is not shadowed, so none is named.
        "shadowed": []
        if applied
        else [r["line"] for r in rules if r["matched"] > 0 and r["chosen"] == 0],
        "_per_file": per_file,
    }


def mode_problem(*, apply: bool, dry_run: bool, from_queue: bool) -> str | None:
    """Why a drain's mode cannot run (the CLI says it before anything starts), or None."""
    if apply and not from_queue:
        return "--apply acts on a queue: give -m QMGR as the input"
    if apply and dry_run:
        return "--apply and --dry-run exclude each other"
    return None


def check_config(config: DrainConfig) -> None:
    problem = mode_problem(
        apply=config.apply, dry_run=config.dry_run, from_queue=config.snapshot is not None
    )
    if problem:
        raise ConfigError(problem)
