"""Expiry and message groups."""

from __future__ import annotations

import time

from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from tests.worker.helpers import DLQ, RunCli, browse, dead_letter, define, load


def test_expired_messages_are_not_forwarded_and_expiry_keeps_counting(
    qm, ledger, run_cli: RunCli
) -> None:
    """A message that expired on the DLQ is never forwarded (the queue manager discards
    it); a forwarded or retried one carries its remaining Expiry, smaller than the
    original, which keeps counting down at the target (seed 001, note 7)."""
    define(qm, "CATCH", "APP.Q")
    expiring = dead_letter("short-lived", expiry=5, reason=2085, tag="EXPIRING")
    lasting = dead_letter("long-lived", expiry=6000, reason=2085, tag="LASTING")
    near = dead_letter("nearly gone", expiry=40, reason=2085, tag="NEAR")
    retried = dead_letter("retried", expiry=6000, reason=2053, destq="APP.Q", tag="RETRIED")
    load(qm, [expiring, lasting, near, retried])
    book = ledger()
    time.sleep(0.8)

    run = run_cli(
        "RETRYINT(0) WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(CATCH)\n"
    )

    assert run.rc == 0, run.err
    placed = book.check(["CATCH", "APP.Q"], discarded=[expiring.md.msg_id])
    expiry = {m.md.msg_id: m.md.expiry for q in ("CATCH", "APP.Q") for m in placed[q]}
    assert 0 < expiry[lasting.md.msg_id] <= 6000 - 8
    assert 0 < expiry[retried.md.msg_id] <= 6000 - 8
    assert 0 < expiry[near.md.msg_id] <= 40 - 8
    about = [e for e in run.logs if e.get("msgid") == expiring.md.msg_id.hex()]
    assert [(e["logger"], e["event"]) for e in about] == [("qmgr", "message_expired")]
    time.sleep(0.3)
    [later] = [m for m in browse(qm, "CATCH") if m.md.msg_id == lasting.md.msg_id]
    assert later.md.expiry < expiry[lasting.md.msg_id]


def _group(
    tag: str, destqs: list[str], *, reason: int = 2053, present: list[int] | None = None
) -> list:
    gid = f"GROUP {tag}".encode().ljust(24, b"\x00")
    out = []
    for seq, destq in enumerate(destqs, start=1):
        flags = MQMF_LAST_MSG_IN_GROUP if seq == len(destqs) else MQMF_MSG_IN_GROUP
        if present is None or seq in present:
            out.append(
                dead_letter(
                    f"{tag} member {seq}",
                    reason=reason,
                    destq=destq,
                    tag=f"{tag}{seq}",
                    group_id=gid,
                    msg_seq_number=seq,
                    msg_flags=flags,
                )
            )
    return out


GROUPS = """\
RETRYINT(0) WAIT(NO)
DESTQ(KEEP) ACTION(IGNORE)
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(2)
ACTION(FWD) FWDQ(CATCH)
"""


def test_groups_move_whole_in_logical_order_or_not_at_all(qm, ledger, run_cli: RunCli) -> None:
    """A group arriving out of order is retried whole, in logical order. A group with a
    member whose put fails is never split: it stays whole on the DLQ, its one attempt
    count goes up, and after RETRY(2) the whole group falls through to the catch-all. An
    incomplete group, or one with a member the rules IGNORE, is left whole; a segmented
    message moves as one."""
    define(qm, "APP.GRP", "CATCH")
    define(qm, "APP.BAD", put="DISABLED")
    good = _group("GOOD", ["APP.GRP"] * 4)
    failing = _group("FAILING", ["APP.GRP", "APP.BAD", "APP.GRP"])
    partial = _group("PARTIAL", ["APP.GRP"] * 3, present=[1, 3])
    ignored = _group("IGNORED", ["APP.GRP", "KEEP"])
    seg_gid = b"SEGMENTED".ljust(24, b"\x00")
    segments = [
        dead_letter(
            b"A" * 10,
            destq="APP.GRP",
            tag="SEG1",
            group_id=seg_gid,
            msg_flags=MQMF_SEGMENT,
            offset=0,
        ),
        dead_letter(
            b"B" * 5,
            destq="APP.GRP",
            tag="SEG2",
            group_id=seg_gid,
            msg_flags=MQMF_LAST_SEGMENT,
            offset=10,
        ),
    ]
    single = dead_letter("single", reason=2085, tag="SINGLE")
    # physical order differs from logical order
    load(
        qm,
        [
            good[2],
            failing[2],
            single,
            good[0],
            ignored[1],
            segments[1],
            partial[1],
            good[3],
            failing[0],
            ignored[0],
            partial[0],
            segments[0],
            good[1],
            failing[1],
        ],
    )
    book = ledger()

    run = run_cli(GROUPS)

    assert run.rc == 0, run.err
    placed = book.check(["APP.GRP", "APP.BAD", "CATCH"])
    on = {q: [m.md.msg_id for m in ms] for q, ms in placed.items()}
    ids = lambda ms: [m.md.msg_id for m in ms]  # noqa: E731
    assert [i for i in on["APP.GRP"] if i in ids(good)] == ids(good)
    assert [i for i in on["APP.GRP"] if i in ids(segments)] == ids(segments)
    assert [i for i in on["CATCH"] if i in ids(failing)] == ids(failing)
    assert not set(ids(failing)) & set(on["APP.GRP"])
    assert set(ids(partial) + ids(ignored)) == set(on[DLQ])
    assert book.where(single) == "CATCH"
    failed = run.events("group_failed")
    assert [e["attempts"] for e in failed] == [1, 2]
    assert {e["failed_msgid"] for e in failed} == {failing[1].md.msg_id.hex()}
    assert len(run.events("group_moved")) == 3
    assert run.events("group_incomplete")[0]["present"] == 2
