"""The hop limit offline: `dlqhandler run` refuses to put a message that would carry
``--max-hops`` MQDLHs or more (a forward loop, dlqhandler.rules.outgoing.plan_outgoing);
`report -m` and `drain -m` (the snapshot drain, no --apply) must place every message of a
DLQ where `run` then does, at the boundary (4, 5 and 6 MQDLHs), for RETRY, FWD
HEADER(YES) and FWD HEADER(NO), with the default limit and another one, on the embedded
queue manager."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.port import browse_all
from tests.spark.drain_helpers import qm1_holding

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
DEPTHS = (1, 4, 5, 6)  # MQDLHs each message carries: one per trip through a DLQ


def _letter(depth: int) -> Message:
    """A message dead-lettered ``depth`` times, each time to APP.X (MQRC_Q_FULL): an
    MQDLH in front of the last one's, each MQDLH's Format MQDEAD naming the next."""
    m = Message(MQMD(format="MQSTR", msg_id=bytes([depth]) * 24), b"payload")
    for _ in range(depth):
        m = Message.dead_letter(m.md, m.body, reason=2053, dest_q_name="APP.X")
    return m


def _depths(messages: list[Message]) -> list[int]:
    return sorted(m.md.msg_id[0] for m in messages)


def _browse(qm: Any, queue: str) -> list[Message]:
    q = qm.open(queue, browse=True)
    try:
        return list(browse_all(q))
    finally:
        q.close()


@pytest.mark.parametrize(
    ("rule", "max_hops", "moved"),
    [
        ("ACTION(FWD) FWDQ(APP.Y) HEADER(YES)", 5, (1, 4)),
        ("ACTION(FWD) FWDQ(APP.Y) HEADER(NO)", 5, (1, 4, 5)),
        ("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)", 5, (1, 4, 5)),
        ("ACTION(FWD) FWDQ(APP.Y) HEADER(YES)", 6, (1, 4, 5)),
        ("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)", 4, (1, 4)),
    ],
)
def test_report_and_drain_stop_at_the_hop_limit_where_run_does(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    rule: str,
    max_hops: int,
    moved: tuple[int, ...],
) -> None:
    """Messages carrying 1, 4, 5 and 6 MQDLHs on QM1's DLQ. `run` counts the MQDLHs of
    the message it would put: FWD HEADER(YES) keeps them all, RETRY and HEADER(NO) strip
    the first, whose Format names what follows it (IBM's "Format (MQCHAR8) for MQDLH",
    https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q096180_.html: "the format name of
    the data that follows the MQDLH structure"; a dead letter of a dead letter has
    MQFMT_DEAD_LETTER_HEADER there); with --max-hops N it refuses a put carrying N or
    more and, no other rule matching, leaves the message on the DLQ, a table's
    unconditional FWD included. `report -m` counts, and `drain -m` writes, the messages
    `run` then moves (by MsgId) to the rule's queue and leaves the others: the report's
    left on the DLQ, the drain's remaining.dmp, `run`'s DLQ after it stops (WAIT(NO));
    where the rule is the drain's catch-all, the report's summary says those stay past
    --max-hops."""
    home = tmp_path / "home"
    qm1_holding(home, monkeypatch, [_letter(d) for d in DEPTHS], ("APP.X", "APP.Y"))
    target = "APP.X" if "RETRY" in rule else "APP.Y"
    rules = tmp_path / "r.rul"
    rules.write_text(f"INPUTQ({DLQ}) INPUTQM(QM1) WAIT(NO)\n{rule}\n")
    hops = ["--max-hops", str(max_hops)]
    common = ["-m", "QM1", "--rules", str(rules), *hops]

    assert cli_main(["report", *common, "--output", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr().out
    assert cli_main(["drain", *common, "--output", str(tmp_path / "out")]) == 0
    # PARTIAL: run left messages whose action failed (the forward loops)
    assert cli_main(["run", "--rules", str(rules), "--no-watch", *hops]) == ExitCode.PARTIAL

    stays = sorted(set(DEPTHS) - set(moved))
    figures = json.loads((tmp_path / "rep" / "report.json").read_text())["rules"]
    caught = figures["catch_all"]["count"] if figures["catch_all"] else 0
    left = figures["left_on_dlq"] + (0 if figures["catch_all"] else figures["unplaceable"])
    assert (left, caught) == (len(stays), 0)
    if figures["catch_all"]:  # the table's FWD is the catch-all: the summary says why
        assert figures["left_on_dlq_by_cause"]["max_hops"] == len(stays)
        said = f"({len(stays)} of them past --max-hops, which no catch-all takes)"
        assert said in printed
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    written = {o["queue"]: _depths(list(read_dump(out / o["file"]))) for o in manifest["outputs"]}
    assert written == {target: list(moved)}
    assert _depths(list(read_dump(out / manifest["remaining"]["file"]))) == stays

    qm = connect("QM1", home=home)
    try:
        assert _depths(_browse(qm, target)) == list(moved)
        assert _depths(_browse(qm, DLQ)) == stays
    finally:
        qm.disconnect()


@pytest.mark.parametrize(
    ("rule", "moved"),
    [
        ("ACTION(FWD) FWDQ(APP.Y) HEADER(YES)", (1, 4)),
        ("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)", (1, 4, 5)),
    ],
)
def test_drain_apply_stops_at_the_hop_limit_where_run_does(
    spark: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rule: str,
    moved: tuple[int, ...],
) -> None:
    """`drain --apply -m QM1` on the same DLQ (messages with 1, 4, 5 and 6 MQDLHs) moves
    what `run` moves (the test above) and leaves the rest on the DLQ: a put carrying
    --max-hops (5) MQDLHs or more is refused by the rule, and by the catch-all (here the
    table's unconditional FWD), as `run` refuses it, though the rule's attempts are spent.
    The MQDLHs are counted down their chain: IBM's "Format (MQCHAR8)" for MQDLH
    (https://www.ibm.com/docs/en/SSFKSJ_9.3.0/refdev/q096180_.html): "the format name of
    the data that follows the MQDLH structure"."""
    home = tmp_path / "home"
    qm1_holding(home, monkeypatch, [_letter(d) for d in DEPTHS], ("APP.X", "APP.Y"))
    target = "APP.X" if "RETRY" in rule else "APP.Y"
    rules = tmp_path / "r.rul"
    rules.write_text(f"INPUTQ({DLQ}) INPUTQM(QM1) WAIT(NO)\n{rule}\n")
    out = tmp_path / "out"
    args = ["drain", "--apply", "-m", "QM1", "--rules", str(rules), "--output", str(out)]
    assert cli_main(args) == ExitCode.PARTIAL  # messages left whose action failed
    qm = connect("QM1", home=home)
    try:
        assert _depths(_browse(qm, target)) == list(moved)
        assert _depths(_browse(qm, DLQ)) == sorted(set(DEPTHS) - set(moved))
    finally:
        qm.disconnect()


def test_a_group_with_a_member_past_the_hop_limit_stays_whole_as_in_run(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message group of two, its first member dead-lettered once, its second five
    times (five MQDLHs), and a table whose only rule forwards with the header (so also
    the drain's catch-all): `run` moves a group whole or not at all and refuses the
    second member's put (--max-hops 5), so the whole group stays on the DLQ; the drain
    leaves both in remaining.dmp (not in the catch-all's file: the put there would carry
    the five MQDLHs too) and the report counts both kept on the DLQ. IBM's "Grouping
    logical messages" (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/
    com.ibm.mq.dev.doc/q026280_.html): "retrieve the entire group with the same getting
    application instance"."""
    home = tmp_path / "home"
    members = []
    for seq, depth in ((1, 1), (2, 5)):
        flags = MQMF_LAST_MSG_IN_GROUP if seq == 2 else MQMF_MSG_IN_GROUP
        md = MQMD(
            format="MQSTR",
            msg_id=bytes([depth]) * 24,
            group_id=b"G" * 24,
            msg_seq_number=seq,
            msg_flags=flags,
        )
        m = Message(md, b"member")
        for _ in range(depth):
            m = Message.dead_letter(m.md, m.body, reason=2053, dest_q_name="APP.X")
        members.append(m)
    qm1_holding(home, monkeypatch, members)
    rules = tmp_path / "r.rul"
    rules.write_text(f"INPUTQ({DLQ}) INPUTQM(QM1) WAIT(NO)\nACTION(FWD) FWDQ(APP.Y) HEADER(YES)\n")
    common = ["-m", "QM1", "--rules", str(rules)]
    assert cli_main(["report", *common, "--output", str(tmp_path / "rep")]) == 0
    assert cli_main(["drain", *common, "--output", str(tmp_path / "out")]) == 0
    same = ["--compare", str(rules), "--output", str(tmp_path / "same")]
    assert cli_main(["report", *common, *same]) == 0
    assert cli_main(["run", "--rules", str(rules), "--no-watch"]) == ExitCode.PARTIAL
    compared = json.loads((tmp_path / "same" / "report.json").read_text())["compare"]
    assert compared["changed"] == 0, compared["transitions"]

    figures = json.loads((tmp_path / "rep" / "report.json").read_text())["rules"]
    assert figures["left_on_dlq_by_cause"]["group"] == 2
    assert figures["catch_all"]["count"] == 0
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["outputs"] == []
    assert _depths(list(read_dump(out / manifest["remaining"]["file"]))) == [1, 5]
    qm = connect("QM1", home=home)
    try:
        assert _depths(_browse(qm, "APP.Y")) == []
        assert _depths(_browse(qm, DLQ)) == [1, 5]
    finally:
        qm.disconnect()
