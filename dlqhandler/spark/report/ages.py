"""The age of a message on the DLQ as Spark SQL expressions (no Python worker).

The rule is :mod:`dlqhandler.mq.ages`'s (``run --older-than`` applies it in Python);
this is its SQL form over the decoded-message contract of
:mod:`dlqhandler.spark.messages` (``has_dlh``, ``dlh_put_date``, ``dlh_put_time``,
``md_put_date``, ``md_put_time``), step for step, so that the two give the same
double for the same fields and the same selection for the same reference time
(a differential test in tests/spark/test_report_age.py holds them equal):

* :func:`dead_lettered_epoch`: :func:`~dlqhandler.mq.ages.dead_lettered_at` as a
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

from dlqhandler.mq.ages import AgeWindow
from dlqhandler.spark.sql import sql_string

__all__ = ["AGE_STATUSES", "age_status", "dead_lettered_epoch", "double", "put_epoch"]

AGE_STATUSES = ("selected", "too_new", "too_old", "no_put_time")
# \z, not $: Java's $ also matches before a final line end
_DATE = sql_string(r"^[0-9]{8}\z")
_TIME = sql_string(r"^[0-9]{6}([0-9]{2})?\z")


def double(value: float) -> str:
    """A double as a SQL literal (``repr`` reads back as the same double)."""
    return f"CAST({float(value)!r} AS DOUBLE)"


def put_epoch(date: str, when: str) -> str:
    """:func:`dlqhandler.mq.ages.put_at` over two string expressions: a double, or null."""
    d = f"trim(coalesce({date}, ''))"  # Spark's trim removes blanks (U+0020) only
    t = f"trim(coalesce({when}, ''))"
    well_formed = f"({d} RLIKE {_DATE} AND {t} RLIKE {_TIME})"

    def part(text: str, start: int, length: int) -> str:
        return f"try_cast(substring({text}, {start}, {length}) AS BIGINT)"

    year, hour, minute, second = part(d, 1, 4), part(t, 1, 2), part(t, 3, 2), part(t, 5, 2)
    # midnight of the date, as a local date-time: null for a month or a day the calendar
    # has not. Without a time zone (the times are UTC), so no zone is looked up per row.
    midnight = f"try_make_timestamp_ntz({year}, {part(d, 5, 2)}, {part(d, 7, 2)}, 0, 0, 0)"
    valid = (
        f"{well_formed} AND {year} >= 1 AND {hour} <= 23 AND {minute} <= 59"
        f" AND {second} <= 61 AND {midnight} IS NOT NULL"
    )
    days = f"CAST(unix_date(CAST({midnight} AS DATE)) AS BIGINT)"
    whole = f"({days} * 86400 + {hour} * 3600 + {minute} * 60 + {second})"
    hundredths = f"CASE WHEN length({t}) = 8 THEN {part(t, 7, 2)} / 100 ELSE {double(0)} END"
    return f"CASE WHEN {valid} THEN CAST({whole} AS DOUBLE) + {hundredths} END"


def dead_lettered_epoch() -> str:
    """The MQDLH's PutDate/PutTime, else (no MQDLH, or a blank PutDate in it) the MQMD's."""
    dlh_dated = "(has_dlh = true AND trim(coalesce(dlh_put_date, '')) != '')"
    return (
        f"CASE WHEN {dlh_dated} THEN {put_epoch('dlh_put_date', 'dlh_put_time')}"
        f" ELSE {put_epoch('md_put_date', 'md_put_time')} END"
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
