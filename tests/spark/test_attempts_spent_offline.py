"""A message whose RETRY(n) attempts are spent (on the status queue, where `dlqhandler run`
and `drain --apply` record them) is taken by the next matching rule: `report -m` and the
snapshot drain `drain -m` (without --apply) must say so too, not the spent RETRY."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr.attempts import AttemptStore, group_subject, message_subject
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


# line 1 RETRY(2) spent -> line 2 DISCARD (same destination) or, for APP.OTHER, no rule
# left: it stays (the implicit IGNORE); line 3 RETRY(1) spent -> line 4 FWD.
MIXED = (
    "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)\n"
    "REASON(MQRC_Q_FULL) DESTQ(APP.ORDERS) ACTION(DISCARD)\n"
    "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(1)\n"
    "REASON(MQRC_PUT_INHIBITED) ACTION(FWD) FWDQ(DLQ.MANUAL) HEADER(YES)\n"
)
# (MsgId byte, reason, destination, failed attempts on record)
MESSAGES = (
    (1, 2053, "APP.ORDERS", 2),  # RETRY spent: DISCARD (line 2)
    (2, 2053, "APP.ORDERS", 1),  # one attempt left: still RETRY (line 1)
    (3, 2053, "APP.ORDERS", 0),  # no record: RETRY (line 1), as ever
    (4, 2053, "APP.OTHER", 2),  # RETRY spent, no rule left: stays
    (5, 2051, "APP.ORDERS", 1),  # RETRY(1) spent: FWD to DLQ.MANUAL (line 4)
)


def _queue_manager_with_records(home: Path, status: str = STATUS) -> None:
    """QM1 with the MESSAGES on its DLQ and their failed attempts on the status queue
    ``status`` (the only one defined), written as `run` writes them
    (AttemptStore.record_failure)."""
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for name in ("APP.ORDERS", "APP.OTHER", "DLQ.MANUAL", status):
        qm.admin().define_queue(name, {})
    store = AttemptStore(qm, status)
    for byte, reason, dest, attempts in MESSAGES:
        md = MQMD(format="MQSTR", msg_id=bytes([byte]) * 24)
        msg = Message.dead_letter(md, b"data", reason=reason, dest_q_name=dest)
        qm.put1(DLQ, msg, PutOptions(syncpoint=False, context="set_all"))
        subject = message_subject(msg.md.msg_id, msg.md.correl_id)
        record = None
        for n in range(attempts):
            store.new_unit()
            record = store.record_failure(subject, record, 1_700_000_000.0 + n)
    store.close()
    qm.disconnect()


def test_spent_attempts_lead_to_discard_fwd_or_stay_in_report_and_snapshot_drain(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each message takes the rule `run` takes with its count on the status queue:
    RETRY(2) spent goes on to the DISCARD that matches next, or, with no matching rule
    left, stays (IBM, "Processing the rules table",
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table: "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table");
    one failed attempt of RETRY(2) is not spent (still the RETRY); RETRY(1) once failed
    goes on to the FWD; a message without a record is classified as before. `report -m`
    counts each rule's choices (its summary saying why one stays), and the snapshot drain
    writes and counts them the same."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    _queue_manager_with_records(home)
    rules = tmp_path / "r.rul"
    rules.write_text(MIXED)

    rep = tmp_path / "rep"
    assert cli_main(["report", "-m", "QM1", "--rules", str(rules), "--output", str(rep)]) == 0
    figures = json.loads((rep / "report.json").read_text())["rules"]
    chosen = [(r["line"], r["chosen"]) for r in figures["by_rule"]]
    assert chosen == [(1, 2), (2, 1), (3, 0), (4, 1)]
    actions = {a["action"]: a["count"] for a in figures["by_action"]}
    assert actions == {"RETRY": 2, "DISCARD": 1, "FWD": 1, "IGNORE": 1}
    # the one left: rules matched, none can place it now (its only one spent)
    assert figures["unplaceable"] == 1
    assert "1 more that stay: their target is not a valid" in (said := capsys.readouterr().out)
    assert "or their attempts are spent" in said

    out = tmp_path / "out"
    assert cli_main(["drain", "-m", "QM1", "--rules", str(rules), "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    outputs = sorted((o["queue"], o["messages"]) for o in manifest["outputs"])
    assert outputs == [("APP.ORDERS", 2), ("DLQ.MANUAL", 1)]
    totals = manifest["totals"]
    assert (totals["retried"], totals["forwarded"], totals["discarded"]) == (2, 1, 1)
    assert (totals["remaining"], manifest["remaining"]["messages"]) == (1, 1)
    retried = read_dump(out / "q-APP.ORDERS@LOCAL.dmp")
    assert sorted(m.md.msg_id[0] for m in retried) == [2, 3]
    (forwarded,) = read_dump(out / "q-DLQ.MANUAL@LOCAL.dmp")
    assert forwarded.md.msg_id[0] == 5
    (stays,) = read_dump(out / "remaining.dmp")
    assert stays.md.msg_id[0] == 4


def test_report_compare_gives_each_table_its_own_floors(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`report -m --compare OLD`: the same counts on the status queue spend one table's
    RETRY and not the other's (RETRY(5), RETRY(3): two and one failed attempts leave
    some), so a floor is worked out per table. Under the old table all three messages
    with records are still RETRYs; under the new one they are the DISCARD, the stay
    and the FWD; the two others do not change. IBM's "Processing the rules table"
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table): "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table"."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    _queue_manager_with_records(home)
    rules, old = tmp_path / "r.rul", tmp_path / "old.rul"
    rules.write_text(MIXED)
    old.write_text(
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"
        "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(3)\n"
    )
    rep = tmp_path / "rep"
    args = ["report", "-m", "QM1", "--rules", str(rules), "--compare", str(old)]
    assert cli_main([*args, "--output", str(rep)]) == 0
    compare = json.loads((rep / "report.json").read_text())["compare"]
    assert compare["changed"] == 3
    moves = sorted(
        ((t["old"]["line"], t["new"]["line"] or 0), t["count"]) for t in compare["transitions"]
    )
    assert moves == [((1, 0), 1), ((1, 2), 1), ((2, 4), 1)]


def test_floors_hold_the_classification_back_in_a_plan_without_python(
    spark: Any, tmp_path: Path
) -> None:
    """classify() with floors: a message with a floor gets no rule before it (line 1
    skipped, line 2 chosen), a floor past the last line leaves none (IGNORE), and a
    message without a floor is classified as without any; the floors are broadcast
    joined, and no Python UDF is in the executed plan. IBM's "Processing the rules table"
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table): "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table"."""
    from dlqhandler.spark.classify import classify, floors_view

    ruleset = compile_rules(MIXED).ruleset
    assert ruleset is not None
    rows = [(bytes([i]) * 24, b"\x00" * 24, True, 2053, "APP.ORDERS", "") for i in (1, 2, 3)]
    schema = (
        "md_msg_id binary, md_correl_id binary, has_dlh boolean, dlh_reason int,"
        " dlh_dest_q_name string, dlh_dest_q_mgr_name string"
    )
    frame = spark.createDataFrame(rows, schema)
    floors = {(bytes([1]) * 24, b"\x00" * 24): 2, (bytes([2]) * 24, b"\x00" * 24): 5}
    decided = classify(frame, ruleset, floors=floors_view(spark, floors))
    got = {r["md_msg_id"][0]: (r["chosen_line"], r["action"]) for r in decided.collect()}
    assert got == {1: (2, "DISCARD"), 2: (None, "IGNORE"), 3: (1, "RETRY")}
    plan = decided._jdf.queryExecution().executedPlan().toString()
    assert "BroadcastHashJoin" in plan or "BroadcastNestedLoopJoin" in plan, plan
    assert "BatchEvalPython" not in plan
    assert "ArrowEvalPython" not in plan


def test_status_queue_option_reads_the_attempts_run_kept_on_another_queue(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --status-queue MY.STATUS` keeps its attempts there, not on DLQHANDLER.STATUS
    (not even defined here): `report -m --status-queue MY.STATUS` and `drain -m
    --status-queue MY.STATUS` (no --apply) read them, so the spent RETRYs go on to the
    next matching rule (IBM, "Processing the rules table",
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table: "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table"),
    the same counts as with the default queue."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    _queue_manager_with_records(home, "MY.STATUS")
    rules = tmp_path / "r.rul"
    rules.write_text(MIXED)
    common = ["-m", "QM1", "--rules", str(rules), "--status-queue", "MY.STATUS"]

    rep = tmp_path / "rep"
    assert cli_main(["report", *common, "--output", str(rep)]) == 0
    figures = json.loads((rep / "report.json").read_text())["rules"]
    assert [(r["line"], r["chosen"]) for r in figures["by_rule"]] == [
        (1, 2),
        (2, 1),
        (3, 0),
        (4, 1),
    ]

    out = tmp_path / "out"
    assert cli_main(["drain", *common, "--output", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    totals = manifest["totals"]
    assert (totals["retried"], totals["forwarded"], totals["discarded"]) == (2, 1, 1)
    assert totals["remaining"] == 1


@pytest.mark.parametrize("command", ["report", "drain"])
@pytest.mark.parametrize("queue", ["MY.STATUS", "BAD Q$"])
def test_status_queue_without_a_queue_manager_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, queue: str
) -> None:
    """A dump (--input) carries no attempt counts, so --status-queue without -m would be
    ignored: it is refused (exit 2, the message says to give -m), and so is a name the
    MQ naming rule refuses; nothing is written."""
    dump = tmp_path / "in.dmp"
    dump.write_bytes(b"")
    rules = tmp_path / "r.rul"
    rules.write_text(MIXED)
    out = tmp_path / "out"
    argv = [command, "--input", str(dump), "--rules", str(rules), "--output", str(out)]
    assert cli_main([*argv, "--status-queue", queue]) == 2
    err = capsys.readouterr().err
    assert "--status-queue" in err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("command", ["report", "drain"])
def test_status_queue_named_but_missing_is_an_error_not_no_attempts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    """`--status-queue MY.STATUS` names a queue QM1 does not have (a typo, or not run's
    queue): rather than silently reading no attempts (every spent RETRY then predicted as
    a RETRY again), report and drain (no --apply) stop with an error naming the queue
    and how to fix it, a non-zero exit, no traceback, and every message still on the
    DLQ. Left out, the default DLQHANDLER.STATUS may be missing (no handler ran yet)."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    _queue_manager_with_records(home, "RUN.STATUS")
    rules = tmp_path / "r.rul"
    rules.write_text(MIXED)
    out = tmp_path / "out"
    argv = [command, "-m", "QM1", "--rules", str(rules), "--output", str(out)]
    assert cli_main([*argv, "--status-queue", "MY.STATUS"]) == 4  # as a missing --queue
    err = capsys.readouterr().err
    assert "--status-queue MY.STATUS does not exist" in err
    assert "Traceback" not in err
    qm = connect("QM1", home=home)
    try:
        assert qm.inquire_queue(DLQ).curdepth == len(MESSAGES)
    finally:
        qm.disconnect()


@pytest.mark.parametrize(
    ("dest", "place"),
    [("APP.ORDERS", "discarded"), ("APP.OTHER", "stays")],
)
def test_a_group_with_spent_attempts_is_counted_and_drained_as_run_moves_it(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dest: str, place: str
) -> None:
    """A group's members share one count on the status queue (the group's record), and
    `run` decides every member with it: RETRY(2) spent, the members go on to the next
    matching rule (IBM, "Processing the rules table",
    https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table: "If all
    attempts fail, the DLQ handler searches for the next matching rule in the table"),
    the group whole ("retrieve the entire group", IBM, Grouping logical messages,
    https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html).
    Under MIXED a group for APP.ORDERS is discarded (line 2) and one for APP.OTHER has no
    rule left and stays. `report -m` and the snapshot drain `drain -m` say what `run`
    then does, member for member."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for name in ("APP.ORDERS", "APP.OTHER", "DLQ.MANUAL", STATUS):
        qm.admin().define_queue(name, {})
    group = b"SPENT.GROUP".ljust(24, b"\x00")
    for seq, flags in ((1, 8), (2, 8 | 16)):
        md = MQMD(format="MQSTR", msg_id=bytes([seq]) * 24, group_id=group, msg_seq_number=seq,
                  msg_flags=flags)  # fmt: skip
        dead = Message.dead_letter(md, b"member", reason=2053, dest_q_name=dest)
        qm.put1(DLQ, dead, PutOptions(syncpoint=False, context="set_all"))
    store = AttemptStore(qm, STATUS)
    record = None
    for n in range(2):  # RETRY(2) spent for the group
        store.new_unit()
        record = store.record_failure(group_subject(group), record, 1_700_000_000.0 + n)
    store.close()
    qm.disconnect()
    rules = tmp_path / "r.rul"
    rules.write_text(f"INPUTQ({DLQ}) INPUTQM(QM1) WAIT(NO)\n" + MIXED)

    rep = tmp_path / "rep"
    assert cli_main(["report", "-m", "QM1", "--rules", str(rules), "--output", str(rep)]) == 0
    figures = json.loads((rep / "report.json").read_text())["rules"]
    chosen = {r["line"]: r["chosen"] for r in figures["by_rule"] if r["chosen"]}
    assert chosen == ({3: 2} if place == "discarded" else {})  # line 3: MIXED's DISCARD
    out = tmp_path / "out"
    assert cli_main(["drain", "-m", "QM1", "--rules", str(rules), "--output", str(out)]) == 0
    totals = json.loads((out / "manifest.json").read_text())["totals"]
    assert (totals["retried"], totals["discarded"]) == (0, 2 if place == "discarded" else 0)
    assert totals["remaining"] == (0 if place == "discarded" else 2)

    assert cli_main(["run", "--rules", str(rules), "--no-watch"]) == 0
    qm = connect("QM1", home=home)
    try:
        assert qm.inquire_queue(DLQ).curdepth == (0 if place == "discarded" else 2)
        assert qm.inquire_queue("APP.ORDERS").curdepth == 0
    finally:
        qm.disconnect()
