"""Rendering of the backlog report: ``report.html`` and the stdout summary.

Pure Python over the ``report.json`` object that :mod:`dlqhandler.spark.report.build`
computes; nothing here reads messages or imports pyspark. It imports only
:mod:`dlqhandler.outcomes` and :mod:`dlqhandler.errors`.
"""

from dlqhandler.report.page import render_html
from dlqhandler.report.summary import summary_lines

__all__ = ["render_html", "summary_lines"]
