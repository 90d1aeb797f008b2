"""The rules compiler's second back end: native Spark column expressions.

Every rule of the IR becomes one boolean Column (the AND of its predicates);
no Python runs per row. String predicates use the IR's own forms: ``exact`` is
an equality on the canonical value, ``prefix`` a LIKE on the blank-padded field
with ``%``, ``_`` and ``\\`` escaped (MQ names may contain ``%`` and ``_``),
``any`` is true, ``nonblank`` a length test, and ``generic`` the IR's regex,
full-matched with ``rlike`` on the padded field. The same IR drives the Python
matcher; ``tests/spark/test_differential.py`` demands identical decisions.

The decision for a message seen for the first time (no failed attempts) is
the first matching rule (RETRY counts are at least 1), or the implicit IGNORE.
"""

from __future__ import annotations

from typing import Any

from dlqhandler.outcomes import Disposition
from dlqhandler.rules import PATTERN_FIELDS, IntPredicate, Rule, RuleSet, StringPredicate

__all__ = [
    "MQ_NAME_REGEX",
    "catch_all_queue",
    "classify",
    "field_column",
    "rule_condition",
]

MQ_NAME_REGEX = r"^[A-Za-z0-9._/%]{1,48}$"


def field_column(keyword: str) -> str:
    """The DataFrame column holding a pattern keyword's field."""
    struct, attr, _kind, _length = PATTERN_FIELDS[keyword]
    return f"{struct}_{attr}"


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _string_condition(pred: StringPredicate) -> Any:
    from pyspark.sql import functions as F

    value = F.coalesce(F.col(field_column(pred.keyword)), F.lit(""))
    if pred.kind == "any":
        return F.lit(True)
    if pred.kind == "nonblank":
        return F.length(value) > 0
    if pred.kind == "exact":
        return value == F.lit(pred.pattern.rstrip(" "))
    padded = F.rpad(value, pred.length, " ")
    if pred.kind == "prefix":
        literal = pred.pattern.rstrip("*")
        return padded.like(_like_escape(literal) + "%")
    return padded.rlike("^(?:" + pred.regex + ")$")


def rule_condition(rule: Rule) -> Any:
    """The boolean Column that is true when ``rule``'s pattern matches a row."""
    from pyspark.sql import functions as F

    cond = F.col("has_dlh")
    for pred in rule.predicates:
        if isinstance(pred, IntPredicate):
            cond = cond & (F.col(field_column(pred.keyword)) == F.lit(pred.value))
        else:
            cond = cond & _string_condition(pred)
    return F.coalesce(cond, F.lit(False))


def _target_columns(rule: Rule) -> tuple[Any, Any]:
    from pyspark.sql import functions as F

    action = rule.action
    if action.kind == "RETRY":
        return F.col("dlh_dest_q_name"), F.col("dlh_dest_q_mgr_name")
    if action.kind != "FWD":
        return F.lit(None).cast("string"), F.lit(None).cast("string")
    q = {"&DESTQ": F.col("dlh_dest_q_name"), "&REPLYQ": F.col("md_reply_to_q")}.get(
        action.fwdq or "", F.lit(action.fwdq)
    )
    qm = {"&DESTQM": F.col("dlh_dest_q_mgr_name"), "&REPLYQM": F.col("md_reply_to_q_mgr")}.get(
        action.fwdqm or "", F.lit(action.fwdqm or "")
    )
    return q, F.coalesce(qm, F.lit(""))


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


def classify(
    frame: Any,
    ruleset: RuleSet,
    *,
    input_queue: str | None = None,
    local_qmgr: str = "",
    catch_all: str | None = None,
) -> Any:
    """Add decision columns to a message DataFrame.

    Added: ``matched_lines`` (array of rule lines, table order), ``chosen_line``
    (null: implicit IGNORE), ``action``, ``target_q``/``target_qm`` (substituted;
    qmgr blank = local), ``header``, ``target_valid``, and the final placement
    ``disposition`` (RETRY, FWD, DISCARD, CATCHALL or REMAIN), ``out_q``,
    ``out_qm``, ``strip_header``. A row with an ``error`` (a malformed record)
    always stays: REMAIN, no target, even with a catch-all.
    """
    from pyspark.sql import functions as F

    rules = ruleset.rules
    conds = [rule_condition(r) for r in rules]
    frame = frame.withColumns({f"_m{i}": c for i, c in enumerate(conds)})
    m = [F.col(f"_m{i}") for i in range(len(rules))]
    # array_except drops the nulls in generated code (filter's lambda is interpreted).
    matched = (
        F.array_except(
            F.array(*[F.when(mi, F.lit(r.line)) for mi, r in zip(m, rules, strict=True)]),
            F.array(F.lit(None).cast("int")),
        )
        if rules
        else F.array().cast("array<int>")
    )

    def first(values: list[Any], default: Any) -> Any:
        expr = None
        for mi, v in zip(m, values, strict=True):
            expr = F.when(mi, v) if expr is None else expr.when(mi, v)
        return default if expr is None else expr.otherwise(default)

    targets = [_target_columns(r) for r in rules]
    frame = frame.withColumns(
        {
            "matched_lines": matched,
            "chosen_line": first([F.lit(r.line) for r in rules], F.lit(None).cast("int")),
            "action": first([F.lit(r.action.kind) for r in rules], F.lit("IGNORE")),
            "target_q": first([t[0] for t in targets], F.lit(None).cast("string")),
            "target_qm": first([t[1] for t in targets], F.lit(None).cast("string")),
            "header": first([F.lit(r.action.header) for r in rules], F.lit(True)),
        }
    ).drop(*[f"_m{i}" for i in range(len(rules))])
    valid_q = F.coalesce(F.col("target_q").rlike(MQ_NAME_REGEX), F.lit(False))
    valid_qm = F.coalesce(
        (F.col("target_qm") == "") | F.col("target_qm").rlike(MQ_NAME_REGEX), F.lit(False)
    )
    loop = F.lit(False)
    if input_queue:
        loop = (F.col("target_q") == F.lit(input_queue)) & (F.col("target_qm").isin("", local_qmgr))
    puts = F.col("action").isin("RETRY", "FWD")
    frame = frame.withColumn(
        "target_valid",
        F.when(puts, valid_q & valid_qm & ~loop).otherwise(F.lit(None).cast("boolean")),
    )
    placed = (F.col("action") == "DISCARD") | (puts & F.col("target_valid"))
    leftover = F.lit(Disposition.CATCHALL.value if catch_all else Disposition.REMAIN.value)
    if "error" in frame.columns:  # a malformed record stays, whatever the rules say
        malformed = F.col("error").isNotNull()
        placed = ~malformed & placed
        leftover = F.when(malformed, F.lit(Disposition.REMAIN.value)).otherwise(leftover)
    else:
        malformed = F.lit(False)
    return frame.withColumns(
        {
            "disposition": F.when(placed, F.col("action")).otherwise(leftover),
            "out_q": F.when(placed & puts & F.col("target_valid"), F.col("target_q")).when(
                ~placed & ~malformed, F.lit(catch_all).cast("string")
            ),
            "out_qm": F.when(
                placed & puts & F.col("target_valid"),
                F.when(F.col("target_qm") == F.lit(local_qmgr), F.lit("")).otherwise(
                    F.col("target_qm")
                ),
            ).when(~placed & ~malformed & F.lit(catch_all is not None), F.lit("")),
            "strip_header": placed
            & ((F.col("action") == "RETRY") | ((F.col("action") == "FWD") & ~F.col("header"))),
        }
    )
