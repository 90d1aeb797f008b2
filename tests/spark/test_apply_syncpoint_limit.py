"""`drain --apply` on a queue manager whose MaxUncommittedMsgs (MAXUMSGS) is small: each
message or group is its own unit of work, a group too big for it is a failed attempt,
backed out, and the drain goes on; nothing is lost or doubled."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.qmgr.attempts import AttemptStore, group_subject
from dlqhandler.qmgr.embedded.manager import connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
from dlqhandler.qmgr.embedded.runmqsc import run_mqsc
from dlqhandler.qmgr.port import PutOptions
from dlqhandler.rules import Matcher, compile_rules
from dlqhandler.spark.drain.apply import apply_group
from tests.spark.drain_helpers import browse, payload_hash

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"


def _member(tag: str, seq: int, of: int, destq: str = "APP.Q") -> Message:
    md = MQMD(
        format="MQSTR",
        msg_id=f"{tag}-{seq}".encode().ljust(24, b"\x00"),
        group_id=f"GROUP {tag}".encode().ljust(24, b"\x00"),
        msg_seq_number=seq,
        msg_flags=MQMF_LAST_MSG_IN_GROUP if seq == of else MQMF_MSG_IN_GROUP,
        persistence=1,
    )
    return Message.dead_letter(md, f"{tag} {seq}/{of}".encode(), reason=2053, dest_q_name=destq)


def _single(i: int) -> Message:
    md = MQMD(format="MQSTR", msg_id=f"single-{i}".encode().ljust(24, b"\x00"), persistence=1)
    return Message.dead_letter(md, f"single {i}".encode(), reason=2053, dest_q_name="APP.Q")


def _hex(m: Message) -> str:
    return m.md.msg_id.hex().upper()


def test_apply_stays_within_maxumsgs_and_goes_on_past_a_group_too_big(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With MAXUMSGS(5): six single dead letters and a group of two (two gets, two puts)
    are forwarded; a group of three is got whole but its third put would be the sixth
    uncommitted message (MQRC_SYNCPOINT_LIMIT_REACHED, 2024): each such attempt is
    counted and backed out until RETRY(2) is spent, and the group stays whole; a group
    of six cannot even be got whole: its sixth get fails with 2024, one attempt is
    counted, it is backed out and stays, FAILED, and the Spark task goes on (exit 6,
    not a failed job); another group of six that no rule matches (IGNORE, decided on
    its members browsed, as run decides) stays without an attempt counted. Every
    message is on the DLQ or on APP.Q, once, with its payload; the summary and the
    audit say where each went. IBM's 2024 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html): "An MQGET,
    MQPUT, or MQPUT1 call failed because it would have caused the number of uncommitted
    messages in the current unit of work to exceed the limit defined for the queue
    manager"."""
    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.Q", {"MAXDEPTH": 10000})
    singles = [_single(i) for i in range(6)]
    two = [_member("A", s, 2) for s in (1, 2)]
    three = [_member("B", s, 3) for s in (1, 2, 3)]
    six = [_member("C", s, 6) for s in range(1, 7)]
    kept = [_member("D", s, 6, destq="APP.KEPT") for s in range(1, 7)]  # no rule: IGNORE
    backlog = [singles[0], *reversed(six), singles[1], three[2], two[1], singles[2]]
    backlog += [three[0], singles[3], two[0], three[1], singles[4], singles[5], *kept]
    for m in backlog:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    qm.disconnect()
    monkeypatch.setattr("sys.stdin", io.StringIO("ALTER QMGR MAXUMSGS(5)\n"))
    assert cli_main(["qm", "mqsc", "QM1"]) == 0
    rules = tmp_path / "r.rul"
    # (DESTQ: not an unconditional last FWD, which would make APP.Q the catch-all)
    rules.write_text("DESTQ(APP.Q) ACTION(FWD) FWDQ(APP.Q) HEADER(NO) RETRY(2)\n")
    out = tmp_path / "out"

    rc = cli_main(["drain", "--rules", str(rules), "-m", "QM1", "--apply", "--output", str(out)])

    assert rc == 6
    qm = connect("QM1", home=home)
    target, left = browse(qm, "APP.Q"), browse(qm, DLQ)
    moved = [*singles, *two]
    assert sorted(m.md.msg_id for m in target) == sorted(m.md.msg_id for m in moved)
    assert sorted(m.md.msg_id for m in left) == sorted(m.md.msg_id for m in [*three, *six, *kept])
    original = {m.md.msg_id: payload_hash(m) for m in backlog}
    assert all(payload_hash(m) == original[m.md.msg_id] for m in [*target, *left])
    pair = [m.md.msg_seq_number for m in target if m.md.group_id == two[0].md.group_id]
    assert pair == [1, 2]
    store = AttemptStore(qm, STATUS)
    for group, attempts in ((three, 2), (six, 1)):
        record = store.lookup(group_subject(group[0].md.group_id))
        assert record is not None
        assert record.attempts == attempts
    assert store.lookup(group_subject(two[0].md.group_id)) is None
    assert store.lookup(group_subject(kept[0].md.group_id)) is None
    store.close()
    qm.disconnect()
    audit = {r["msgid"]: r for r in spark.read.parquet(str(out / "audit")).collect()}
    outcomes = {
        _hex(m): (audit[_hex(m)]["outcome"], audit[_hex(m)]["disposition"]) for m in backlog
    }
    assert outcomes == {
        **{_hex(m): ("ok", "FWD") for m in moved},
        **{_hex(m): ("failed", "REMAIN") for m in three},  # its puts failed
        **{_hex(m): ("failed", "REMAIN") for m in six},
        **{_hex(m): ("remaining", "REMAIN") for m in kept},
    }
    totals = json.loads((out / "summary.json").read_text())["totals"]
    assert (totals["messages"], totals["forwarded"], totals["remaining"]) == (23, 8, 15)


def test_a_group_that_fills_maxumsgs_before_its_record_is_cleared_fails_and_stays(
    tmp_path: Path,
) -> None:
    """With MAXUMSGS(4) a group of two with an attempt record (one earlier failure):
    its two gets and two puts fill the unit of work, and the get that clears its attempt
    record (under syncpoint, with the move) fails with MQRC_SYNCPOINT_LIMIT_REACHED
    (2024). That is a failed attempt, counted while the group is held and backed out
    (the puts do not stand), not the task's MQ error: the rules are asked again until
    RETRY(3) is spent, and the group stays whole on the DLQ, nothing on the target.
    IBM's 2024 page (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html):
    "An MQGET, MQPUT, or MQPUT1 call failed because it would have caused the number of
    uncommitted messages in the current unit of work to exceed the limit"."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.Q", {"MAXDEPTH": 10000})
    qm.admin().define_queue(STATUS, {"MAXDEPTH": 10000})
    group = [_member("E", s, 2) for s in (1, 2)]
    for m in group:
        qm.put1(DLQ, m, PutOptions(syncpoint=False, context="set_all"))
    out = io.StringIO()
    assert run_mqsc("ALTER QMGR MAXUMSGS(4)\n", qm.admin(), out, qmgr_name="QM1").ok
    store = AttemptStore(qm, STATUS)
    subject = group_subject(group[0].md.group_id)
    store.record_failure(subject, None, 1.0)
    ruleset = compile_rules("ACTION(FWD) FWDQ(APP.Q) HEADER(NO) RETRY(3)\n").ruleset
    assert ruleset is not None
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

    assert [o.outcome for o in outcomes] == ["failed", "failed"]  # its puts failed
    assert browse(qm, "APP.Q") == []
    assert sorted(m.md.msg_id for m in browse(qm, DLQ)) == sorted(m.md.msg_id for m in group)
    record = store.lookup(subject)
    assert record is not None
    assert record.attempts == 3
    store.close()
    q.close()
    qm.disconnect()
