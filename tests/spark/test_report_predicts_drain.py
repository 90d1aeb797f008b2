"""`dlqhandler report` predicts what `dlqhandler drain` then does with the same dump and
table: the same messages moved, discarded, sent to the catch-all and left on the DLQ, and
the same rule chosen for each, on crafted backlogs that stress the rules' corners
(&DESTQ/&REPLYQ substitution giving no valid name, targets on the input queue manager,
loops back onto the DLQ, HEADER(NO), a dead letter of a dead letter, a bad MQDLH, no MQDLH,
no matching rule) and message groups."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1

pytestmark = pytest.mark.spark

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
TABLE = (
    f"INPUTQ({DLQ}) INPUTQM(QM1)\n"
    "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n"
    "REASON(MQRC_NOT_AUTHORIZED) ACTION(FWD) FWDQ(&REPLYQ)\n"
    "REASON(MQRC_PUT_INHIBITED) ACTION(IGNORE)\n"
    "REASON(MQRC_MSG_TOO_BIG_FOR_Q) ACTION(FWD) FWDQ(BIG) FWDQM(QM1) HEADER(NO)\n"
    "REASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)\n"
    "REASON(MQRC_UNKNOWN_REMOTE_Q_MGR) ACTION(DISCARD)\n"
)
CATCH_ALL = "ACTION(FWD) FWDQ(DLQ.CATCHALL) HEADER(YES)\n"


class _Backlog:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def letter(self, reason: int, destq: str, destqm: str = "", **md: Any) -> Message:
        n = len(self.messages) + 1
        m = Message.dead_letter(
            MQMD(format="MQSTR", msg_id=n.to_bytes(24, "big"), **md),
            f"m{n}".encode(),
            reason=reason,
            dest_q_name=destq,
            dest_q_mgr_name=destqm,
        )
        self.messages.append(m)
        return m

    def group(self, gid: bytes, specs: list[tuple[int, str]], leave_out: int = 0) -> None:
        for seq, (reason, destq) in enumerate(specs, start=1):
            last = seq == len(specs)
            flags = MQMF_LAST_MSG_IN_GROUP if last else MQMF_MSG_IN_GROUP
            self.letter(reason, destq, group_id=gid * 24, msg_seq_number=seq, msg_flags=flags)
            if seq == leave_out:
                self.messages.pop()

    def segments(self, gid: bytes, count: int, gap: int = 0) -> None:
        """``count`` segments of one message, each at the previous one's Offset plus its
        data's length (``gap`` more for the last: a segment missing before it)."""
        offset = 0
        for i in range(count):
            last = i == count - 1
            flags = MQMF_SEGMENT | (MQMF_LAST_SEGMENT if last else 0)
            m = self.letter(
                2053,
                "APP.S",
                group_id=gid * 24,
                offset=offset + (gap if last else 0),
                msg_flags=flags,
            )
            offset += len(m.body) - MQDLH_LENGTH_1  # the data behind the MQDLH


def _singles() -> _Backlog:
    b = _Backlog()
    for _ in range(3):
        b.letter(2053, "APP.A")  # RETRY to a local queue
    b.letter(2053, "APP.A", "QM1")  # RETRY on the input queue manager: a local put
    b.letter(2053, "APP.B", "QM2")  # RETRY to another queue manager
    b.letter(2053, " ")  # RETRY without a DestQName: unplaceable
    b.letter(2053, DLQ, "QM1")  # RETRY back onto the DLQ: a loop
    b.letter(2053, DLQ)  # the same, the queue manager left blank
    b.letter(2035, "APP.C", reply_to_q="REPLY.Q")  # FWD &REPLYQ
    b.letter(2035, "APP.C")  # FWD &REPLYQ, blank: unplaceable
    b.letter(2051, "APP.D")  # IGNORE
    b.letter(2030, "APP.E")  # FWD BIG on QM1 (local), HEADER(NO)
    b.letter(2085, "APP.F", "QM1")  # FWD &DESTQ@&DESTQM: local
    b.letter(2085, "APP.F", "QM3")  # FWD &DESTQ@&DESTQM: remote
    b.letter(2087, "APP.G")  # DISCARD
    b.letter(9999, "APP.H")  # no rule matches
    inner = b.letter(2053, "APP.A")  # a dead letter of a dead letter (two MQDLHs)
    b.messages[-1] = Message.dead_letter(inner.md, inner.body, reason=2053, dest_q_name="APP.HOP")
    b.messages.append(Message(MQMD(format="MQSTR", msg_id=b"\xee" * 24), b"no MQDLH"))
    b.messages.append(Message(MQMD(format="MQDEAD", msg_id=b"\xef" * 24), b"MQDLH cut"))
    return b


def _report_and_drain(tmp_path: Path, backlog: _Backlog, table: str) -> tuple[Any, Any, Any]:
    dump = tmp_path / "in.dmp"
    write_dump(dump, backlog.messages, qmgr="QM1", queue=DLQ)
    rules = tmp_path / "r.rul"
    rules.write_text(table)
    common = ["--rules", str(rules), "--input", str(dump)]
    assert cli_main(["report", *common, "--output", str(tmp_path / "rep")]) == 0
    assert cli_main(["drain", *common, "--output", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    return report, manifest, summary


def _assert_predicted(report: Any, manifest: Any, summary: Any) -> None:
    rules, totals = report["rules"], manifest["totals"]
    caught = rules["catch_all"]["count"] if rules["catch_all"] else 0
    discard = {a["action"]: a["count"] for a in rules["by_action"]}.get("DISCARD", 0)
    # the unplaceable stay, or go to the catch-all (counted in its count)
    left = rules["left_on_dlq"] + (0 if rules["catch_all"] else rules["unplaceable"])
    predicted = {
        "moved": report["total"] - left - caught - discard,
        "discarded": discard,
        "catch_all": caught,
        "remaining": left,
    }
    done = {
        "moved": totals["retried"] + totals["forwarded"],
        "discarded": totals["discarded"],
        "catch_all": totals["catch_all"],
        "remaining": totals["remaining"],
    }
    assert predicted == done
    assert [(r["line"], r["chosen"]) for r in rules["by_rule"]] == [
        (r["line"], r["chosen"]) for r in summary["by_rule"]
    ]


@pytest.mark.parametrize("catch_all", [False, True])
def test_report_predicts_the_drain_on_single_messages(
    spark: Any, tmp_path: Path, catch_all: bool
) -> None:
    """On a backlog of single messages through every corner of the table (see the module
    docstring), with and without a catch-all, the report's counts are the drain's:
    messages moved, discarded, to the catch-all, left on the DLQ, and each rule's choices.
    IBM's "DLQ control data" (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-
    control-data): INPUTQM is "the name of the queue manager that owns the DLQ", so a
    target there is a local put and a target that is INPUTQ a loop, in both."""
    table = TABLE + (CATCH_ALL if catch_all else "")
    report, manifest, summary = _report_and_drain(tmp_path, _singles(), table)
    _assert_predicted(report, manifest, summary)
    totals = manifest["totals"]
    # the table's catch-all FWD is the next matching rule for a target that cannot be put
    # to: run forwards it there once its attempts fail, and so does the drain
    unplaceable = 0 if catch_all else 4
    assert (totals["unplaceable"], totals["no_dlh"], totals["discarded"]) == (unplaceable, 2, 1)


def test_report_predicts_the_drain_on_message_groups(spark: Any, tmp_path: Path) -> None:
    """A complete group placed whole, a group with a member missing (it stays, all of
    it), a group whose second member an IGNORE rule leaves (the group stays whole), a
    group whose members go to two queues (moved whole), a complete segmented message and
    one with a segment missing (it stays): the report's counts are what the drain does.
    IBM's "Grouping logical messages" (https://www.ibm.com/support/knowledgecenter/en/
    SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html): "retrieve the entire group with the
    same getting application instance"."""
    b = _Backlog()
    b.letter(2053, "APP.A")
    b.group(b"G", [(2053, "APP.A"), (2053, "APP.A")])
    b.group(b"I", [(2053, "APP.A"), (2053, "APP.A"), (2053, "APP.A")], leave_out=2)
    b.group(b"M", [(2053, "APP.A"), (2051, "APP.D")])
    b.group(b"N", [(2053, "APP.A"), (2030, "APP.E")])
    b.segments(b"S", 2)
    b.segments(b"T", 2, gap=5)
    report, manifest, summary = _report_and_drain(tmp_path, b, TABLE)
    assert manifest["totals"]["remaining"] == 6  # I (2), M (2), T (2)
    _assert_predicted(report, manifest, summary)


def test_a_message_past_the_hop_limit_stays_offline_as_it_does_for_run(
    spark: Any, tmp_path: Path
) -> None:
    """Messages dead-lettered 1, 4, 5 and 6 times (one MQDLH per trip), forwarded with
    their header by the table's only rule: `dlqhandler run` (max hops 5) forwards the
    first two and leaves the last two on the DLQ as forward loops (seen: "forward loops
    refused 2"), so the drain writes two to q-APP.Y@LOCAL.dmp and leaves two, unplaceable,
    and the report counts them so."""
    b = _Backlog()
    for n, depth in ((1, 1), (2, 4), (3, 5), (4, 6)):
        m = Message(MQMD(format="MQSTR", msg_id=bytes([n]) * 24), b"payload")
        for _ in range(depth):
            m = Message.dead_letter(m.md, m.body, reason=2053, dest_q_name="APP.X")
        b.messages.append(m)
    table = f"INPUTQ({DLQ}) INPUTQM(QM1)\nACTION(FWD) FWDQ(APP.Y) HEADER(YES)\n"
    report, manifest, summary = _report_and_drain(tmp_path, b, table)
    assert [(o["queue"], o["messages"]) for o in manifest["outputs"]] == [("APP.Y", 2)]
    assert manifest["totals"]["unplaceable"] == 2
    _assert_predicted(report, manifest, summary)


def test_an_unplaceable_target_gives_way_to_the_next_matching_rule_as_in_run(
    spark: Any, tmp_path: Path
) -> None:
    """RETRY(1) then FWD(MANUAL), both for MQRC_Q_FULL: a blank DestQName, a DestQName
    that is the DLQ and one that is the status queue cannot be retried; `dlqhandler run`
    (seen on the embedded QM1: "forwarded 3", MANUAL holding those three) counts the
    failed attempt and forwards them to MANUAL with the next matching rule, as IBM's
    handler does: "If all attempts fail, the DLQ handler searches for the next matching
    rule in the table" (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-
    rules-table). The drain writes them to q-MANUAL@LOCAL.dmp, leaves none, and the
    report says so; the good one is retried to APP.A."""
    b = _Backlog()
    for destq in (" ", DLQ, "APP.A", "DLQHANDLER.STATUS"):
        b.letter(2053, destq)
    table = (
        f"INPUTQ({DLQ}) INPUTQM(QM1)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n"
        "REASON(MQRC_Q_FULL) ACTION(FWD) FWDQ(MANUAL)\n"
    )
    report, manifest, summary = _report_and_drain(tmp_path, b, table)
    assert [(o["queue"], o["messages"]) for o in manifest["outputs"]] == [
        ("APP.A", 1),
        ("MANUAL", 3),
    ]
    assert manifest["remaining"]["messages"] == 0
    _assert_predicted(report, manifest, summary)


def _places(out: Path) -> dict[bytes, str]:
    """Where the drain in ``out`` put each message, by MsgId: its output file's name
    (remaining.dmp: left on the DLQ); a message in no file was discarded."""
    return {m.md.msg_id: path.name for path in out.glob("*.dmp") for m in read_dump(path)}


@pytest.mark.parametrize("catch_all_in", ["old", "new"])
def test_compare_counts_the_messages_the_catch_all_takes_or_gives_back(
    spark: Any, tmp_path: Path, catch_all_in: str
) -> None:
    """Two tables that differ only in a last unconditional FWD (the drain's catch-all):
    `report --compare` counts as changed exactly the messages whose place differs between
    the two drains (the IGNOREd, unmatched, unplaceable and no-MQDLH messages, a group
    with an IGNOREd member, which goes whole to the catch-all or stays whole), and its
    transitions name the catch-all as the queue they go to (a group's: `group` "caught").
    An IGNORE rule's message keeps its action and line under both tables, but one drain
    moves it and the other leaves it: before, the report did not count it. IBM's
    "Processing the rules table"
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-processing-rules-table): "ACTION
    (IGNORE) is also assumed if no matching rule is found", and "Messages that do not
    contain an MQDLH [...] remain on the dead-letter queue"; the catch-all is our drain's
    own, and the report predicts it."""
    b = _singles()
    b.group(b"M", [(2053, "APP.A"), (2051, "APP.D")])  # a member IGNOREd
    b.group(b"I", [(2053, "APP.A"), (2053, "APP.A"), (2053, "APP.A")], leave_out=2)
    dump = tmp_path / "in.dmp"
    write_dump(dump, b.messages, qmgr="QM1", queue=DLQ)
    tables = {"old": TABLE, "new": TABLE}
    tables[catch_all_in] += CATCH_ALL
    places = {}
    for side, table in tables.items():
        rules = tmp_path / f"{side}.rul"
        rules.write_text(table)
        out = tmp_path / f"drain-{side}"
        assert (
            cli_main(["drain", "--rules", str(rules), "--input", str(dump), "--output", str(out)])
            == 0
        )
        places[side] = _places(out)
    moved = {
        m
        for m in places["old"].keys() | places["new"].keys()
        if places["old"].get(m) != places["new"].get(m)
    }
    # four unplaceable, the IGNOREd, the unmatched, two without a (whole) MQDLH, group M
    assert len(moved) == 10
    common = ["--input", str(dump), "--output", str(tmp_path / "rep")]
    old, new = tmp_path / "old.rul", tmp_path / "new.rul"
    assert cli_main(["report", "--rules", str(new), "--compare", str(old), *common]) == 0
    compare = json.loads((tmp_path / "rep" / "report.json").read_text())["compare"]
    assert compare["changed"] == len(moved)
    caught = "DLQ.CATCHALL"
    to_catch_all = sum(  # a caught group's member shows its rule's target
        t["count"]
        for t in compare["transitions"]
        if t[catch_all_in]["queue"] == caught or t[catch_all_in]["group"] == "caught"
    )
    assert to_catch_all == sum(
        1 for m in moved if places[catch_all_in].get(m) == f"q-{caught}@LOCAL.dmp"
    )
    ignored = [
        t for t in compare["transitions"] if t["old"]["action"] == t["new"]["action"] == "IGNORE"
    ]
    assert ignored, compare["transitions"]  # the IGNORE rule's message, and no rule's
    assert all(t[catch_all_in]["queue"] == caught for t in ignored)
    samples = {s for t in compare["transitions"] for s in t["samples"]}
    assert samples <= {m.hex().upper() for m in moved}
