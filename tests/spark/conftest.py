"""One local SparkSession for the whole Spark test session (chispa's habit)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local[2] SparkSession with small shuffle partitions, stopped at the end."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime: Spark tests need Java 17")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from dlqhandler.spark.session import get_session

    session = get_session(
        "local[2]",
        partitions=4,
        extra={"spark.driver.memory": "2g", "spark.sql.adaptive.enabled": "false"},
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
