"""``drain --apply``: the summary and the audit name the rule carried out, not the first
match, when puts failed and the rules were asked again (a RETRY spent, then the next rule)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_apply_records_the_rule_carried_out_after_a_retry_is_spent(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three MQRC_Q_FULL dead letters for APP.OK (defined) are retried; two for APP.GONE
    (not defined) fail RETRY(2) twice, and then, as IBM's handler does ("If all attempts
    fail, the DLQ handler searches for the next matching rule in the table",
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table), the
    catch-all FWD of line 2 forwards them to DLQ.MANUAL with their header. The summary
    says 3 retried and 2 forwarded (it said 5 retried), line 2 chose 2, and their audit
    rows say FWD, line 2, DLQ.MANUAL: what is on the queues."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for q in ("APP.OK", "DLQ.MANUAL"):
        qm.admin().define_queue(q, {"MAXDEPTH": 100})
    md = MQMD(format="MQSTR", persistence=1)
    dests = ["APP.OK", "APP.GONE", "APP.OK", "APP.GONE", "APP.OK"]
    for i, dest in enumerate(dests, start=1):
        m = Message.dead_letter(
            md.replace(msg_id=i.to_bytes(24, "big")),
            f"m{i}".encode(),
            reason=2053,
            dest_q_name=dest,
        )
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text(
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\nACTION(FWD) FWDQ(DLQ.MANUAL) HEADER(YES)\n"
    )
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]
    assert cli_main(argv) == 0
    depth = {q: qm.inquire_queue(q).curdepth for q in (DLQ, "APP.OK", "DLQ.MANUAL")}
    qm.disconnect()
    assert depth == {DLQ: 0, "APP.OK": 3, "DLQ.MANUAL": 2}

    summary = json.loads((out / "summary.json").read_text())
    totals = summary["totals"]
    assert (totals["retried"], totals["forwarded"], totals["remaining"]) == (3, 2, 0)
    assert [(r["line"], r["matched"], r["chosen"]) for r in summary["by_rule"]] == [
        (1, 5, 3),
        (2, 5, 2),
    ]
    assert summary["shadowed"] == []
    rows = {r["msgid"]: r for r in spark.read.parquet(str(out / "audit")).collect()}
    gone = [i.to_bytes(24, "big").hex().upper() for i in (2, 4)]
    for msgid in gone:
        r = rows[msgid]
        assert (r["action"], r["chosen_line"], r["disposition"], r["out_q"], r["outcome"]) == (
            "FWD",
            2,
            "FWD",
            "DLQ.MANUAL",
            "ok",
        )
    retried = [r for k, r in rows.items() if k not in gone]
    assert {(r["action"], r["chosen_line"], r["out_q"]) for r in retried} == {
        ("RETRY", 1, "APP.OK")
    }


def test_apply_says_why_messages_whose_actions_failed_stay(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--catch-all NO.SUCH.Q`` names a queue that does not exist: the four messages no
    rule acts on cannot be put there (MQRC_UNKNOWN_OBJECT_NAME, 2085: "The MQOPEN, MQPUT1
    or MQSUB call was issued, but the object identified ... cannot be found",
    https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=codes-2085-0825-rc2085-mqrc-unknown-
    object-name), so they stay on the DLQ. The drain exits 6 and no longer leaves the
    user to guess why: summary.json counts them (``totals.failed``) with the reason
    (``failed``), the printed summary has a ``failed`` line, and stderr says how many
    and why; the retried message is on APP.OK."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.OK", {"MAXDEPTH": 100})
    md = MQMD(format="MQSTR", persistence=1)
    for i, dest in enumerate(["APP.OK", "APP.X", "APP.X", "APP.X", "APP.X"], start=1):
        m = Message.dead_letter(
            md.replace(msg_id=i.to_bytes(24, "big")), b"m", reason=2053, dest_q_name=dest
        )
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("DESTQ(APP.OK) ACTION(RETRY) RETRY(1)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]
    assert cli_main([*argv, "--catch-all", "NO.SUCH.Q"]) == 6
    depth = {q: qm.inquire_queue(q).curdepth for q in (DLQ, "APP.OK")}
    qm.disconnect()
    assert depth == {DLQ: 4, "APP.OK": 1}
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["totals"]["failed"], summary["totals"]["remaining"]) == (4, 4)
    [why] = summary["failed"]
    assert why["messages"] == 4
    assert "catch-all" in why["reason"]
    assert "2085" in why["reason"]
    captured = capsys.readouterr()
    assert "4 message(s) could not be acted on" in captured.err
    assert "MQRC_UNKNOWN_OBJECT_NAME" in captured.err
    assert ["failed", "4"] in [line.split() for line in captured.out.splitlines()]


def test_apply_counts_messages_whose_retries_all_failed_as_failed_as_run_does(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RETRY(2) is the only rule; APP.FULL is at its MAXDEPTH (puts fail MQRC_Q_FULL,
    2053) and APP.OFF is PUT(DISABLED) (MQRC_PUT_INHIBITED, 2051). Both RETRYs of the
    four messages for them fail, no rule is left ("If all attempts fail, the DLQ handler
    searches for the next matching rule in the table", https://www.ibm.com/docs/en/ibm-mq/
    10.0.x?topic=zos-processing-rules-table; none matches), so they stay on the DLQ with
    their attempt counts. As ``dlqhandler run`` says "4 message(s) left ... because their
    action failed" and exits 6, the drain counts them as failed (not merely remaining),
    names the reasons and exits 6 (it exited 0, saying only "remaining 4")."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    admin = qm.admin()
    admin.define_queue("APP.OK", {"MAXDEPTH": 100})
    admin.define_queue("APP.FULL", {"MAXDEPTH": 1})
    admin.define_queue("APP.OFF", {"PUT": "DISABLED"})
    qm.put1("APP.FULL", Message(MQMD(format="MQSTR"), b"filler"), PutOptions(syncpoint=False))
    md = MQMD(format="MQSTR", persistence=1)
    for i, dest in enumerate(["APP.FULL", "APP.OFF", "APP.OK", "APP.FULL", "APP.OFF"], 1):
        m = Message.dead_letter(
            md.replace(msg_id=i.to_bytes(24, "big")), b"m", reason=2053, dest_q_name=dest
        )
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]
    assert cli_main(argv) == 6
    depth = {q: qm.inquire_queue(q).curdepth for q in (DLQ, "APP.OK", "APP.FULL")}
    qm.disconnect()
    assert depth == {DLQ: 4, "APP.OK": 1, "APP.FULL": 1}
    summary = json.loads((out / "summary.json").read_text())
    totals = summary["totals"]
    assert (totals["retried"], totals["failed"], totals["remaining"]) == (1, 4, 4)
    reasons = " ".join(r["reason"] for r in summary["failed"])
    assert "MQRC_Q_FULL" in reasons
    assert "MQRC_PUT_INHIBITED" in reasons
    assert "4 message(s) could not be acted on" in capsys.readouterr().err
