"""One local SparkSession for the whole Spark test session (chispa's habit)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.required import require_java

pytestmark = pytest.mark.spark


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local[2] SparkSession with small shuffle partitions, stopped at the end."""
    require_java()  # skips without Java, fails when $DLQHANDLER_REQUIRE_JAVA is set
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
