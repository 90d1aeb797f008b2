"""The report counts message properties (the ``dmpmqmsg`` data source's property
columns): messages with and without, by folder, and those whose MQDLH sits behind an
MQRFH2 in front of it, which count as dead letters, not as "no MQDLH"; against an
independent count with the Python decoders."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.spark.report.build import ReportOptions, build_report, read_dumps
from tests.spark.props_dumps import damaged_in_front, property_columns, valid_in_front

pytestmark = pytest.mark.spark

AS_OF = datetime(2024, 11, 28, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The mixed backlog with MQRFH2s in front of most MQDLHs, and damaged ones."""
    root = tmp_path_factory.mktemp("report-props")
    front = root / "front.dmp"
    write_dump(front, valid_in_front(300, seed=31))
    damaged = root / "damaged.dmp"
    write_dump(damaged, damaged_in_front(seed=5))
    return [front, damaged]


def _independent(paths: list[Path]) -> dict[str, Any]:
    no_dlh = with_ = without = in_front = 0
    folders: Counter[str] = Counter()
    for path in paths:
        for m in read_dump(path):
            try:
                decode_dead_letter(m.md, m.body)
            except MalformedMessageError:
                no_dlh += 1
                continue
            cols = property_columns(m)
            in_front += cols["rfh2_in_front"] > 0
            if cols["property_folders"]:
                with_ += 1
                folders.update(cols["property_folders"])
            else:
                without += 1
    by_folder = sorted(
        ({"folder": k, "count": v} for k, v in folders.items()),
        key=lambda d: (-d["count"], d["folder"]),
    )
    return {
        "no_dlh": no_dlh,
        "properties": {
            "with": with_,
            "without": without,
            "by_folder": by_folder,
            "rfh2_in_front": in_front,
        },
    }


def test_report_counts_properties_as_the_python_decoders(spark: Any, dumps: list[Path]) -> None:
    """no_dlh, and the properties section (with, without, by folder, MQDLH behind an
    MQRFH2), equal an independent count over read_dump and decode_dead_letter: a message
    with its MQRFH2 in front counts as a dead letter by its MQDLH's reason."""
    report = build_report(read_dumps(spark, [str(p) for p in dumps]), ReportOptions(as_of=AS_OF))
    want = _independent(dumps)
    assert report["no_dlh"] == want["no_dlh"]
    assert report["properties"] == want["properties"]
    assert report["properties"]["rfh2_in_front"] > 150
    assert {f["folder"] for f in report["properties"]["by_folder"]} >= {"usr", "jms", "mcd"}
    assert (
        sum(r["count"] for r in report["by_reason"])
        == report["total"] - want["no_dlh"] - (report["unreadable"]["count"])
    )


def test_cli_report_shows_properties(
    spark: Any, dumps: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dlqhandler report` writes the properties section to report.json and prints
    one line of it."""
    out = tmp_path / "out"
    args = ["report", "--input", *map(str, dumps), "--output", str(out)]
    assert cli_main([*args, "--as-of", "2024-11-28T12:00:00Z"]) == 0
    report = json.loads((out / "report.json").read_text())
    props = _independent(dumps)["properties"]
    assert report["properties"] == props
    printed = capsys.readouterr().out
    assert f"message properties: {props['with']:,} with (" in printed
    tail = f", {props['without']:,} without; {props['rfh2_in_front']:,} with an MQRFH2 in "
    assert tail + "front of the MQDLH" in printed
