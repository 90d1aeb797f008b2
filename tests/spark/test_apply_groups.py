"""`drain --apply` moves a message group whole, in logical order, in one unit of
work, as `dlqhandler run` does; a half-present group stays; nothing is lost or
doubled (MsgId and payload hash)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.qmgr.attempts import AttemptStore, group_subject
from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager, connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.port import GetOptions, PutOptions
from dlqhandler.rules import Matcher, compile_rules
from dlqhandler.spark.drain.apply import apply_group
from tests.spark.drain_helpers import browse, payload_hash

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"


def _member(tag: str, seq: int, of: int, *, destq: str = "APP.ORDERS") -> Message:
    gid = f"GROUP {tag}".encode().ljust(24, b"\x00")
    flags = MQMF_LAST_MSG_IN_GROUP if seq == of else MQMF_MSG_IN_GROUP
    md = MQMD(
        format="MQSTR",
        msg_id=f"{tag}-{seq}".encode().ljust(24, b"\x00"),
        group_id=gid,
        msg_seq_number=seq,
        msg_flags=flags,
        persistence=1,
    )
    return Message.dead_letter(
        md, f"{tag} member {seq} of {of}".encode(), reason=2053, dest_q_name=destq
    )


def _single(i: int) -> Message:
    md = MQMD(format="MQSTR", msg_id=f"single-{i}".encode().ljust(24, b"\x00"))
    return Message.dead_letter(md, f"single {i}".encode(), reason=2053, dest_q_name="APP.ORDERS")


def _qm(tmp_path: Path, *queues: str) -> EmbeddedQueueManager:
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    for q in queues:
        qm.admin().define_queue(q, {"MAXDEPTH": 10000})
    return qm


def test_apply_moves_a_group_whole_in_logical_order(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A complete group put on the DLQ out of order, between single messages, arrives
    on its target contiguous and in logical order; a group missing a member stays on
    the DLQ whole; every message is in exactly one place with its payload."""
    monkeypatch.setenv("DLQHANDLER_HOME", str(tmp_path / "home"))
    qm = _qm(tmp_path, "APP.ORDERS")
    whole = [_member("A", s, 3) for s in (1, 2, 3)]
    half = [_member("B", s, 3) for s in (1, 3)]  # member 2 never reached the DLQ
    singles = [_single(i) for i in range(6)]
    order = [
        singles[0],
        whole[1],
        singles[1],
        half[1],
        whole[2],
        singles[2],
        singles[3],
        half[0],
        whole[0],
        singles[4],
        singles[5],
    ]
    for m in order:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(FWD) FWDQ(APP.ORDERS) HEADER(NO)\n")
    out = tmp_path / "out"
    assert (
        cli_main(["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)])
        == 0
    )
    target = browse(qm, "APP.ORDERS")
    left = browse(qm, DLQ)
    group_ids = [m.md.msg_id for m in target if m.md.group_id == whole[0].md.group_id]
    assert group_ids == [m.md.msg_id for m in whole]
    first = next(i for i, m in enumerate(target) if m.md.msg_id == whole[0].md.msg_id)
    assert [m.md.msg_seq_number for m in target[first : first + 3]] == [1, 2, 3]
    assert {m.md.msg_id for m in left} == {m.md.msg_id for m in half}
    original = {m.md.msg_id: payload_hash(m) for m in order}
    placed = [*target, *left]
    assert sorted(m.md.msg_id for m in placed) == sorted(original)
    assert all(payload_hash(m) == original[m.md.msg_id] for m in placed)
    audit = {r["msgid"]: r for r in spark.read.parquet(str(out / "audit")).collect()}
    assert {audit[m.md.msg_id.hex().upper()]["disposition"] for m in half} == {"REMAIN"}
    assert {audit[m.md.msg_id.hex().upper()]["outcome"] for m in whole} == {"ok"}
    qm.disconnect()


def test_a_failed_member_put_leaves_the_whole_group(tmp_path: Path) -> None:
    """One member's target refuses puts: no member moves (one unit of work), the
    group's single attempt count reaches RETRY(2), then the group stays whole (outcome
    failed, as run counts it)."""
    qm = _qm(tmp_path, "APP.ORDERS", STATUS)
    qm.admin().define_queue("APP.CLOSED", {"PUT": "DISABLED"})
    group = [_member("C", 1, 3), _member("C", 2, 3, destq="APP.CLOSED"), _member("C", 3, 3)]
    for m in reversed(group):
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    ruleset = compile_rules("ACTION(FWD) FWDQ(&DESTQ) RETRY(2)\n").ruleset
    assert ruleset is not None
    store = AttemptStore(qm, STATUS)
    q = qm.open(DLQ)
    outcomes = apply_group(
        qm,
        q,
        Matcher(ruleset),
        [(m.md.msg_id, m.md.correl_id) for m in group],
        input_queue=DLQ,
        catch_all=None,
        store=store,
        clock=lambda: 9.0,
    )
    # stays, its action failed (as run counts it: left because its action failed)
    assert [o.outcome for o in outcomes] == ["failed"] * 3
    assert qm.inquire_queue("APP.ORDERS").curdepth == 0
    assert {m.md.msg_id for m in browse(qm, DLQ)} == {m.md.msg_id for m in group}
    record = store.lookup(group_subject(group[0].md.group_id))
    assert record is not None
    assert record.attempts == 2
    store.close()
    q.close()
    qm.disconnect()


def test_a_group_taken_by_a_handler_is_skipped_whole(tmp_path: Path) -> None:
    """A member another handler holds (or took) since the snapshot: the drain moves
    none of the group, so the group is never split between two movers."""
    qm = _qm(tmp_path, "APP.ORDERS")
    group = [_member("D", s, 2) for s in (1, 2)]
    for m in group:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    from dlqhandler.qmgr.port import GetOptions

    daemon = connect("QM1", home=tmp_path / "home")
    daemon.open(DLQ).get(GetOptions(msg_id=group[1].md.msg_id, syncpoint=True))
    ruleset = compile_rules("ACTION(FWD) FWDQ(APP.ORDERS)\n").ruleset
    assert ruleset is not None
    q = qm.open(DLQ)
    outcomes = apply_group(
        qm,
        q,
        Matcher(ruleset),
        [(m.md.msg_id, m.md.correl_id) for m in group],
        input_queue=DLQ,
        catch_all="DLQ.CATCHALL",
    )
    assert [o.outcome for o in outcomes] == ["skipped", "skipped"]
    assert qm.inquire_queue("APP.ORDERS").curdepth == 0
    daemon.backout()
    assert qm.inquire_queue(DLQ).curdepth == 2
    daemon.disconnect()
    q.close()
    qm.disconnect()


def _segment(tag: str, index: int, data: bytes) -> Message:
    """Segment ``index`` (0-2, 50 bytes each) of a logical message, dead-lettered with
    its own MQDLH."""
    md = MQMD(
        format="MQSTR",
        msg_id=f"{tag}-seg{index}".encode().ljust(24, b"\x00"),
        group_id=f"SEG {tag}".encode().ljust(24, b"\x00"),
        msg_flags=MQMF_LAST_SEGMENT if index == 2 else MQMF_SEGMENT,
        offset=index * 50,
        persistence=1,
    )
    part = data[index * 50 : (index + 1) * 50]
    return Message.dead_letter(md, part, reason=2053, dest_q_name="APP.ORDERS")


def test_apply_moves_a_segmented_message_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three segments on the DLQ out of order, between single messages, arrive on their
    target together in Offset order (3 messages) and MQGMO_COMPLETE_MSG there returns
    the 150 original bytes as one message; a logical message missing a segment stays on
    the DLQ whole (2 messages); every message is in exactly one place with its payload.
    IBM, MsgFlags (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097540_.html):
    the segments can be reassembled "into a single message that is returned by the MQGET
    call" with MQGMO_COMPLETE_MSG."""
    monkeypatch.setenv("DLQHANDLER_HOME", str(tmp_path / "home"))
    qm = _qm(tmp_path, "APP.ORDERS")
    data = bytes(range(150))
    whole = [_segment("W", i, data) for i in range(3)]
    holed = [_segment("H", i, data) for i in (0, 2)]
    singles = [_single(i) for i in range(2)]
    order = [whole[2], singles[0], holed[1], whole[0], holed[0], singles[1], whole[1]]
    for m in order:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(FWD) FWDQ(APP.ORDERS) HEADER(NO)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)]
    assert cli_main(argv) == 0
    target = browse(qm, "APP.ORDERS")
    left = browse(qm, DLQ)
    segs = [m for m in target if m.md.group_id == whole[0].md.group_id]
    assert [m.md.msg_id for m in segs] == [m.md.msg_id for m in whole]
    assert len(target) == 5
    assert {m.md.msg_id for m in left} == {m.md.msg_id for m in holed}
    original = {m.md.msg_id: payload_hash(m) for m in order}
    placed = [*target, *left]
    assert sorted(m.md.msg_id for m in placed) == sorted(original)
    assert all(payload_hash(m) == original[m.md.msg_id] for m in placed)
    q = qm.open("APP.ORDERS")
    logical = q.get(GetOptions(complete_msg=True, group_id=whole[0].md.group_id, syncpoint=False))
    assert logical.body == data
    qm.disconnect()
