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


def _dump(tmp_path: Path, *, qmgr: str | None = None, queue: str | None = None) -> Path:
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
    path = tmp_path / f"dlq-{queue}.dmp"
    write_dump(path, messages, qmgr=qmgr, queue=queue)
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


# No INPUTQ, no INPUTQM: the dumps' headers name the DLQ.
BARE = TABLE.split("\n", 1)[1]
DMPMQMSG_PAGE = """IBM's dmpmqmsg (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/
    com.ibm.mq.ref.adm.doc/q117660_.html): "-m QueueManagerName: The name of the queue
    manager on which the queue, or queues, exist", "-i ... The name of the input queue";
    unloading a queue, it writes both after its header (``* Qmgr  = ``, ``* Queue = ``)."""


def test_without_inputq_a_drain_takes_the_dlq_from_the_dumps_header(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (
        """Without INPUTQ and INPUTQM, runmqdlq processes the queue manager's dead-letter
    queue; a dump unloaded from it says so in its header (``* Qmgr  = QM1``, ``* Queue =
    SYSTEM.DEAD.LETTER.QUEUE``). The drain takes that queue as its input queue, as ``run``
    on QM1 would: the RETRY and the FWD back onto it stay in remaining.dmp (unplaceable),
    never in an output file that a load puts back on the DLQ; the manifest and the
    printed summary name the input queue. """
        + DMPMQMSG_PAGE
    )
    rules = tmp_path / "r.rul"
    rules.write_text(BARE)
    out = tmp_path / "out"
    dump = _dump(tmp_path, qmgr="QM1", queue=DLQ)
    argv = ["drain", "--rules", str(rules), "--input", str(dump), "--output", str(out)]
    assert cli_main(argv) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["input_queue"] == {"queue": DLQ, "qmgr": "QM1"}
    assert [o["file"] for o in manifest["outputs"]] == ["q-APP.Y@LOCAL.dmp"]
    assert [m.md.msg_id for m in read_dump(out / "remaining.dmp")] == [
        b"\x01" * 24,
        b"\x02" * 24,
    ]
    assert manifest["totals"]["unplaceable"] == 2
    assert f"input queue: {DLQ}@QM1" in capsys.readouterr().out


def test_without_inputq_a_report_takes_the_dlq_from_the_dumps_header(
    spark: Any, tmp_path: Path
) -> None:
    (
        """The report of a dump reads its header's queue as the drain does: without INPUTQ,
    the two messages whose RETRY/FWD would go back onto the DLQ the dump was unloaded
    from are unplaceable, as the drain leaves them. """
        + DMPMQMSG_PAGE
    )
    rules = tmp_path / "r.rul"
    rules.write_text(BARE)
    out = tmp_path / "report"
    dump = _dump(tmp_path, qmgr="QM1", queue=DLQ)
    argv = ["report", "--rules", str(rules), "--input", str(dump), "--output", str(out)]
    assert cli_main(argv) == 0
    assert json.loads((out / "report.json").read_text())["rules"]["unplaceable"] == 2


def test_dumps_from_different_queues_leave_the_input_queue_unknown_and_say_so(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dumps whose headers name different queues give no one input queue: nothing is
    refused as a loop (as without any header), and stderr and the manifest's
    input_notes say why and how to name the DLQ (INPUTQ), so it is never silent. """ + (
        DMPMQMSG_PAGE
    )
    rules = tmp_path / "r.rul"
    rules.write_text(BARE)
    out = tmp_path / "out"
    one = _dump(tmp_path, qmgr="QM1", queue=DLQ)
    two = _dump(tmp_path, qmgr="QM2", queue="OTHER.DLQ")
    argv = ["drain", "--rules", str(rules), "--input", str(one), str(two)]
    assert cli_main([*argv, "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["input_queue"] is None
    assert manifest["totals"]["unplaceable"] == 0
    assert any("different queues" in n and "INPUTQ" in n for n in manifest["input_notes"])
    assert "different queues" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("table", "given"),
    [
        (TABLE, ["--catch-all", DLQ]),
        (BARE, ["--catch-all", DLQ]),
        (BARE + f"ACTION(FWD) FWDQ({DLQ})\n", []),
    ],
)
def test_an_offline_catch_all_that_is_the_input_dlq_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, given: list[str]
) -> None:
    """A catch-all that is the input DLQ (from the table's INPUTQ or the dump's header;
    given as --catch-all, or the table's last unconditional FWD) would write a file whose
    load puts every message it holds back on the DLQ: a loop. As --apply refuses it, the
    offline drain refuses it before anything is written: exit 2, saying why, no output.
    INPUTQ is "The name of the DLQ you want to process" (IBM's DLQ control data,
    https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data)."""
    rules = tmp_path / "r.rul"
    rules.write_text(table)
    out = tmp_path / "out"
    dump = _dump(tmp_path, qmgr="QM1", queue=DLQ)
    argv = ["drain", "--rules", str(rules), "--input", str(dump), "--output", str(out)]
    assert cli_main(argv + given) == 2
    err = capsys.readouterr().err
    assert f"{DLQ} is the input dead-letter queue (a loop)" in err
    assert not out.exists()


def test_drain_and_report_never_target_the_handlers_status_or_audit_queue(
    spark: Any, tmp_path: Path
) -> None:
    """`dlqhandler run` never puts a dead letter on its status queue (DLQHANDLER.STATUS:
    the attempt counts) or its audit queue (DLQHANDLER.AUDIT) on its queue manager
    (dlqhandler.rules.outgoing.plan_outgoing's ControlQueueError), nor does `drain
    --apply`: a RETRY whose DestQName names one of them, here or on INPUTQM, stays on the
    DLQ (counted unplaceable), as a loop does, in the offline drain too (before, it was
    written to q-DLQHANDLER.STATUS@LOCAL.dmp, whose load would put a dead letter among
    the attempt records), and the report counts the same. A RETRY to a queue of that name
    on another queue manager is not the handler's and is written. IBM's "DLQ control
    data" (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data):
    INPUTQM is "The name of the queue manager that owns the DLQ"."""
    md = MQMD(format="MQSTR")
    letters = [
        Message.dead_letter(
            md.replace(msg_id=bytes([n]) * 24),
            b"m",
            reason=2053,
            dest_q_name=q,
            dest_q_mgr_name=qm,
        )
        for n, q, qm in (
            (1, "DLQHANDLER.STATUS", ""),
            (2, "DLQHANDLER.AUDIT", "QM1"),
            (3, "DLQHANDLER.STATUS", "QM2"),
            (4, "APP.Y", ""),
        )
    ]
    src = tmp_path / "in.dmp"
    write_dump(src, letters, qmgr="QM1", queue=DLQ)
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)
    common = ["--rules", str(rules), "--input", str(src)]
    out = tmp_path / "out"
    assert cli_main(["drain", *common, "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(o["queue"], o["qmgr"], o["messages"]) for o in manifest["outputs"]] == [
        ("APP.Y", "", 1),
        ("DLQHANDLER.STATUS", "QM2", 1),
    ]
    assert [m.md.msg_id for m in read_dump(out / "remaining.dmp")] == [
        b"\x01" * 24,
        b"\x02" * 24,
    ]
    assert manifest["totals"]["unplaceable"] == 2
    assert cli_main(["report", *common, "--output", str(tmp_path / "rep")]) == 0
    figures = json.loads((tmp_path / "rep" / "report.json").read_text())["rules"]
    assert figures["unplaceable"] == 2
