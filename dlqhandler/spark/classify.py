"""The rules compiler's second back end: native Spark SQL expressions.

Every rule of the IR becomes one boolean expression (the AND of its predicates); no
Python runs per row. String predicates use the IR's own forms: ``exact`` is an equality
on the canonical value, ``prefix`` a LIKE on the blank-padded field with ``%``, ``_`` and
``\\`` escaped (MQ names may contain ``%`` and ``_``), ``any`` is true, ``nonblank`` a
length test, and ``generic`` the IR's regex, full-matched with RLIKE on the padded field.
The same IR drives the Python matcher; ``tests/spark/test_differential.py`` demands
identical decisions.

The expressions are SQL text, and the whole classification is one ``spark.sql`` query
over the frame: one analysis and a constant number of py4j round trips, whatever the
number of rules (building them as Column objects cost several round trips per predicate
and per rule: thousands for a large table). Every literal is written by
:func:`dlqhandler.spark.sql.sql_string`, exact whatever the session's string-escaping
settings.
:func:`classify_query` gives that query's text, for a caller that builds a bigger query
around it (the report's, run whole by :func:`dlqhandler.spark.sql.sql_over`).

The decision for a message seen for the first time (no failed attempts) is the first
matching rule (RETRY counts are at least 1) that can be carried out, or the implicit
IGNORE: a RETRY or FWD whose target cannot be put to (not a valid name, a loop onto the
input queue or a control queue, a message that would carry ``max_hops`` MQDLHs or more:
the ``dlh_count`` column) fails every attempt, so `run` takes the next matching rule
once they are spent, and so does the classification (:data:`UNPLACEABLE` tells the
messages no rule could place).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dlqhandler.acting.audit import DEFAULT_AUDIT_QUEUE
from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.outcomes import Disposition
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.rules import PATTERN_FIELDS, IntPredicate, Rule, RuleSet, StringPredicate, decide
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.spark.sql import FRAME, sql_over, sql_string

__all__ = [
    "CONTROL_QUEUES",
    "MQ_NAME_REGEX",
    "UNPLACEABLE",
    "catch_all_loop",
    "catch_all_queue",
    "classify",
    "classify_query",
    "field_column",
    "floors_view",
    "hop_limited",
    "offline_input",
    "rule_condition",
    "spent_floors",
]

# A message's floor: the lowest rule line the classification may still choose for it
# (key: its MsgId and CorrelId), where failed attempts are on record.
Floors = Mapping[tuple[bytes, bytes], int]

MQ_NAME_REGEX = r"^[A-Za-z0-9._/%]{1,48}$"
# A classified message that rules matched but none could place: each a RETRY or FWD whose
# target cannot be put to (SQL over matched_lines and chosen_line; left, or caught).
UNPLACEABLE = "(chosen_line IS NULL AND coalesce(size(matched_lines) > 0, false))"
_NULL_STRING = "CAST(NULL AS STRING)"


def field_column(keyword: str) -> str:
    """The DataFrame column holding a pattern keyword's field."""
    struct, attr, _kind, _length = PATTERN_FIELDS[keyword]
    return f"{struct}_{attr}"


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _string_condition(pred: StringPredicate) -> str:
    value = f"coalesce(`{field_column(pred.keyword)}`, '')"
    if pred.kind == "any":
        return "true"
    if pred.kind == "nonblank":
        return f"length({value}) > 0"
    if pred.kind == "exact":
        return f"{value} = {sql_string(pred.pattern.rstrip(' '))}"
    padded = f"rpad({value}, {pred.length}, ' ')"
    if pred.kind == "prefix":
        literal = pred.pattern.rstrip("*")
        return f"{padded} LIKE {sql_string(_like_escape(literal) + '%')}"
    return f"{padded} RLIKE {sql_string('^(?:' + pred.regex + ')$')}"


def rule_condition(rule: Rule) -> str:
    """The boolean SQL expression that is true when ``rule``'s pattern matches a row."""
    parts = ["has_dlh"]
    for pred in rule.predicates:
        if isinstance(pred, IntPredicate):
            parts.append(f"`{field_column(pred.keyword)}` = {int(pred.value)}")
        else:
            parts.append(_string_condition(pred))
    return "coalesce(" + " AND ".join(f"({p})" for p in parts) + ", false)"


def _target_columns(rule: Rule) -> tuple[str, str]:
    action = rule.action
    if action.kind == "RETRY":
        return "dlh_dest_q_name", "dlh_dest_q_mgr_name"
    if action.kind != "FWD":
        return _NULL_STRING, _NULL_STRING
    q = {"&DESTQ": "dlh_dest_q_name", "&REPLYQ": "md_reply_to_q"}.get(
        action.fwdq or "", sql_string(action.fwdq or "")
    )
    qm = {"&DESTQM": "dlh_dest_q_mgr_name", "&REPLYQM": "md_reply_to_q_mgr"}.get(
        action.fwdqm or "", sql_string(action.fwdqm or "")
    )
    return q, f"coalesce({qm}, '')"


def catch_all_queue(ruleset: RuleSet, explicit: str | None) -> str | None:
    """``--catch-all``, else the table's last rule when it is an unconditional FWD
    to a literal local queue."""
    if explicit:
        return explicit
    if ruleset.rules:
        last = ruleset.rules[-1]
        a = last.action
        if (
            not last.predicates
            and a.kind == "FWD"
            and a.fwdq
            and not a.fwdq.startswith("&")
            and not a.fwdqm
        ):
            return a.fwdq
    return None


def catch_all_loop(ruleset: RuleSet, explicit: str | None, queue: str | None) -> str:
    """What to say when the catch-all (``--catch-all``, else the table's, see
    :func:`catch_all_queue`) is the input dead-letter ``queue``: its file would load
    everything it holds back onto the DLQ (a loop), so the drain refuses to run and the
    report to predict it; "" when it is another queue (or there is none)."""
    caught = catch_all_queue(ruleset, explicit)
    if not queue or caught != queue:
        return ""
    given = f"--catch-all {caught}" if explicit else f"the table's catch-all {caught}"
    return (
        f"{given} is the input dead-letter queue (a loop): loading its file would put"
        " every message it holds back on the DLQ; name another queue for what the"
        " rules leave"
    )


def offline_input(
    ruleset: RuleSet, origin: tuple[str, str] | None = None
) -> tuple[str | None, str]:
    """The dead-letter queue and queue manager a drain or report of dump files takes the
    messages to come from: the table's INPUTQ and INPUTQM, else the queue and queue
    manager the dumps' headers name (``origin``: (qmgr, queue), see
    :func:`dlqhandler.spark.inputs.dumps_origin`), else None and "".

    IBM's DLQ control data: INPUTQ is "the name of the DLQ you want to process", INPUTQM
    "the name of the queue manager that owns the DLQ named on the INPUTQ keyword"; without
    them runmqdlq processes the queue manager's dead-letter queue, the one the dumps were
    unloaded from (dmpmqmsg's ``* Queue =`` line names it)."""
    control = ruleset.control
    origin_qm, origin_q = origin if origin is not None else ("", None)
    if control.inputq:
        same = origin_q is not None and origin_q == control.inputq
        return control.inputq, control.inputqm or (origin_qm if same else "")
    return origin_q, control.inputqm or origin_qm


# The handler's own queues (`dlqhandler run`'s defaults): a dead letter is never put on
# them (dlqhandler.rules.outgoing.plan_outgoing), so a target there, on the input queue
# manager, stays (or goes to the catch-all) as a loop does.
CONTROL_QUEUES = (DEFAULT_STATUS_QUEUE, DEFAULT_AUDIT_QUEUE)


def spent_floors(
    ruleset: RuleSet, spent: Iterable[tuple[Message, int]]
) -> dict[tuple[bytes, bytes], int]:
    """The floors of the messages with ``spent`` attempts on record (each message and
    its count, :attr:`dlqhandler.qmgr.snapshot.Snapshot.spent`) under ``ruleset``: the
    line of the rule `run` takes for it now (the Python rules engine's walk, which
    skips a RETRY whose attempts are spent), or past the last line when none is left
    (the implicit IGNORE). IBM's "Processing the rules table": "If all attempts fail,
    the DLQ handler searches for the next matching rule in the table"."""
    past = max((r.line for r in ruleset.rules), default=0) + 1
    floors: dict[tuple[bytes, bytes], int] = {}
    for got, attempts in spent:
        try:  # as browsed (no message handle): its MQDLH still to find, as `run` finds it
            message = got if got.dlh is not None else decode_dead_letter(got.md, got.body)
        except MalformedMessageError:
            continue  # unreadable: it stays, whatever its record (the classification's error)
        chosen = decide(ruleset, message, attempts).rule
        floors[(message.md.msg_id, message.md.correl_id)] = past if chosen is None else chosen.line
    return floors


def floors_view(spark: Any, floors: Floors) -> str | None:
    """``floors`` as a temporary view of the session (a small table: (MsgId, CorrelId)
    and the floor, columns ``_floor_msg_id``, ``_floor_correl_id``, ``_floor``) for
    :func:`classify_query` to join; its name, or None when there are none."""
    if not floors:
        return None
    rows = [(bytearray(m), bytearray(c), int(line)) for (m, c), line in sorted(floors.items())]
    schema = "_floor_msg_id binary, _floor_correl_id binary, _floor int"
    name = f"dlqhandler_floors_{uuid.uuid4().hex}"
    spark.createDataFrame(rows, schema).createOrReplaceTempView(name)
    return name


def classify(
    frame: Any,
    ruleset: RuleSet,
    *,
    floors: str | None = None,
    input_queue: str | None = None,
    local_qmgr: str = "",
    catch_all: str | None = None,
    max_hops: int = DEFAULT_MAX_HOPS,
) -> Any:
    """Add decision columns to a message DataFrame (one ``spark.sql`` query):
    :func:`classify_query` over ``frame``."""
    query = classify_query(
        frame.columns,
        ruleset,
        source=FRAME,
        input_queue=input_queue,
        local_qmgr=local_qmgr,
        catch_all=catch_all,
        max_hops=max_hops,
        floors=floors,
    )
    return sql_over(frame, query)


def _target_placeable(input_queue: str | None, local_qmgr: str, q: str, qm: str) -> str:
    """Whether a RETRY's or FWD's substituted target (``q``, ``qm``: SQL) can be put to
    (SQL, never null): valid MQ names, and neither the input queue (a loop) nor one of the
    handler's :data:`CONTROL_QUEUES` on the local queue manager."""
    valid_q = f"coalesce({q} RLIKE {sql_string(MQ_NAME_REGEX)}, false)"
    valid_qm = f"coalesce({qm} = '' OR {qm} RLIKE {sql_string(MQ_NAME_REGEX)}, false)"
    refused = [*CONTROL_QUEUES, *([input_queue] if input_queue else [])]
    loop = (
        f"coalesce({q} IN ({', '.join(sql_string(r) for r in refused)})"
        f" AND {qm} IN ('', {sql_string(local_qmgr)}), false)"
    )
    return f"({valid_q} AND {valid_qm} AND NOT {loop})"


def _depth(columns: Sequence[str], header: bool) -> str:
    """How many MQDLHs the message a put takes carries (SQL, never null; 0 for a frame
    without the source's ``dlh_count``), with its MQDLH (``header``: HEADER(YES), the
    catch-all) or without (RETRY, HEADER(NO)).

    `run` counts them on the message it would put
    (:func:`dlqhandler.rules.outgoing.header_depth`, from the MQMD's Format): without the
    first MQDLH, the rest of the chain; with it, the whole chain where the data starts
    with it as a get returns it (MQMD Format MQDEAD, or MQHRF2 with the MQDLH behind an
    MQRFH2 of properties), else none."""
    if "dlh_count" not in columns:
        return "0"
    if not header:
        return "greatest(coalesce(dlh_count, 0) - 1, 0)"
    led = "coalesce(md_format IN ('MQDEAD', 'MQHRF2'), false)" if "md_format" in columns else "true"
    return f"CASE WHEN {led} THEN coalesce(dlh_count, 0) ELSE 0 END"


def hop_limited(columns: Sequence[str], max_hops: int) -> str:
    """Whether a message carries ``max_hops`` MQDLHs or more as it is (SQL over a frame
    with ``columns``, never null): no put with its MQDLH may take it, a HEADER(YES) FWD's
    nor the catch-all's (`run` refuses it: a forward loop), so it stays when no rule
    places it."""
    return f"({_depth(columns, True)} >= {int(max_hops)})"


def _within_hops(rule: Rule, columns: Sequence[str], max_hops: int) -> str:
    """Whether the message a RETRY or FWD ``rule`` puts carries fewer than ``max_hops``
    MQDLHs (SQL, never null): `run` refuses the put of one that carries more, a forward
    loop (:func:`dlqhandler.rules.outgoing.plan_outgoing`)."""
    header = rule.action.kind == "FWD" and rule.action.header
    return f"({_depth(columns, header)} < {int(max_hops)})"


def classify_query(
    columns: Sequence[str],
    ruleset: RuleSet,
    *,
    source: str,
    input_queue: str | None = None,
    local_qmgr: str = "",
    catch_all: str | None = None,
    max_hops: int = DEFAULT_MAX_HOPS,
    floors: str | None = None,
) -> str:
    """The classification as SQL text: ``source`` (a table, :data:`FRAME`, or a query
    in parentheses) with its ``columns`` and the decision columns added.

    Added: ``matched_lines`` (array of rule lines, table order), ``chosen_line`` (the
    first of them that can be carried out; null: implicit IGNORE), ``action``,
    ``target_q``/``target_qm`` (substituted; qmgr blank = local), ``header``,
    ``target_valid``, and the final placement
    ``disposition`` (RETRY, FWD, DISCARD, CATCHALL or REMAIN), ``out_q``,
    ``out_qm``, ``strip_header``. A row with an ``error`` (a malformed record)
    always stays: REMAIN, no target, even with a catch-all; so does one no rule places
    that carries ``max_hops`` MQDLHs or more (:func:`hop_limited`). ``floors`` (a view
    of :func:`floors_view`, joined on MsgId and CorrelId, broadcast): a message with
    failed attempts on record is given no rule before its floor, as `run` gives it none.
    """
    rules = ruleset.rules
    kept = ", ".join(f"`{c}`" for c in columns)
    matches = [f"{rule_condition(r)} AS _m{i}" for i, r in enumerate(rules)]
    targets = [_target_columns(r) for r in rules]

    # A rule is chosen when it matches and, a RETRY or FWD, its target can be put to: one
    # whose target cannot (not a valid name, a loop) fails every attempt, and `run`, as
    # IBM's handler, then "searches for the next matching rule in the table".
    # So is one whose message would carry ``max_hops`` MQDLHs or more (a forward loop).
    def allowed(rule: Rule) -> str:
        return "" if floors is None else f" AND {int(rule.line)} >= _floor"

    choosable = [
        f"_m{i} AND {_target_placeable(input_queue, local_qmgr, *targets[i])}"
        f" AND {_within_hops(r, columns, max_hops)}{allowed(r)} AS _c{i}"
        if r.action.kind in ("RETRY", "FWD")
        else f"_m{i}{allowed(r)} AS _c{i}"
        for i, r in enumerate(rules)
    ]

    def first(values: list[str], default: str) -> str:
        if not rules:
            return default
        whens = " ".join(f"WHEN _c{i} THEN {v}" for i, v in enumerate(values))
        return f"CASE {whens} ELSE {default} END"

    # array_except drops the nulls in generated code (filter's lambda is interpreted).
    matched = (
        "array_except(array("
        + ", ".join(f"CASE WHEN _m{i} THEN {r.line} END" for i, r in enumerate(rules))
        + "), array(CAST(NULL AS INT)))"
        if rules
        else "CAST(array() AS array<int>)"
    )
    decisions = {
        "matched_lines": matched,
        "chosen_line": first([str(r.line) for r in rules], "CAST(NULL AS INT)"),
        "action": first([sql_string(r.action.kind) for r in rules], "'IGNORE'"),
        "target_q": first([t[0] for t in targets], _NULL_STRING),
        "target_qm": first([t[1] for t in targets], _NULL_STRING),
        "header": first(["true" if r.action.header else "false" for r in rules], "true"),
    }
    puts = "action IN ('RETRY', 'FWD')"
    # A RETRY or FWD is chosen only where its target can be put to (_c<i>): valid, always.
    valid = f"CASE WHEN {puts} THEN true END"
    placed = "action IN ('RETRY', 'FWD', 'DISCARD')"
    leftover = sql_string(Disposition.CATCHALL.value if catch_all else Disposition.REMAIN.value)
    malformed = "false"
    if "error" in columns:  # a malformed record stays, whatever the rules say
        malformed = "error IS NOT NULL"
        placed = f"(NOT {malformed} AND {placed})"
    # so does one the catch-all cannot take: with its MQDLHs it is a forward loop
    stays = f"({malformed} OR {hop_limited(columns, max_hops)})"
    leftover = f"CASE WHEN {stays} THEN {sql_string(Disposition.REMAIN.value)} ELSE {leftover} END"
    catch = sql_string(catch_all) if catch_all is not None else _NULL_STRING
    put_placed = f"({placed} AND {puts})"
    unplaced = f"(NOT {placed} AND NOT {stays})"
    placement = {
        "disposition": f"CASE WHEN {placed} THEN action ELSE {leftover} END",
        "out_q": f"CASE WHEN {put_placed} THEN target_q WHEN {unplaced} THEN {catch} END",
        "out_qm": f"CASE WHEN {put_placed} THEN CASE WHEN target_qm = {sql_string(local_qmgr)}"
        f" THEN '' ELSE target_qm END"
        f" WHEN {unplaced} AND {'true' if catch_all is not None else 'false'} THEN '' END",
        "strip_header": f"{placed} AND (action = 'RETRY' OR (action = 'FWD' AND NOT header))",
    }
    decided = ", ".join(f"{expr} AS {name}" for name, expr in decisions.items())
    placed_sql = ", ".join(f"{expr} AS {name}" for name, expr in placement.items())
    inner = ", ".join([kept, *matches])
    if floors is not None:  # the few messages with a record: a broadcast join, no UDF
        inner = f"/*+ BROADCAST(_f) */ {inner}, coalesce(_f._floor, 0) AS _floor"
        source = (
            f"{source} AS _s LEFT JOIN `{floors}` AS _f"
            " ON _s.md_msg_id = _f._floor_msg_id AND _s.md_correl_id = _f._floor_correl_id"
        )
    chosen = ", ".join(["*", *choosable])
    return (
        f"SELECT *, {placed_sql} FROM ("
        f"SELECT *, {valid} AS target_valid FROM ("
        f"SELECT {kept}, {decided} FROM ("
        f"SELECT {chosen} FROM (SELECT {inner} FROM {source}))))"
    )
