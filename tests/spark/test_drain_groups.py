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
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)

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


def test_a_dry_run_counts_the_group_kept_whole(spark: Any, tmp_path: Path) -> None:
    """--dry-run writes no dump but its audit and totals say what the drain would do:
    group B (a member without a valid target) stays whole, as the drain writes it.
    IBM's "Grouping logical messages" (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    "retrieve the entire group with the same getting application instance"."""
    a = _group(b"A" * 24, 0, ["APP.A", "APP.A"])
    b = _group(b"B" * 24, 10, ["APP.A", " ", "APP.A"])
    src = tmp_path / "in.dmp"
    write_dump(src, [a[0], b[0], b[1], a[1], b[2]])
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]
    assert cli_main([*argv, "--dry-run"]) == 0
    totals = json.loads((out / "manifest.json").read_text())["totals"]
    assert (totals["retried"], totals["remaining"]) == (2, 3)
    import pyarrow.parquet as pq

    audit = pq.read_table(out / "audit").to_pylist()
    assert sorted(r["disposition"] for r in audit if r["groupid"]) == ["REMAIN"] * 3 + ["RETRY"] * 2


def test_only_a_split_group_makes_the_drain_write_again(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writers track the groups as they write (no second job over the audit); only a
    split group makes the drain write again (reading the input a second time): a backlog
    without groups, or with groups whole and placed, is read once, its files as they
    would be without groups.
    IBM's "Grouping logical messages" (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    a group is retrieved whole."""
    import dlqhandler.spark.drain.job as job

    rewritten: list[int] = []
    real_whole = job._keep_groups_whole

    def whole(frame: Any, groups: Any, catch_all: str | None) -> Any:
        rewritten.append(1)
        return real_whole(frame, groups, catch_all)

    monkeypatch.setattr(job, "_keep_groups_whole", whole)
    monkeypatch.setattr(job, "_split_groups", None)  # the offline drain reads no audit back
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
    singles = [
        Message.dead_letter(
            MQMD(format="MQSTR", msg_id=i.to_bytes(24, "big")),
            b"S%d" % i,
            reason=2053,
            dest_q_name="APP.A",
        )
        for i in range(1, 4)
    ]
    placed = _group(b"W" * 24, 10, ["APP.A", "APP.A"])
    unplaced = _group(b"B" * 24, 20, ["APP.A", " "])
    bodies = [b"S1", b"S2", b"S3"]
    for name, messages, calls, expected in (
        ("none", singles, 0, bodies),
        ("whole", [*singles, *placed], 0, [*bodies, b"W1", b"W2"]),
        ("split", [*singles, *unplaced], 1, bodies),
    ):
        src, out = tmp_path / f"{name}.dmp", tmp_path / f"out-{name}"
        write_dump(src, messages)
        argv = ["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]
        assert cli_main(argv) == 0
        assert len(rewritten) == calls, name
        assert [m.body for m in read_dump(out / "q-APP.A@LOCAL.dmp")] == expected


_SHAPES = {
    "whole": [(1, MQMF_MSG_IN_GROUP), (2, MQMF_MSG_IN_GROUP), (3, MQMF_LAST_MSG_IN_GROUP)],
    "one": [(1, MQMF_LAST_MSG_IN_GROUP)],
    "missing": [(1, MQMF_MSG_IN_GROUP), (3, MQMF_LAST_MSG_IN_GROUP)],
    "twice": [
        (1, MQMF_MSG_IN_GROUP),
        (2, MQMF_MSG_IN_GROUP),
        (2, MQMF_MSG_IN_GROUP),
        (3, MQMF_LAST_MSG_IN_GROUP),
    ],
    "two_lasts": [(1, MQMF_MSG_IN_GROUP), (2, MQMF_LAST_MSG_IN_GROUP), (2, MQMF_LAST_MSG_IN_GROUP)],
    "no_last": [(1, MQMF_MSG_IN_GROUP), (2, MQMF_MSG_IN_GROUP)],
    "zero": [(0, MQMF_MSG_IN_GROUP), (1, MQMF_LAST_MSG_IN_GROUP)],
    "stray": [(1, MQMF_MSG_IN_GROUP), (2_000_000_000, MQMF_LAST_MSG_IN_GROUP)],
    "unordered": [(3, MQMF_LAST_MSG_IN_GROUP), (1, MQMF_MSG_IN_GROUP), (2, MQMF_MSG_IN_GROUP)],
}


@pytest.mark.parametrize("split_bytes", [1 << 10, 128 << 20])
def test_the_writers_find_the_groups_run_finds_split(
    spark: Any, tmp_path: Path, split_bytes: int
) -> None:
    """Every member of a group that `run` would not take whole (not whole in the input, as
    dlqhandler.mq.groups.is_complete tells, or a member without a valid target) stays on
    the DLQ, and every other member is retried, whether the group's members are read by
    one task or by several (1 KB splits: a task a message or two), segmented messages
    among them (one whole, one with a gap between its Offsets, a group with a segmented
    message and another missing). A group whole in each of two places of the backlog
    (the same GroupId twice) is not whole: six members for a group of three. IBM's
    "Grouping logical messages" (https://www.ibm.com/support/knowledgecenter/en/
    SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html): the messages of a group have sequence
    numbers from 1, the last one flagged MQMF_LAST_MSG_IN_GROUP."""
    from dlqhandler.mq.groups import is_complete
    from dlqhandler.rules.compiler import compile_rules
    from dlqhandler.spark.drain.job import DrainConfig, run_drain

    groups: dict[str, list[Message]] = {}
    for i, (name, members) in enumerate(_SHAPES.items()):
        groups[name] = [
            Message.dead_letter(
                MQMD(
                    format="MQSTR",
                    msg_id=(100 * i + j).to_bytes(24, "big"),
                    group_id=bytes([i + 1]) * 24,
                    msg_seq_number=seq,
                    msg_flags=flags,
                ),
                b"%s-%d" % (name.encode(), j),
                reason=2053,
                dest_q_name="APP.A",
            )
            for j, (seq, flags) in enumerate(members)
        ]
    groups["unplaced"] = _group(b"U" * 24, 900, ["APP.A", " ", "APP.A"])
    seg, last = MQMF_SEGMENT, MQMF_LAST_SEGMENT
    gap = _segments(b"X" * 24, 1000, [(1, seg, b"x1-"), (1, seg, b"x2-"), (1, last, b"x3")])
    groups["gap"] = [gap[0], gap[2]]
    groups["segmented"] = _segments(b"Z" * 24, 1010, [(1, seg, b"z1-"), (1, last, b"z2")])
    groups["segments_and_missing"] = _segments(
        b"V" * 24,
        1020,
        [
            (1, MQMF_MSG_IN_GROUP | seg, b"v1-"),
            (1, MQMF_MSG_IN_GROUP | last, b"v1"),
            (3, MQMF_LAST_MSG_IN_GROUP, b"v3"),
        ],
    )
    copy = _group(b"D" * 24, 950, ["APP.A", "APP.A", "APP.A"])
    messages = [m for g in groups.values() for m in g]
    messages = [*copy, *messages[: len(messages) // 2], *copy, *messages[len(messages) // 2 :]]
    groups["copied"] = [*copy, *copy]
    stays = {
        m.md.msg_id
        for name, g in groups.items()
        if name == "unplaced" or not is_complete(g)
        for m in g
    }
    kept = ("whole", "one", "unordered", "segmented")
    whole = {m.md.msg_id for name in kept for m in groups[name]}
    assert stays.isdisjoint(whole)
    assert len(stays) == len({m.md.msg_id for m in messages}) - len(whole)
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n").ruleset
    assert ruleset is not None
    out = tmp_path / "out"
    run_drain(spark, ruleset, DrainConfig(output=out, inputs=(str(src),), split_bytes=split_bytes))

    remaining = [m.md.msg_id for m in read_dump(out / "remaining.dmp")]
    retried = [m.md.msg_id for m in read_dump(out / "q-APP.A@LOCAL.dmp")]
    assert set(remaining) == stays
    assert len(remaining) == sum(m.md.msg_id in stays for m in messages)
    assert sorted(remaining + retried) == sorted(m.md.msg_id for m in messages)


def test_a_group_is_whole_in_the_audit_as_run_finds_it_whole(spark: Any) -> None:
    """The drain's test of a group found whole in its audit agrees with the one `run` and
    --apply use (dlqhandler.mq.groups.is_complete) on groups with a member missing, one
    twice, two last members, none, a sequence number 0 and a stray huge one. IBM's
    "Grouping logical messages": the messages of a group have sequence numbers from 1,
    the last one flagged MQMF_LAST_MSG_IN_GROUP."""
    from dlqhandler.mq.groups import is_complete
    from dlqhandler.spark.drain.job import _split_groups

    rows, expected = [], {}
    for i, members in enumerate(_SHAPES.values()):
        gid = bytes([i + 1]) * 24
        messages = [
            Message(MQMD(group_id=gid, msg_seq_number=seq, msg_flags=flags), b"x")
            for seq, flags in members
        ]
        expected[gid.hex().upper()] = is_complete(messages)
        rows += [(gid.hex().upper(), flags, seq, "FWD", None) for seq, flags in members]
    audit = spark.createDataFrame(
        rows, "groupid string, msgflags int, msgseqnumber int, disposition string, error string"
    )
    split = {r["groupid"]: r["whole"] for r in _split_groups(audit)}
    found = {gid: split.get(gid, True) for gid in expected}
    assert found == expected
    assert sum(expected.values()) == 3  # whole, one, unordered


def _segments(
    gid: bytes, first_id: int, parts: list[tuple[int, int, bytes]], dest: str = "APP.A"
) -> list[Message]:
    """Dead-lettered physical messages of ``gid``: (MsgSeqNumber, MsgFlags, data) each,
    their Offsets the data before them in the same logical message."""
    members, offsets = [], {}
    for i, (seq, flags, data) in enumerate(parts, start=1):
        offset = offsets.get(seq, 0)
        offsets[seq] = offset + len(data)
        md = MQMD(
            format="MQSTR",
            msg_id=(first_id + i).to_bytes(24, "big"),
            group_id=gid,
            msg_seq_number=seq,
            offset=offset,
            msg_flags=flags,
        )
        members.append(Message.dead_letter(md, data, reason=2053, dest_q_name=dest))
    return members


@pytest.mark.parametrize("catch_all", [None, "DLQ.CATCHALL"])
def test_a_segmented_message_with_a_segment_missing_stays_whole(
    spark: Any, tmp_path: Path, catch_all: str | None
) -> None:
    """A segmented message is one logical message: a queue manager gives it whole
    (MQGMO_COMPLETE_MSG) only when every segment is there, from Offset 0 without a gap
    to the segment flagged MQMF_LAST_SEGMENT. IBM's "MsgFlags (MQLONG)"
    (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097540_.html):
    segments are "placed on the queue as a separate physical message" and the getter
    can "request the queue manager to reassemble the segments into a single message";
    "Offset (MQLONG)" (.../q097580_.html): "the offset in bytes of the data in the
    physical message from the start of the logical message". So the offline drain
    leaves in remaining.dmp, catch-all or not (as --apply leaves it on the queue), a
    segmented message with a gap between its Offsets (X), one without its last segment
    (Y), and a group whose logical message 2 is missing while message 1 is segmented
    (V); a whole segmented message (Z) is retried, its segments in input order."""
    seg, last = MQMF_SEGMENT, MQMF_LAST_SEGMENT
    x = _segments(b"X" * 24, 0, [(1, seg, b"x1-"), (1, seg, b"x2-"), (1, last, b"x3")])
    del x[1]  # a gap: Offsets 0 and 6, the first 3 bytes long
    y = _segments(b"Y" * 24, 10, [(1, seg, b"y1-"), (1, seg, b"y2-")])  # no last segment
    z = _segments(b"Z" * 24, 20, [(1, seg, b"z1-"), (1, last, b"z2")])
    v = _segments(
        b"V" * 24,
        30,
        [
            (1, MQMF_MSG_IN_GROUP | seg, b"v1-"),
            (1, MQMF_MSG_IN_GROUP | last, b"v1"),
            (3, MQMF_LAST_MSG_IN_GROUP, b"v3"),  # logical message 2 missing
        ],
    )
    src = tmp_path / "in.dmp"
    write_dump(src, [x[0], z[0], y[0], v[0], x[1], z[1], y[1], v[1], v[2]])
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(1)\n")
    out = tmp_path / "out"
    argv = ["drain", "--rules", str(rules), "--input", str(src), "--output", str(out)]
    assert cli_main(argv + (["--catch-all", catch_all] if catch_all else [])) == 0

    assert [m.body for m in read_dump(out / "q-APP.A@LOCAL.dmp")] == [b"z1-", b"z2"]
    remaining = [m.md.msg_id for m in read_dump(out / "remaining.dmp")]
    assert remaining == [m.md.msg_id for m in (x[0], y[0], v[0], x[1], y[1], v[1], v[2])]
    if catch_all is not None:
        assert not (out / f"q-{catch_all}@LOCAL.dmp").exists()
