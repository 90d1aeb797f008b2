"""The options ``drain`` and ``report`` share: the Spark ones, the names the MQ naming rule
checks, and the bounds Java puts on numbers. One home, so that no command module imports
another."""

from __future__ import annotations

import argparse

from dlqhandler.cli._types import bounded_int

__all__ = [
    "JAVA_INT_MAX",
    "QMGR_OPTIONS",
    "QUEUE_OPTIONS",
    "SPLIT_MB_MAX",
    "add_spark_options",
]

JAVA_INT_MAX = 2**31 - 1  # what Spark's partition counts are
SPLIT_MB_MAX = (2**63 - 1) >> 20  # a split in bytes is a Java long
# The options of drain and report that name queues and queue managers (checked by the
# one MQ-name rule before anything starts).
QUEUE_OPTIONS = {"queue": "--queue", "catch_all": "--catch-all", "status_queue": "--status-queue"}
QMGR_OPTIONS = {"qmgr": "-m"}


def add_spark_options(p: argparse.ArgumentParser) -> None:
    """--master, --split-mb and -v/--verbose."""
    p.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    p.add_argument(
        "--split-mb",
        type=bounded_int(1, SPLIT_MB_MAX),
        default=128,
        metavar="MB",
        help="largest input split in MiB (default 128, Spark's own; Spark makes "
        "them smaller so that every core has a share of a small input, and a larger "
        "local input is cut into a multiple of the cores in splits)",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="Spark's own log lines on stderr (default: to a log file, named at the end)",
    )
