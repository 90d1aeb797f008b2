"""Message groups and segments: logical order and MQGMO_ALL_MSGS_AVAILABLE."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.qmgr import GetOptions, PutOptions, Queue, QueueManager
from tests.qmgr.contract.conftest import Adapter, collect, text

NOW = PutOptions(syncpoint=False)
G1 = b"GROUP-ONE".ljust(24, b"\0")
G2 = b"GROUP-TWO".ljust(24, b"\0")
IN, LAST = MQMF_MSG_IN_GROUP, MQMF_LAST_MSG_IN_GROUP


def member(
    qm: QueueManager,
    body: str,
    gid: bytes,
    seq: int,
    flags: int,
    offset: int = 0,
    priority: int = 0,
) -> None:
    qm.put1(
        "APP.GRP",
        text(
            body,
            group_id=gid,
            msg_seq_number=seq,
            msg_flags=flags,
            offset=offset,
            priority=priority,
        ),
        NOW,
    )


def bodies(q: Queue, options: GetOptions) -> list[str]:
    return [m.body.decode() for m in collect(q, options)]


@pytest.fixture
def grp(adapter: Adapter) -> QueueManager:
    adapter.define_queue("APP.GRP", msgdlvsq="FIFO")
    return adapter.connect()


def test_logical_order_returns_groups_in_sequence(grp: QueueManager) -> None:
    """Out-of-order arrival: logical order gives 1, 2, 3 of the group, where its first
    member arrived, then the rest; physical order is arrival order."""
    member(grp, "g1-2", G1, 2, IN)
    grp.put1("APP.GRP", text("before"), NOW)
    member(grp, "g1-1", G1, 1, IN)
    grp.put1("APP.GRP", text("after"), NOW)
    member(grp, "g1-3", G1, 3, LAST)
    q = grp.open("APP.GRP")
    browse = [q.get(GetOptions(browse="first", logical_order=True, syncpoint=False)).body]
    browse += [
        m.encode()
        for m in bodies(q, GetOptions(browse="next", logical_order=True, syncpoint=False))
    ]
    assert browse == [b"before", b"g1-1", b"g1-2", b"g1-3", b"after"]
    physical = [q.get(GetOptions(browse="first", syncpoint=False)).body.decode()]
    physical += bodies(q, GetOptions(browse="next", syncpoint=False))
    assert physical == ["g1-2", "before", "g1-1", "after", "g1-3"]
    assert bodies(q, GetOptions(logical_order=True, syncpoint=False)) == [
        "before",
        "g1-1",
        "g1-2",
        "g1-3",
        "after",
    ]


def test_logical_order_waits_for_the_next_member(grp: QueueManager) -> None:
    """Inside a group, logical order returns only the next member (2033 until it comes)."""
    member(grp, "g1-1", G1, 1, IN)
    grp.put1("APP.GRP", text("other"), NOW)
    q = grp.open("APP.GRP")
    logical = GetOptions(logical_order=True, syncpoint=False)
    assert q.get(logical).body == b"g1-1"
    with pytest.raises(MQIError) as exc:
        q.get(logical)
    assert exc.value.reason == 2033
    member(grp, "g1-2", G1, 2, LAST)
    assert bodies(q, logical) == ["g1-2", "other"]


def test_segments_come_back_in_offset_order(grp: QueueManager) -> None:
    """Segments of a logical message are returned by Offset in logical order."""
    member(grp, "seg-b", G2, 1, LAST | MQMF_LAST_SEGMENT, offset=5)
    member(grp, "seg-a", G2, 1, LAST | MQMF_SEGMENT, offset=0)
    q = grp.open("APP.GRP")
    assert bodies(q, GetOptions(logical_order=True, syncpoint=False)) == ["seg-a", "seg-b"]


def test_all_msgs_available_waits_for_a_complete_group(grp: QueueManager) -> None:
    """ALL_MSGS_AVAILABLE returns a group's members only once the last member and every
    sequence number up to it are on the queue; other messages flow meanwhile."""
    member(grp, "g1-1", G1, 1, IN)
    member(grp, "g1-3", G1, 3, LAST)
    grp.put1("APP.GRP", text("loner"), NOW)
    q = grp.open("APP.GRP")
    complete = GetOptions(logical_order=True, all_msgs_available=True, syncpoint=False)
    assert q.get(complete).body == b"loner"
    with pytest.raises(MQIError) as exc:
        q.get(complete)
    assert exc.value.reason == 2033
    member(grp, "g1-2", G1, 2, IN)
    assert bodies(q, complete) == ["g1-1", "g1-2", "g1-3"]


def test_group_id_is_generated_for_the_first_member(grp: QueueManager) -> None:
    """A group member put without a GroupId gets a new unique one, reused for the rest."""
    first = grp.put1("APP.GRP", text("m1", msg_flags=IN, msg_seq_number=1), NOW)
    assert first.group_id != bytes(24)
    grp.put1("APP.GRP", text("m2", group_id=first.group_id, msg_flags=LAST, msg_seq_number=2), NOW)
    other = grp.put1("APP.GRP", text("x", msg_flags=LAST, msg_seq_number=1), NOW)
    assert other.group_id not in (first.group_id, bytes(24))
    q = grp.open("APP.GRP")
    got = bodies(q, GetOptions(group_id=first.group_id, logical_order=True, syncpoint=False))
    assert got == ["m1", "m2"]


def test_group_fields_round_trip(grp: QueueManager) -> None:
    """GroupId, MsgSeqNumber, Offset and MsgFlags come back as put."""
    member(grp, "seg", G1, 4, IN | MQMF_SEGMENT, offset=100)
    md = grp.open("APP.GRP").get(GetOptions(syncpoint=False)).md
    assert (md.group_id, md.msg_seq_number, md.offset, md.msg_flags) == (
        G1,
        4,
        100,
        IN | MQMF_SEGMENT,
    )
