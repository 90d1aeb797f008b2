"""A message whose RETRY(n) attempts are spent (on the status queue, where `dlqhandler run`
and `drain --apply` record them) is taken by the next matching rule: `report -m` and the
snapshot drain `drain -m` (without --apply) must say so too, not the spent RETRY."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.attempts import AttemptStore, message_subject
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import PutOptions
from dlqhandler.rules import Matcher, compile_rules
from dlqhandler.spark.drain.apply import apply_message

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"
TABLE = "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\nACTION(FWD) FWDQ(DLQ.MANUAL) HEADER(YES)\n"


def test_report_and_snapshot_drain_take_the_next_rule_once_a_retry_is_spent(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two failed puts of RETRY(2) are on record for the message (a drain --apply made
    them, its target put-inhibited). IBM's "Processing the rules table"
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table): "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table", so
    `run` and `drain --apply` now FWD it to DLQ.MANUAL; the report must count line 2 as
    choosing it, and the snapshot drain must write it to q-DLQ.MANUAL@LOCAL.dmp, not to
    its spent RETRY target."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    queues: list[tuple[str, dict[str, int | str]]] = [
        ("APP.ORDERS", {"PUT": "DISABLED"}),
        ("DLQ.MANUAL", {}),
        (STATUS, {}),
    ]
    for name, attrs in queues:
        qm.admin().define_queue(name, attrs)
    msg = Message.dead_letter(
        MQMD(format="MQSTR", msg_id=b"\x05" * 24), b"order-1", reason=2053, dest_q_name="APP.ORDERS"
    )
    qm.put1(DLQ, msg, PutOptions(syncpoint=False, context="set_all"))
    spent = compile_rules("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n").ruleset
    assert spent is not None
    store = AttemptStore(qm, STATUS)
    q = qm.open(DLQ)
    applied = apply_message(
        qm,
        q,
        Matcher(spent),
        msg.md.msg_id,
        msg.md.correl_id,
        input_queue=DLQ,
        catch_all=None,
        store=store,
    )
    assert applied.outcome == "failed"
    found = store.lookup(message_subject(msg.md.msg_id, msg.md.correl_id))
    assert found is not None
    assert found.attempts == 2
    store.close()
    q.close()
    qm.admin().alter_queue("APP.ORDERS", {"PUT": "ENABLED"})
    qm.disconnect()
    rules = tmp_path / "r.rul"
    rules.write_text(TABLE)

    assert (
        cli_main(["report", "-m", "QM1", "--rules", str(rules), "--output", str(tmp_path / "rep")])
        == 0
    )
    figures = json.loads((tmp_path / "rep" / "report.json").read_text())["rules"]
    assert [(r["line"], r["chosen"]) for r in figures["by_rule"]] == [(1, 0), (2, 1)]

    out = tmp_path / "out"
    assert cli_main(["drain", "-m", "QM1", "--rules", str(rules), "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(o["queue"], o["messages"]) for o in manifest["outputs"]] == [("DLQ.MANUAL", 1)]
