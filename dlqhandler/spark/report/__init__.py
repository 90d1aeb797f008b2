"""The backlog report's Spark side: read the backlog, count it, and (with a table) classify
it; :mod:`dlqhandler.report` renders what :func:`build_report` returns."""

from dlqhandler.spark.report.build import build_report, read_dumps
from dlqhandler.spark.report.options import ReportOptions

__all__ = ["ReportOptions", "build_report", "read_dumps"]
