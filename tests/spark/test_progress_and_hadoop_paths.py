"""Progress reporting from Spark's status store, and the output rule through the
Hadoop FileSystem API (the route hdfs:/s3a: outputs take), on a real session."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import ConfigError
from dlqhandler.spark.files import OutputDir, check_output_dir_hadoop
from dlqhandler.spark.files import _hadoop_commit as hadoop_commit
from dlqhandler.spark.files import _hadoop_delete as hadoop_delete
from dlqhandler.spark.progress import Progress, step


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _job(spark: Any) -> None:
    step(spark, "count test rows")
    spark.range(0, 20000, numPartitions=4).selectExpr("id % 7 AS k").groupBy("k").count().collect()
    step(spark, "")


def test_json_event_per_stage_when_not_a_terminal(spark: Any) -> None:
    """Not a terminal: one JSON line per finished stage, named by the drain's step,
    with tasks and record counts; nothing else is written."""
    stream = io.StringIO()
    with Progress(spark, stream, interval=0.05):
        _job(spark)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert events
    assert {e["event"] for e in events} == {"drain_stage"}
    assert {e["step"] for e in events} == {"count test rows"}
    assert sum(e["tasks"] for e in events) >= 4
    assert max(e["records_read"] + e["records_written"] for e in events) > 0
    assert len({e["stage"] for e in events}) == len(events)


def test_status_line_on_a_terminal(spark: Any) -> None:
    """A terminal gets one line rewritten in place (carriage returns, no JSON), with
    the step, tasks done of all, and records; it is cleared at the end."""
    stream = _Tty()
    progress = Progress(spark, stream, interval=0.01)
    with progress:
        for _ in range(3):
            _job(spark)
            progress.poll()
    text = stream.getvalue()
    assert "{" not in text
    assert text.endswith("\r")  # a line was drawn, then cleared
    assert "drain: count test rows | tasks " in text


def test_output_rule_through_the_hadoop_filesystem(spark: Any, tmp_path: Path) -> None:
    """check_output_dir_hadoop refuses a file and a non-empty directory, creates the
    staging directory; the commit renames it into place and replaces a previous
    run whole; delete removes a staging directory."""
    uri = f"file://{tmp_path}/out"
    plan = OutputDir(uri, f"file://{tmp_path}/.out.dlqhandler-x.tmp", replaces=False)
    checked = check_output_dir_hadoop(spark, plan)
    assert (tmp_path / ".out.dlqhandler-x.tmp").is_dir()
    (tmp_path / ".out.dlqhandler-x.tmp" / "manifest.json").write_text("1")
    hadoop_commit(spark, checked)
    assert (tmp_path / "out" / "manifest.json").read_text() == "1"
    with pytest.raises(ConfigError, match="not empty"):
        check_output_dir_hadoop(spark, plan)
    again = check_output_dir_hadoop(spark, plan, overwrite=True)
    assert again.replaces
    (tmp_path / ".out.dlqhandler-x.tmp" / "q-NEW@LOCAL.dmp").write_text("2")
    hadoop_commit(spark, again)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["q-NEW@LOCAL.dmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="not a directory"):
        check_output_dir_hadoop(
            spark, OutputDir(f"file://{tmp_path}/f", f"file://{tmp_path}/.f.tmp", False)
        )
    hadoop_delete(spark, f"file://{tmp_path}/out")
    assert not (tmp_path / "out").exists()
    with pytest.raises(ConfigError, match="no Hadoop filesystem"):
        check_output_dir_hadoop(spark, OutputDir("nosuchfs://x/out", "nosuchfs://x/.o", False))
