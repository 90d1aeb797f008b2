"""The seeded backlog generator: deterministic, any size, the promised mix."""

from __future__ import annotations

import io
from collections import defaultdict
from datetime import datetime

import pytest

from dlqhandler.formats.backlog import generate_backlog, write_backlog
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from tests.formats.backlog_mix import EXPECTED_CATEGORIES, categories

CREATED = datetime(2024, 11, 21, 8, 0, 0)


def test_same_seed_same_messages_other_seed_others() -> None:
    """generate_backlog is a pure function of its arguments."""
    assert list(generate_backlog(60, seed=7)) == list(generate_backlog(60, seed=7))
    assert list(generate_backlog(60, seed=7)) != list(generate_backlog(60, seed=8))


@pytest.mark.parametrize("count", [0, 1, 2, 7, 93, 250])
def test_any_count(count: int) -> None:
    """Exactly ``count`` messages, even when a message group straddles the end."""
    assert sum(1 for _ in generate_backlog(count, seed=3)) == count


def test_negative_count_is_refused() -> None:
    """A negative count is a programming error."""
    with pytest.raises(ValueError, match="count"):
        list(generate_backlog(-1))


def test_every_category_appears_in_a_few_hundred_messages() -> None:
    """Reasons, reports, groups, expiry, EBCDIC/big-endian DLHs and no-DLH messages all occur."""
    for seed in (1, 2, 3):
        seen = categories(generate_backlog(300, seed=seed))
        assert EXPECTED_CATEGORIES - set(seen) == set(), seed


def test_msgids_are_unique_and_queue_manager_style() -> None:
    """Every MsgId is 24 bytes, unique, and starts 'AMQ ' (or EBCDIC 'CSQ ' from z/OS)."""
    messages = list(generate_backlog(500, seed=5))
    ids = [m.md.msg_id for m in messages]
    assert len(set(ids)) == len(ids)
    assert all(i[:4] in (b"AMQ ", "CSQ ".encode("cp500")) for i in ids)


def test_groups_are_complete_and_flagged() -> None:
    """Each group has MsgSeqNumber 1..n, MSG_IN_GROUP on all but the last, LAST on the last."""
    groups: dict[bytes, list[tuple[int, int]]] = defaultdict(list)
    for message in generate_backlog(400, seed=11):
        if message.md.group_id != bytes(24):
            groups[message.md.group_id].append((message.md.msg_seq_number, message.md.msg_flags))
    assert groups
    for members in groups.values():
        seqs = [seq for seq, _ in members]
        assert seqs == list(range(1, len(members) + 1))
        assert [flags for _, flags in members] == (
            [MQMF_MSG_IN_GROUP] * (len(members) - 1) + [MQMF_LAST_MSG_IN_GROUP]
        )


def test_put_dates_and_times_are_gmt_digits() -> None:
    """PutDate is YYYYMMDD and PutTime HHMMSSTH, in both the MQMD and the MQDLH."""
    for message in generate_backlog(100, seed=2):
        md = message.md
        assert len(md.put_date) == 8
        assert md.put_date.isdigit()
        assert len(md.put_time) == 8
        assert md.put_time.isdigit()
        if message.dlh is not None:
            assert (message.dlh.put_date + message.dlh.put_time).isdigit()


def test_write_backlog_streams_a_readable_dump() -> None:
    """write_backlog writes a dmpmqmsg file that reads back as the generated messages."""
    out = io.BytesIO()
    assert write_backlog(out, 120, seed=4, created=CREATED) == 120
    assert out.getvalue().startswith(
        b"* DMPMQMSG Version:9.4 Created:Thu Nov 21 08:00:00 2024\n"
        b"* Qmgr  = QM1\n* Queue = SYSTEM.DEAD.LETTER.QUEUE\n\n"
    )
    read = list(read_dump(io.BytesIO(out.getvalue())))
    assert [(m.md, m.body) for m in read] == [(m.md, m.body) for m in generate_backlog(120, seed=4)]
