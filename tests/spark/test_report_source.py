"""``dlqhandler report`` on the ``dmpmqmsg`` data source (:func:`read_dumps`): the figures
Python's reader and a plain count give, in every data mode; a plan that reads header
columns only and runs no Python."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.errors import DumpFormatError
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import iter_message_offsets, read_dump, write_dump
from dlqhandler.mq import Message
from dlqhandler.rules import compile_rules
from dlqhandler.spark.report.build import (
    ReportOptions,
    build_report,
    read_dumps,
    report_rows,
)
from tests.spark.report_counts import expected_transitions, independent_counts, python_rules

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
AS_OF = datetime(2024, 11, 28, 12, 0, 0, tzinfo=UTC)
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A mixed backlog (every data mode), a CRLF copy, and a dump with bad hex in one
    message."""
    root = tmp_path_factory.mktemp("report-source")
    files = []
    for i, mode in enumerate(("hex", "A", "p", "t")):
        path = root / f"mixed-{mode}.dmp"
        write_dump(path, list(generate_backlog(300, seed=11 + i)), mode=mode)
        files.append(path)
    crlf = root / "crlf.dmp"
    crlf.write_bytes(files[0].read_bytes().replace(b"\n", b"\r\n"))
    data = files[0].read_bytes()
    at = data.index(b"\nX ", len(data) // 2) + 3
    bad = root / "bad-hex.dmp"
    bad.write_bytes(data[:at] + b"ZZ" + data[at + 2 :])
    return [*files, crlf, bad]


def _tables() -> ReportOptions:
    new = compile_rules(
        (ROOT / "rules" / "demo.rul").read_text(encoding="utf-8"), input_queue=DLQ
    ).ruleset
    old = compile_rules(
        (ROOT / "rules" / "default.rul").read_text(encoding="utf-8"), input_queue=DLQ
    ).ruleset
    return ReportOptions(
        as_of=AS_OF, ruleset=new, old_ruleset=old, input_queue=DLQ, local_qmgr="QM1"
    )


def _python_read(paths: list[Path]) -> tuple[list[Message], int]:
    """Every message of the files by Python's reader (``dlqhandler.formats``), one
    message's byte range at a time so that a damaged message counts as one unreadable
    and the others are still read: (messages, unreadable)."""
    messages: list[Message] = []
    unreadable = 0
    for path in paths:
        starts = list(iter_message_offsets(path))
        for start, end in zip(starts, [*starts[1:], None], strict=True):
            try:
                messages.extend(read_dump(path, start=start, end=end))
            except DumpFormatError:
                unreadable += 1
    return messages, unreadable


def test_report_on_the_source_matches_python_counts(spark: Any, inputs: list[Path]) -> None:
    """With two tables, the report built on the data source (header columns only,
    every data mode, CRLF, one message with bad hex) holds the figures a plain Python
    count of Python's reader's messages gives: total, unreadable, no MQDLH, reasons,
    destinations, applications, age buckets, arrivals, oldest and newest; per rule the
    matched and chosen counts, per action and left on the DLQ by the Python matcher;
    each transition's count and samples by the Python decisions per message."""
    options = _tables()
    assert options.ruleset is not None
    assert options.old_ruleset is not None
    got = build_report(read_dumps(spark, [str(p) for p in inputs], split_bytes=64 << 10), options)
    messages, unreadable = _python_read(inputs)
    want = independent_counts(messages, AS_OF)
    assert unreadable == 1
    assert len(messages) + unreadable == 6 * 300  # what was written, counted by Python
    assert (got["total"], got["no_dlh"], got["unreadable"]["count"]) == (
        len(messages) + unreadable,
        want["no_dlh"],
        unreadable,
    )
    assert want["no_dlh"] > 0
    assert {(r["reason"], r["name"]): r["count"] for r in got["by_reason"]} == want["by_reason"]
    assert {(r["queue"], r["qmgr"]): r["count"] for r in got["by_destination"]} == want[
        "by_destination"
    ]
    assert {r["name"]: r["count"] for r in got["by_application"]} == want["by_application"]
    assert {r["bucket"]: r["count"] for r in got["age"]} == want["age"]
    assert {r["hour"]: r["count"] for r in got["arrivals"]} == want["arrivals"]
    assert (got["oldest"], got["newest"]) == (want["oldest"], want["newest"])
    rules = python_rules(options.ruleset, messages)
    assert [(r["line"], r["matched"], r["chosen"]) for r in got["rules"]["by_rule"]] == rules[
        "by_rule"
    ]
    assert {a["action"]: a["count"] for a in got["rules"]["by_action"]} == rules["by_action"]
    assert got["rules"]["left_on_dlq"] == rules["left_on_dlq"]
    moves = expected_transitions(options.old_ruleset, options.ruleset, messages)
    transitions = {
        tuple(
            t[side][k]
            for side in ("old", "new")
            for k in ("action", "queue", "qmgr", "line", "group")
        ): t
        for t in got["compare"]["transitions"]
    }
    assert {k: t["count"] for k, t in transitions.items()} == {k: len(v) for k, v in moves.items()}
    assert got["compare"]["changed"] == sum(len(v) for v in moves.values()) > 0
    for key, t in transitions.items():
        assert set(t["samples"]) <= set(moves[key])


def test_report_does_not_depend_on_how_messages_are_split_or_combined(
    spark: Any, inputs: list[Path]
) -> None:
    """The report counts each combination of values in every task that reads one of its
    messages and sums them after the shuffle: read in splits of 32 KiB (the same
    combinations counted in many tasks) or in one split per file, the report is the
    same, its oldest and newest put times, its lists and each transition's sample
    MsgIds included. Nor do a transition's samples depend on how its messages fall
    into combinations: measured at the newest put time (the messages spread over the
    age buckets: other combinations), the transitions and their samples are the same."""
    options = _tables()
    names = [str(p) for p in inputs]
    small = build_report(read_dumps(spark, names, split_bytes=32 << 10), options)
    whole = build_report(read_dumps(spark, names), options)
    assert small == whole
    assert whole["total"] == 6 * 300
    assert all(t["samples"] for t in whole["compare"]["transitions"])
    assert whole["oldest"] < whole["newest"]
    newest = datetime.fromisoformat(whole["newest"])
    aged = build_report(read_dumps(spark, names), dataclasses.replace(options, as_of=newest))
    assert sum(a["count"] > 0 for a in aged["age"]) > sum(a["count"] > 0 for a in whole["age"])
    assert aged["compare"] == whole["compare"]


def test_plan_reads_header_columns_and_runs_no_python(spark: Any, inputs: list[Path]) -> None:
    """The report job's physical plan scans the dmpmqmsg source without its record or
    body columns (ReadSchema), takes the samples' MsgIds as the source's three longs (no
    binary MsgId to convert per message) and holds no Python UDF evaluation."""
    options = _tables()
    messages = read_dumps(spark, [str(p) for p in inputs])
    rows = report_rows(messages, options)
    spark.conf.set("spark.sql.maxMetadataStringLength", "100000")  # the whole ReadSchema
    try:
        plan = rows._jdf.queryExecution().executedPlan().toString()
    finally:
        spark.conf.unset("spark.sql.maxMetadataStringLength")
    scans = [line for line in plan.splitlines() if "FileScan dmpmqmsg" in line]
    assert scans, plan
    for scan in scans:
        schema = scan[scan.index("ReadSchema: struct<") + 19 :]
        read = set(re.findall(r"(?:^|,)(\w+):", schema))  # array<string>: a '>' inside
        assert {"dlh_reason", "dlh_put_date", "has_dlh", "malformed"} <= read
        assert {"msg_id_0", "msg_id_1", "msg_id_2"} <= read
        assert "md_msg_id" not in read
        assert "property_folders" in read
        assert not read & {"record", "body"}, schema
    assert "BatchEvalPython" not in plan
    assert "ArrowEvalPython" not in plan
    assert "conv(" not in plan


def test_cli_report_reads_the_data_source(spark: Any, tmp_path: Path, inputs: list[Path]) -> None:
    """`dlqhandler report --rules --compare` reads through the data source: every
    message counted once, the bad-hex one as unreadable, properties counted; a file
    found in a directory whose name holds glob characters is read as named."""
    args = [
        "report",
        "--input",
        *[str(p) for p in inputs],
        "--rules",
        str(ROOT / "rules" / "demo.rul"),
        "--compare",
        str(ROOT / "rules" / "default.rul"),
        "--as-of",
        "2024-11-28T12:00:00Z",
    ]
    assert cli_main([*args, "--output", str(tmp_path / "source")]) == 0
    source = json.loads((tmp_path / "source" / "report.json").read_text())
    assert source.pop("properties")["with"] > 0
    assert source["total"] == 6 * 300
    assert source["unreadable"]["count"] == 1
    odd = tmp_path / "in" / "backlog [1] *.dmp"  # a name, not a pattern
    odd.parent.mkdir()
    odd.write_bytes(inputs[0].read_bytes())
    assert cli_main(["report", "--input", str(odd.parent), "--output", str(tmp_path / "odd")]) == 0
    assert json.loads((tmp_path / "odd" / "report.json").read_text())["total"] == 300
