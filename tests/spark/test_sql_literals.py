"""The classification's SQL text holds every value exactly (dlqhandler.spark.classify.
sql_string): a rules table's names, patterns and regexes reach Spark as written, whatever
characters they hold and whatever the session's string-escaping setting."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dlqhandler.spark.sql import sql_string

pytestmark = pytest.mark.spark

_TRICKY = ["", "PAY%_", "a'b", "back\\slash", "r'x'", "{1,48}", "tab\there", "nl\n", "é€𝄞", "\x00"]


@pytest.mark.parametrize("escaped", ["false", "true"])
def test_every_string_reads_back_as_written(spark: Any, escaped: str) -> None:
    """A literal of sql_string's is the string itself, with the parser's escaped string
    literals off (Spark's default) and on (a session given to the drain may set it)."""
    spark.conf.set("spark.sql.parser.escapedStringLiterals", escaped)
    try:
        for text in _TRICKY:
            assert spark.sql(f"SELECT {sql_string(text)} AS v").first()["v"] == text

        @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(st.text(max_size=20))
        def check(text: str) -> None:
            assert spark.sql(f"SELECT {sql_string(text)} AS v").first()["v"] == text

        check()
    finally:
        spark.conf.unset("spark.sql.parser.escapedStringLiterals")
