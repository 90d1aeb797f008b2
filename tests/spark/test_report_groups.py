"""The report predicts what the drain does with message groups and segmented messages: a
unit with a member missing, or a member no rule places, is kept whole on the DLQ (or, whole
and with a catch-all, sent whole to it), so its members do not move as their rules say.
The SQL rule that decides whether a unit is whole (:func:`dlqhandler.spark.units.unit_whole`)
is held to :func:`dlqhandler.mq.groups.is_complete`, the rule `run` and `--apply` follow.

IBM, "Message groups" (https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/
q023060_.html): "Logical messages within a group are identified by the GroupId and
MsgSeqNumber fields. The MsgSeqNumber starts at 1", and a segment's Offset starts at 0 for
the first segment of the message; "GroupId (MQBYTE24)" (https://www.ibm.com/docs/en/
SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097530_.html): with none of the group or segment flags
set, "GroupId has the special null value MQGI_NONE" (such a message is in no group).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.mq.groups import in_group, is_complete
from dlqhandler.spark.units import part, unit_whole

pytestmark = pytest.mark.spark

_MSG_ID = iter(range(1, 1 << 30))


def _member(
    gid: bytes,
    seq: int,
    flags: int,
    *,
    offset: int = 0,
    data: bytes = b"x",
    reason: int = 2053,
    dest: str = "APP.A",
) -> Message:
    md = MQMD(
        format="MQSTR",
        msg_id=next(_MSG_ID).to_bytes(24, "big"),
        group_id=gid,
        msg_seq_number=seq,
        offset=offset,
        msg_flags=flags,
    )
    return Message.dead_letter(md, data, reason=reason, dest_q_name=dest)


def _group(gid: bytes, dests: list[str], *, reason: int = 2053) -> list[Message]:
    n = len(dests)
    return [
        _member(
            gid,
            seq,
            MQMF_LAST_MSG_IN_GROUP if seq == n else MQMF_MSG_IN_GROUP,
            reason=reason,
            dest=dest,
        )
        for seq, dest in enumerate(dests, start=1)
    ]


def _segmented(gid: bytes, sizes: list[int], *, gap: bool = False) -> list[Message]:
    """One logical message outside a group, in segments of ``sizes`` bytes (a gap: the
    second segment's Offset one too far)."""
    out, offset = [], 0
    for i, size in enumerate(sizes):
        last = i == len(sizes) - 1
        flags = MQMF_LAST_SEGMENT if last else MQMF_SEGMENT
        at = offset + (1 if gap and i == 1 else 0)
        out.append(_member(gid, 1, flags, offset=at, data=bytes(size)))
        offset += size
    return out


def _backlog(path: Path) -> None:
    """Groups whole and placed, one with a member the table ignores (2035), one with a
    member whose target is not a valid name, one with a member missing, segmented messages
    whole and with a gap, and messages in no group."""
    lone = [
        Message.dead_letter(
            MQMD(format="MQSTR", msg_id=next(_MSG_ID).to_bytes(24, "big")),
            b"S",
            reason=2053,
            dest_q_name="APP.A",
        )
        for _ in range(3)
    ]
    whole = _group(b"A" * 24, ["APP.A", "APP.B", "APP.A"])
    ignored = _group(b"B" * 24, ["APP.A", "APP.A"])
    ignored[1] = _member(b"B" * 24, 2, MQMF_LAST_MSG_IN_GROUP, reason=2035)
    invalid = _group(b"C" * 24, ["APP.A", "BAD NAME", "APP.A"])
    missing = _group(b"D" * 24, ["APP.A", "APP.A", "APP.A", "APP.A"])
    del missing[2]
    seg_whole = _segmented(b"E" * 24, [5, 7, 3])
    seg_gap = _segmented(b"F" * 24, [4, 4, 4], gap=True)
    messages = [*lone, *whole, *ignored, *invalid, *missing, *seg_whole, *seg_gap]
    random.Random(7).shuffle(messages)
    write_dump(path, messages)


def _run(tmp_path: Path, table: str, *extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    dump, rules = tmp_path / "in.dmp", tmp_path / "t.rul"
    _backlog(dump)
    rules.write_text(table)
    common = ["--input", str(dump), "--rules", str(rules), *extra]
    assert main(["report", *common, "--output", str(tmp_path / "report")]) == 0
    assert main(["drain", *common, "--output", str(tmp_path / "drain")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text())["rules"]
    return report, json.loads((tmp_path / "drain" / "manifest.json").read_text())["totals"]


_TABLE = "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\nREASON(2035) ACTION(IGNORE)\n"


def test_groups_the_drain_keeps_whole_are_reported_left(spark: Any, tmp_path: Path) -> None:
    """Without a catch-all, the report counts on the DLQ exactly the members the drain
    leaves in remaining.dmp: groups B (a member ignored), C (a member with no valid
    target) and D (a member missing) and segmented message F (a gap), whole; not group A
    nor segmented message E, which are whole and placed."""
    report, totals = _run(tmp_path, _TABLE)
    kept = 2 + 3 + 3 + 3  # B, C, D (three of four), F
    assert report["left_on_dlq_by_cause"]["group"] == kept
    assert report["left_on_dlq"] == kept == totals["remaining"]
    assert report["unplaceable"] == 0  # C's bad member counts with its group
    assert totals["retried"] == 3 + 3 + 3  # the lone messages, A, E
    assert totals["unplaceable"] == 1  # C's member: its own target is not valid


def test_with_a_catch_all_whole_groups_go_there_and_others_stay(spark: Any, tmp_path: Path) -> None:
    """With --catch-all, a whole group with a member not placed (B, C) goes whole to the
    catch-all, as the drain sends it; one not whole (D, F) stays, catch-all or not."""
    report, totals = _run(tmp_path, _TABLE, "--catch-all", "HOLD.ALL")
    caught = report["catch_all"]
    assert caught["by_cause"]["group"] == 2 + 3
    assert caught["count"] == totals["catch_all"] == 5
    assert report["left_on_dlq_by_cause"]["group"] == 3 + 3
    assert report["left_on_dlq"] == totals["remaining"] == 6


def test_a_change_of_group_fate_is_a_change(spark: Any, tmp_path: Path) -> None:
    """--compare: a table that no longer ignores 2035 lets group B move; its members'
    rules did not change for the first member, yet its fate did, and the report says so
    (``group`` on each side of the transition)."""
    dump, old = tmp_path / "in.dmp", tmp_path / "old.rul"
    _backlog(dump)
    old.write_text(_TABLE)
    new = tmp_path / "new.rul"
    new.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\nREASON(2035) ACTION(DISCARD)\n")
    out = tmp_path / "report"
    argv = ["report", "--input", str(dump), "--rules", str(new), "--compare", str(old)]
    assert main([*argv, "--output", str(out)]) == 0
    compare = json.loads((out / "report.json").read_text())["compare"]
    moves = [t for t in compare["transitions"] if t["old"]["group"] == "kept"]
    assert sum(t["count"] for t in moves) == 2
    assert {t["new"]["group"] for t in moves} == {None}
    first = next(t for t in moves if t["old"]["action"] == "RETRY")
    assert first["old"]["queue"] == first["new"]["queue"] == "APP.A"
    assert len(first["samples"]) == 1
    assert compare["changed"] == 2


def _random_unit(rng: random.Random) -> list[Message]:
    """A group or segmented message, often not whole: a member dropped or doubled, a
    number or Offset off by one, a flag missing."""
    gid = rng.randbytes(24)
    members: list[Message] = []
    grouped = rng.random() < 0.7
    n = rng.randint(1, 4) if grouped else 1
    for seq in range(1, n + 1):
        sizes = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))] if rng.random() < 0.4 else []
        group_flag = (MQMF_LAST_MSG_IN_GROUP if seq == n else MQMF_MSG_IN_GROUP) if grouped else 0
        if not sizes:
            members.append(_member(gid, seq, group_flag or MQMF_SEGMENT | MQMF_LAST_SEGMENT))
            continue
        offset = 0
        for i, size in enumerate(sizes):
            seg = MQMF_LAST_SEGMENT if i == len(sizes) - 1 else MQMF_SEGMENT
            members.append(_member(gid, seq, group_flag | seg, offset=offset, data=bytes(size)))
            offset += size
    flaw = rng.randrange(6)
    if flaw == 1 and len(members) > 1:
        del members[rng.randrange(len(members))]
    elif flaw == 2:
        members.append(members[rng.randrange(len(members))])
    elif flaw in (3, 4, 5):
        i = rng.randrange(len(members))
        md = members[i].md
        if flaw == 3:
            md = dataclasses.replace(md, msg_seq_number=md.msg_seq_number + rng.choice((-1, 1)))
        elif flaw == 4:
            md = dataclasses.replace(md, offset=md.offset + 1)
        else:
            lost = rng.choice((MQMF_LAST_MSG_IN_GROUP, MQMF_LAST_SEGMENT))
            md = dataclasses.replace(md, msg_flags=md.msg_flags & ~lost)
        members[i] = dataclasses.replace(members[i], md=md)
    return members


def test_unit_whole_is_is_complete(spark: Any) -> None:
    from pyspark.sql import functions as F

    """On 400 random units, whole and flawed, the SQL rule says whole exactly when
    :func:`dlqhandler.mq.groups.is_complete` does. (Segments have data: with two empty
    segments at one Offset, is_complete's answer would depend on the order they came.)"""
    rng = random.Random(37)
    units = [_random_unit(rng) for _ in range(400)]
    expected = [is_complete(u) for u in units]
    assert 50 < sum(expected) < 350  # both kinds, in numbers
    rows = [
        (i, m.md.msg_seq_number, m.md.offset, len(m.payload), m.md.msg_flags)
        for i, unit in enumerate(units)
        for m in unit
    ]
    frame = spark.createDataFrame(rows, "unit INT, seq INT, off BIGINT, len BIGINT, flags INT")
    member = part("seq", "off", "len", "flags")
    units_sql = (
        frame.selectExpr("unit", f"{member} AS p")
        .groupBy("unit")
        .agg(F.expr("array_sort(collect_list(p))").alias("parts"))
        .selectExpr("unit", f"{unit_whole('parts')} AS whole")
    )
    got = {r["unit"]: r["whole"] for r in units_sql.collect()}
    assert [got[i] for i in range(len(units))] == expected


def test_random_units_report_and_drain_agree_with_is_complete(spark: Any, tmp_path: Path) -> None:
    """300 random groups and segmented messages, whole and flawed (a member missing or
    twice, a number or Offset off by one, a LAST flag lost), shuffled, every member
    retried by the table: the report leaves on the DLQ exactly the members of the units
    :func:`is_complete` finds not whole, and so does the drain (remaining.dmp). A message
    that lost its only group flag is in no group, whatever its GroupId (``run`` moves it
    on its own: mq.groups.in_unit), so the drain moves it too."""
    rng = random.Random(2026)
    units = [_random_unit(rng) for _ in range(300)]
    messages = [m for unit in units for m in unit]
    rng.shuffle(messages)
    dump, rules = tmp_path / "in.dmp", tmp_path / "t.rul"
    write_dump(dump, messages)
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n")
    common = ["--input", str(dump), "--rules", str(rules)]
    assert main(["report", *common, "--output", str(tmp_path / "report")]) == 0
    assert main(["drain", *common, "--output", str(tmp_path / "drain")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text())["rules"]
    totals = json.loads((tmp_path / "drain" / "manifest.json").read_text())["totals"]
    # a unit's members, as MQ tells them (a message that lost its only flag is in none)
    members = [[m for m in u if in_group(m.md)] for u in units]
    broken = sum(len(u) for u in members if u and not is_complete(u))
    assert 100 < broken < len(messages) - 100
    assert report["left_on_dlq_by_cause"]["group"] == broken == report["left_on_dlq"]
    assert totals["remaining"] == broken
