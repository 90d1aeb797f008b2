"""Drain and report of dump files: the table's INPUTQ and INPUTQM name the dead-letter
queue the dumps came from, so a RETRY or FWD that would put a message back there is a
loop (as for ``dlqhandler run``), never an output file that a load puts back on the DLQ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
TABLE = (
    f"INPUTQ({DLQ}) INPUTQM(QM1)\n"
    "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"
    f"REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ({DLQ})\n"
)


def _dump(tmp_path: Path) -> Path:
    md = MQMD(format="MQSTR")
    messages = [
        # the first dead-lettered on its way to the DLQ itself: a RETRY puts it back there
        Message.dead_letter(
            md.replace(msg_id=bytes([n]) * 24),
            body,
            reason=reason,
            dest_q_name=destq,
            dest_q_mgr_name="QM1",
        )
        for n, body, reason, destq in (
            (1, b"retry to the DLQ", 2053, DLQ),
            (2, b"forwarded to the DLQ", 2035, "APP.X"),
            (3, b"a good retry", 2053, "APP.Y"),
        )
    ]
    path = tmp_path / "dlq.dmp"
    write_dump(path, messages)
    return path


def test_drain_of_a_dump_never_writes_a_message_back_to_the_tables_inputq(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A drain of dump files takes them to come from the table's INPUTQ on INPUTQM (IBM's
    DLQ control data, https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data:
    INPUTQ is "The name of the DLQ you want to process", INPUTQM "The name of the queue
    manager that owns the DLQ named on the INPUTQ keyword"). A RETRY to a DestQName that is
    that DLQ on that queue manager, and a FWDQ naming it, stay in remaining.dmp and are
    counted as unplaceable (the summary says why they stayed); no output file targets the
    DLQ, and a retry to INPUTQM's queue is a local put (q-APP.Y@LOCAL.dmp)."""
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "--input", str(_dump(tmp_path)), "--output", str(out)]
    assert cli_main(argv) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(o["queue"], o["qmgr"], o["messages"]) for o in manifest["outputs"]] == [
        ("APP.Y", "", 1)
    ]
    assert [m.body for m in read_dump(out / "q-APP.Y@LOCAL.dmp")] == [b"a good retry"]
    assert [m.md.msg_id for m in read_dump(out / "remaining.dmp")] == [
        b"\x01" * 24,
        b"\x02" * 24,
    ]
    totals = manifest["totals"]
    assert (totals["retried"], totals["forwarded"], totals["remaining"]) == (1, 0, 2)
    assert (totals["unplaceable"], totals["unmatched"], totals["no_dlh"]) == (2, 0, 0)
    assert "unplaceable            2" in capsys.readouterr().out


def test_report_of_a_dump_counts_a_target_that_is_the_tables_inputq_as_unplaceable(
    spark: Any, tmp_path: Path
) -> None:
    """The report reads dump files as the drain does: a RETRY or FWD that would put a
    message back on the table's INPUTQ (on INPUTQM) is unplaceable and left on the DLQ,
    not a move (IBM's DLQ control data, https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=
    table-dlq-control-data: INPUTQ is "The name of the DLQ you want to process")."""
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)
    out = tmp_path / "report"
    argv = ["report", "--rules", str(rules), "--input", str(_dump(tmp_path)), "--output", str(out)]
    assert cli_main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["rules"]["unplaceable"] == 2
    assert report["total"] == 3
