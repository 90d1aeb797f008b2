"""The offline drain keeps a message group whole: when one member cannot be placed, no
member is written to a target file (a load would deliver the group with members missing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.dmpmqmsg import read_dump, write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP

pytestmark = pytest.mark.spark


def _group(gid: bytes, first_id: int, dests: list[str]) -> list[Message]:
    members = []
    for seq, dest in enumerate(dests, start=1):
        last = seq == len(dests)
        md = MQMD(
            format="MQSTR",
            msg_id=(first_id + seq).to_bytes(24, "big"),
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if last else MQMF_MSG_IN_GROUP,
        )
        members.append(
            Message.dead_letter(
                md, f"{gid[:1].decode()}{seq}".encode(), reason=2053, dest_q_name=dest
            )
        )
    return members


@pytest.mark.parametrize("catch_all", [None, "DLQ.CATCHALL"])
def test_a_group_with_a_member_that_cannot_be_placed_stays_whole(
    spark: Any, tmp_path: Path, catch_all: str | None
) -> None:
    """Group B's second member has a blank DestQName, so its RETRY has no valid target:
    as `dlqhandler run` leaves such a group on the DLQ whole (its unit of work backs out),
    none of B is written to q-APP.A: all three stay in remaining.dmp, or with --catch-all
    all three go to the catch-all file, headers kept, in input order. Group C lacks its
    second member in the input: it stays whole in remaining.dmp, catch-all or not (as
    --apply leaves a group not whole on the queue). Group A (all valid) and a message in
    no group are retried as before. IBM's "Grouping logical messages"
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/
    q026280_.html): a group is retrieved whole, "retrieve the entire group with the same
    getting application instance"."""
    single = Message.dead_letter(
        MQMD(format="MQSTR", msg_id=(99).to_bytes(24, "big")),
        b"S",
        reason=2053,
        dest_q_name="APP.A",
    )
    a = _group(b"A" * 24, 0, ["APP.A", "APP.A"])
    b = _group(b"B" * 24, 10, ["APP.A", " ", "APP.A"])
    c = _group(b"C" * 24, 20, ["APP.A", "APP.A", "APP.A"])
    src = tmp_path / "in.dmp"
    write_dump(src, [a[0], b[0], c[0], single, b[1], a[1], c[2], b[2]])  # c[1] missing
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]
    assert cli_main(argv + (["--catch-all", catch_all] if catch_all else [])) == 0

    assert [m.body for m in read_dump(out / "q-APP.A@LOCAL.dmp")] == [b"A1", b"S", b"A2"]
    remaining = [m.md.msg_id for m in read_dump(out / "remaining.dmp")]
    c_ids = [c[0].md.msg_id, c[2].md.msg_id]  # not whole: stays, even with a catch-all
    if catch_all is None:
        in_order = [b[0], c[0], b[1], c[2], b[2]]  # input order
        assert remaining == [m.md.msg_id for m in in_order]
    else:
        assert remaining == c_ids
        caught = list(read_dump(out / f"q-{catch_all}@LOCAL.dmp"))
        assert [m.md.msg_id for m in caught] == [m.md.msg_id for m in b]
        assert all(m.md.format == "MQDEAD" for m in caught)  # with their dead-letter headers
    totals = json.loads((out / "manifest.json").read_text())["totals"]
    assert totals["retried"] == 3
    assert (totals["remaining"], totals["catch_all"]) == ((5, 0) if catch_all is None else (2, 3))
