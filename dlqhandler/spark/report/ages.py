"""The age of a message on the DLQ as Spark column expressions (no Python worker).

The rule is :mod:`dlqhandler.mq.ages`'s (``run --older-than`` applies it in Python);
this is its column form over the decoded-message contract of
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
"""

from __future__ import annotations

from typing import Any

from dlqhandler.mq.ages import AgeWindow

__all__ = ["AGE_STATUSES", "age_status", "dead_lettered_epoch", "put_epoch"]

AGE_STATUSES = ("selected", "too_new", "too_old", "no_put_time")


def put_epoch(date: Any, when: Any) -> Any:
    """:func:`dlqhandler.mq.ages.put_at` over two string columns: a double, or null."""
    from pyspark.sql import functions as F

    d = F.trim(F.coalesce(date, F.lit("")))  # Spark's trim removes blanks (U+0020) only
    t = F.trim(F.coalesce(when, F.lit("")))
    # \z, not $: Java's $ also matches before a final line end
    well_formed = d.rlike(r"^[0-9]{8}\z") & t.rlike(r"^[0-9]{6}([0-9]{2})?\z")

    def part(text: Any, start: int, length: int) -> Any:
        return F.substring(text, start, length).try_cast("long")

    year, hour, minute, second = part(d, 1, 4), part(t, 1, 2), part(t, 3, 2), part(t, 5, 2)
    # midnight of the date in UTC; null for a month or a day the calendar has not
    midnight = F.try_make_timestamp(
        year, part(d, 5, 2), part(d, 7, 2), F.lit(0), F.lit(0), F.lit(0), F.lit("UTC")
    )
    valid = (
        well_formed
        & (year >= 1)
        & (hour <= 23)
        & (minute <= 59)
        & (second <= 61)
        & midnight.isNotNull()
    )
    whole = F.unix_seconds(midnight) + hour * F.lit(3600) + minute * F.lit(60) + second
    hundredths = F.when(F.length(t) == 8, part(t, 7, 2) / F.lit(100)).otherwise(F.lit(0.0))
    return F.when(valid, whole.cast("double") + hundredths)


def dead_lettered_epoch() -> Any:
    """The MQDLH's PutDate/PutTime, else (no MQDLH, or a blank PutDate in it) the MQMD's."""
    from pyspark.sql import functions as F

    dlh_dated = (F.col("has_dlh") == F.lit(True)) & (
        F.trim(F.coalesce(F.col("dlh_put_date"), F.lit(""))) != F.lit("")
    )
    return F.when(dlh_dated, put_epoch(F.col("dlh_put_date"), F.col("dlh_put_time"))).otherwise(
        put_epoch(F.col("md_put_date"), F.col("md_put_time"))
    )


def age_status(window: AgeWindow, now: float, epoch: Any) -> Any:
    """Where a message dead-lettered at ``epoch`` stands in ``window`` at ``now``
    (Unix seconds): :meth:`AgeWindow.admits`' comparisons, in its order."""
    from pyspark.sql import functions as F

    age = F.lit(float(now)) - epoch
    status = F.when(epoch.isNull(), F.lit("no_put_time"))
    if window.older_than is not None:
        status = status.when(age < F.lit(float(window.older_than)), F.lit("too_new"))
    if window.newer_than is not None:
        status = status.when(age > F.lit(float(window.newer_than)), F.lit("too_old"))
    return status.otherwise(F.lit("selected"))
