"""The backlog report's Spark side: read the backlog, count it, and (with a table) classify
it; :mod:`dlqhandler.report` renders what :func:`build_report` returns (this package does
not import it). Its imports follow :mod:`dlqhandler.spark`'s; it never imports
:mod:`dlqhandler.spark.drain`."""

from dlqhandler.spark.report.build import READ_COLUMNS, build_report, read_dumps, report_query
from dlqhandler.spark.report.options import ReportOptions

__all__ = ["READ_COLUMNS", "ReportOptions", "build_report", "read_dumps", "report_query"]
