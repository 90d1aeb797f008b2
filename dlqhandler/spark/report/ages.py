"""The age of a message on the DLQ as Spark SQL expressions (no Python worker).

The rule is :mod:`dlqhandler.mq.ages`'s (``run --older-than`` applies it in Python);
this is its SQL form over the decoded-message contract of
:mod:`dlqhandler.spark.messages` (``has_dlh``, ``dlh_put_date``, ``dlh_put_time``,
``md_put_date``, ``md_put_time``), step for step, so that the two give the same
double for the same fields and the same selection for the same reference time
(a differential test in tests/spark/test_report_age.py holds them equal):

* :func:`dead_lettered_epoch_query`: :func:`~dlqhandler.mq.ages.dead_lettered_at` as a
  double (Unix seconds, hundredths included), null when there is no readable time
  (and on a record that did not decode);
* :func:`age_status`: where a message stands against an
  :class:`~dlqhandler.mq.ages.AgeWindow` at ``now``: ``selected``, ``too_new``
  (younger than ``older_than``), ``too_old`` (older than ``newer_than``) or
  ``no_put_time``.

Each returns SQL text (the report builds its columns as text: a few py4j round trips
instead of one per column function); every literal is
:func:`dlqhandler.spark.classify.sql_string`'s or a number.
"""

from __future__ import annotations

from collections.abc import Sequence

from dlqhandler.mq.ages import AgeWindow
from dlqhandler.spark.sql import sql_string

__all__ = [
    "AGE_STATUSES",
    "age_status",
    "dead_lettered_epoch_query",
    "double",
    "put_epoch_query",
]

AGE_STATUSES = ("selected", "too_new", "too_old", "no_put_time")
# \z, not $: Java's $ also matches before a final line end
_DATE = sql_string(r"^[0-9]{8}\z")
_TIME = sql_string(r"^[0-9]{6}([0-9]{2})?\z")


def double(value: float) -> str:
    """A double as a SQL literal (``repr`` reads back as the same double)."""
    return f"CAST({float(value)!r} AS DOUBLE)"


def put_epoch_query(source: str, columns: Sequence[str], date: str, when: str) -> str:
    """SQL text over ``source`` (a query or a table with ``columns``): those columns and
    ``put_epoch``, :func:`dlqhandler.mq.ages.put_at` over the string expressions
    ``date`` and ``when`` (of ``source``'s columns): a double, or null.

    In layers: each part of the date and the time is computed once, then used by the
    test of the date and by the sum (Spark does not merge a layer into the next when
    that would compute a costly expression twice; as one expression, each was computed
    two or three times a row)."""
    carried = ", ".join(f"`{c}`" for c in columns)
    d, t = "_pe_d", "_pe_t"
    # Spark's trim removes blanks (U+0020) only
    texts = f"trim(coalesce({date}, '')) AS {d}, trim(coalesce({when}, '')) AS {t}"

    def part(text: str, start: int, length: int) -> str:
        return f"try_cast(substring({text}, {start}, {length}) AS BIGINT)"

    parts = {
        "_pe_y": part(d, 1, 4),
        "_pe_mo": part(d, 5, 2),
        "_pe_dy": part(d, 7, 2),
        "_pe_h": part(t, 1, 2),
        "_pe_mi": part(t, 3, 2),
        "_pe_s": part(t, 5, 2),
        "_pe_hs": f"CASE WHEN length({t}) = 8 THEN {part(t, 7, 2)} / 100 ELSE {double(0)} END",
    }
    well_formed = (
        f"{d} RLIKE {_DATE} AND {t} RLIKE {_TIME} AND _pe_y >= 1 AND _pe_h <= 23"
        " AND _pe_mi <= 59 AND _pe_s <= 61"
    )
    # midnight of the date, as a local date-time: null for a month or a day the calendar
    # has not. Without a time zone (the times are UTC), so no zone is looked up per row.
    midnight = (
        f"CASE WHEN {well_formed} THEN try_make_timestamp_ntz(_pe_y, _pe_mo, _pe_dy, 0, 0, 0) END"
    )
    days = "CAST(unix_date(CAST(_pe_midnight AS DATE)) AS BIGINT)"
    whole = f"({days} * 86400 + _pe_h * 3600 + _pe_mi * 60 + _pe_s)"
    epoch = f"CASE WHEN _pe_midnight IS NOT NULL THEN CAST({whole} AS DOUBLE) + _pe_hs END"
    split = ", ".join(f"{e} AS {n}" for n, e in parts.items())
    query = f"SELECT {carried}, {texts} FROM {source}"
    query = f"SELECT {carried}, {d}, {t}, {split} FROM ({query})"
    kept = "_pe_h, _pe_mi, _pe_s, _pe_hs"
    query = f"SELECT {carried}, {kept}, {midnight} AS _pe_midnight FROM ({query})"
    return f"SELECT {carried}, {epoch} AS put_epoch FROM ({query})"


def dead_lettered_epoch_query(source: str, columns: Sequence[str]) -> str:
    """:func:`put_epoch_query` of :func:`~dlqhandler.mq.ages.dead_lettered_at`: the
    MQDLH's PutDate/PutTime, else (no MQDLH, or a blank PutDate in it) the MQMD's
    (``source`` has ``has_dlh``, ``dlh_put_date``, ``dlh_put_time``, ``md_put_date``
    and ``md_put_time``)."""
    dated = "(has_dlh = true AND trim(coalesce(dlh_put_date, '')) != '')"
    return put_epoch_query(
        source,
        columns,
        f"CASE WHEN {dated} THEN dlh_put_date ELSE md_put_date END",
        f"CASE WHEN {dated} THEN dlh_put_time ELSE md_put_time END",
    )


def age_status(window: AgeWindow, now: float, epoch: str) -> str:
    """Where a message dead-lettered at ``epoch`` (a SQL expression) stands in ``window``
    at ``now`` (Unix seconds): :meth:`AgeWindow.admits`' comparisons, in its order."""
    age = f"({double(now)} - {epoch})"
    status = f"CASE WHEN {epoch} IS NULL THEN 'no_put_time'"
    if window.older_than is not None:
        status += f" WHEN {age} < {double(window.older_than)} THEN 'too_new'"
    if window.newer_than is not None:
        status += f" WHEN {age} > {double(window.newer_than)} THEN 'too_old'"
    return status + " ELSE 'selected' END"
