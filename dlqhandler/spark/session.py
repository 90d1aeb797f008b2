"""Building the SparkSession for the drain (local[*] by default).

Under ``spark-submit`` the session already configured by the launcher is used
as is; ``dlqhandler drain`` builds one with ``--master`` (default
``local[*]``). Python workers run this interpreter, so they see the same
installed dlqhandler and pyarrow.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["get_session"]


def get_session(master: str | None = None, *, app_name: str = "dlqhandler-drain",
                partitions: int | None = None, extra: dict[str, str] | None = None) -> Any:
    """Return the active SparkSession or build one."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    builder = (SparkSession.builder.appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.python.worker.reuse", "true"))
    # Under spark-submit the launcher started the JVM (PYSPARK_GATEWAY_PORT is set)
    # and chose the master; only a direct run picks local[*].
    if master is not None:
        builder = builder.master(master)
    elif "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master("local[*]")
    if partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
    for key, value in (extra or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
