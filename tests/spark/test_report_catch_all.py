"""The report says what the drain would send to its catch-all, not that it stays: the
table's last unconditional FWD (as the drain takes it), or --catch-all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "backlog-small.dmp"


def _report_and_drain(tmp_path: Path, rules: Path, *extra: str) -> tuple[dict[str, Any], Any]:
    report, drain = tmp_path / "report", tmp_path / "drain"
    common = ["--input", str(SAMPLE), "--rules", str(rules), *extra]
    assert main(["report", *common, "--output", str(report)]) == 0
    assert main(["drain", *common, "--output", str(drain)]) == 0
    rules_section = json.loads((report / "report.json").read_text())["rules"]
    return rules_section, json.loads((drain / "manifest.json").read_text())["totals"]


def test_the_tables_catch_all_takes_what_the_report_said_would_stay(
    spark: Any, tmp_path: Path
) -> None:
    """rules/demo.rul ends with an unconditional FWD to DLQ.CATCHALL, which the drain takes
    as its catch-all (messages without an MQDLH included): the report counts them there,
    as many as the drain sends, and leaves on the DLQ what the drain leaves."""
    rules, totals = _report_and_drain(tmp_path, ROOT / "rules" / "demo.rul")
    assert rules["catch_all"]["queue"] == "DLQ.CATCHALL"
    assert rules["catch_all"]["count"] == totals["catch_all"] > 0
    assert rules["catch_all"]["by_cause"]["no_dlh"] == totals["no_dlh"] > 0
    assert rules["left_on_dlq"] == totals["remaining"] == 0


def test_catch_all_option_is_the_drains(spark: Any, tmp_path: Path) -> None:
    """A table that leaves messages (an IGNORE rule, no rule for some): with --catch-all
    the report counts what the drain with the same option sends there; without it, what
    stays is what the drain leaves in remaining.dmp."""
    table = tmp_path / "t.rul"
    table.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\nREASON(2035) ACTION(IGNORE)\n")
    rules, totals = _report_and_drain(tmp_path / "with", table, "--catch-all", "HOLD.ALL")
    assert rules["catch_all"]["queue"] == "HOLD.ALL"
    assert rules["catch_all"]["count"] == totals["catch_all"] > 0
    assert rules["catch_all"]["by_cause"]["ignore_rule"] > 0
    assert rules["left_on_dlq"] == totals["remaining"] == 0
    rules, totals = _report_and_drain(tmp_path / "without", table)
    assert rules["catch_all"] is None
    assert rules["left_on_dlq"] + rules["unplaceable"] == totals["remaining"] > 0


@pytest.mark.parametrize("given", [True, False])
def test_a_catch_all_that_is_the_input_dlq_is_refused_by_report_as_by_drain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: bool
) -> None:
    """A catch-all that is the input dead-letter queue (--catch-all, or the table's last
    unconditional FWD) would load everything it holds back onto the DLQ: the drain refuses
    to run (exit 2), and the report, which predicts what the drain does, refuses the same,
    with the same words, before Spark starts, rather than predicting messages sent to the
    catch-all that no drain sends. The table's INPUTQ names that DLQ (IBM's "DLQ control
    data", https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data:
    INPUTQ is "The name of the DLQ you want to process")."""
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    rules = tmp_path / "r.rul"
    table = f"INPUTQ({dlq}) INPUTQM(QM1)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"
    rules.write_text(table + ("" if given else f"ACTION(FWD) FWDQ({dlq}) HEADER(YES)\n"))
    extra = ["--catch-all", dlq] if given else []
    common = ["--input", str(SAMPLE), "--rules", str(rules), *extra]
    assert main(["drain", *common, "--output", str(tmp_path / "drain")]) == 2
    refused = capsys.readouterr().err.strip().splitlines()[-1].split(": ", 1)[1]
    assert main(["report", *common, "--output", str(tmp_path / "report")]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said == f"dlqhandler report: {refused}"
    assert "is the input dead-letter queue (a loop)" in said
    assert not (tmp_path / "report").exists()
    assert not (tmp_path / "drain").exists()
