"""MQPMO_LOGICAL_ORDER: the queue manager numbers groups and segments per queue handle.

IBM, GroupId (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097530_.html):
"If MQPMO_LOGICAL_ORDER is specified, the queue manager automatically generates a unique
group identifier for the first message in the group or segment of the logical message, and
uses that group identifier for the remaining messages in the group".
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.qmgr import GetOptions, PutOptions, Queue
from tests.qmgr.contract.conftest import Adapter, collect, text

LOGICAL = PutOptions(syncpoint=False, context="default", logical_order=True)
IN, LAST = MQMF_MSG_IN_GROUP, MQMF_LAST_MSG_IN_GROUP
SEG, LAST_SEG = MQMF_SEGMENT, MQMF_LAST_SEGMENT
COMPLETE = GetOptions(logical_order=True, all_msgs_available=True, syncpoint=False)


@pytest.fixture
def out(adapter: Adapter) -> Queue:
    adapter.define_queue("APP.LOG", msgdlvsq="FIFO", defpsist="NO")
    return adapter.connect().open("APP.LOG", input=False, browse=False, output=True)


def _depth(adapter: Adapter) -> int:
    return adapter.connect().inquire_queue("APP.LOG").curdepth


def _fails(call: object, reason: int) -> None:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    assert exc.value.reason == reason


def test_logical_order_numbers_a_group(adapter: Adapter, out: Queue) -> None:
    """Three puts flagged IN, IN, LAST with MQPMO_LOGICAL_ORDER get one new GroupId and
    MsgSeqNumber 1, 2, 3; the next group gets another GroupId; a getter in logical order
    with MQGMO_ALL_MSGS_AVAILABLE receives the group whole and in order.
    IBM, MsgSeqNumber (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097560_.html):
    "Sequence numbers start at 1, and increase by 1 for each new logical message in the
    group"; the application "does not have to set this field on the MQPUT ... if ...
    MQPMO_LOGICAL_ORDER is specified"."""
    # (stale ids in the MQMD are ignored: the queue manager sets them)
    mds = [
        out.put(text(f"m{i}", msg_flags=f, group_id=b"X" * 24, msg_seq_number=9), LOGICAL)
        for i, f in enumerate((IN, IN, LAST), 1)
    ]
    group = mds[0].group_id
    assert group not in (bytes(24), b"X" * 24)
    assert [(m.group_id, m.msg_seq_number, m.offset) for m in mds] == [
        (group, 1, 0),
        (group, 2, 0),
        (group, 3, 0),
    ]
    second = out.put(text("n1", msg_flags=LAST), LOGICAL)
    assert second.group_id not in (group, bytes(24))
    assert second.msg_seq_number == 1
    plain = out.put(text("plain"), LOGICAL)
    assert (plain.group_id, plain.msg_seq_number, plain.offset) == (bytes(24), 1, 0)
    got = collect(adapter.connect().open("APP.LOG"), COMPLETE)
    assert [(m.body, m.md.group_id, m.md.msg_seq_number) for m in got] == [
        (b"m1", group, 1),
        (b"m2", group, 2),
        (b"m3", group, 3),
        (b"n1", second.group_id, 1),
        (b"plain", bytes(24), 1),
    ]


def test_logical_order_numbers_segments(adapter: Adapter, out: Queue) -> None:
    """Segments put in logical order: Offset is where each starts in its logical message
    (0, 2 for "ab" + "cde"), the group's next logical message is MsgSeqNumber 2 at Offset 0.
    IBM, Offset (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097580_.html):
    "This is the offset in bytes of the data in the physical message from the start of the
    logical message of which the data forms part"."""
    puts = [("ab", IN | SEG), ("cde", IN | LAST_SEG), ("z", LAST)]
    mds = [out.put(text(b, msg_flags=f), LOGICAL) for b, f in puts]
    group = mds[0].group_id
    assert [(m.group_id, m.msg_seq_number, m.offset) for m in mds] == [
        (group, 1, 0),
        (group, 1, 2),
        (group, 2, 0),
    ]
    got = collect(adapter.connect().open("APP.LOG"), COMPLETE)
    assert [(m.body, m.md.offset) for m in got] == [(b"ab", 0), (b"cde", 2), (b"z", 0)]


def test_all_msgs_available_holds_back_an_unfinished_logical_group(
    adapter: Adapter, out: Queue
) -> None:
    """A group put in logical order is not got with MQGMO_ALL_MSGS_AVAILABLE until its
    MQMF_LAST_MSG_IN_GROUP message is there; then all of it is.
    IBM, Application segmentation of logical messages
    (https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q026400_.htm): "no messages or
    segments of a group are retrieved until the entire group is available"."""
    out.put(text("a", msg_flags=IN), LOGICAL)
    out.put(text("b", msg_flags=IN), LOGICAL)
    q = adapter.connect().open("APP.LOG")
    _fails(lambda: q.get(COMPLETE), 2033)
    out.put(text("c", msg_flags=LAST), LOGICAL)
    assert [m.body for m in collect(q, COMPLETE)] == [b"a", b"b", b"c"]


def test_a_message_outside_an_unfinished_group_is_2241(adapter: Adapter, out: Queue) -> None:
    """With a group unfinished on the handle, a logical-order put of a message in no group
    fails with MQRC_INCOMPLETE_GROUP and puts nothing; the group then carries on.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQPUT call, when the application specifies MQPMO_LOGICAL_ORDER and attempts to put a
    message that is not in a group. The completion code is MQCC_FAILED"."""
    first = out.put(text("a", msg_flags=IN), LOGICAL)
    _fails(lambda: out.put(text("loner"), LOGICAL), 2241)
    assert _depth(adapter) == 1
    last = out.put(text("b", msg_flags=LAST), LOGICAL)
    assert (last.group_id, last.msg_seq_number) == (first.group_id, 2)


def test_a_non_segment_inside_an_unfinished_message_is_2242(adapter: Adapter, out: Queue) -> None:
    """With a logical message's segments unfinished, a put that is not a segment, or one
    whose MQMF_LAST_MSG_IN_GROUP differs, fails with MQRC_INCOMPLETE_MSG; nothing is put.
    IBM, 2242 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/reference/q042750_.html): "attempts
    to put a message that is not a segment, or that has a setting for the
    MQMF_LAST_MSG_IN_GROUP flag that is different from the previous message"."""
    out.put(text("ab", msg_flags=IN | SEG), LOGICAL)
    _fails(lambda: out.put(text("x", msg_flags=IN), LOGICAL), 2242)
    _fails(lambda: out.put(text("x", msg_flags=LAST | LAST_SEG), LOGICAL), 2242)
    assert _depth(adapter) == 1
    md = out.put(text("cd", msg_flags=IN | LAST_SEG), LOGICAL)
    assert (md.msg_seq_number, md.offset) == (1, 2)


def test_inconsistent_persistence_and_syncpoint_fail(adapter: Adapter, out: Queue) -> None:
    """Inside a group put in logical order, a different Persistence is
    MQRC_INCONSISTENT_PERSISTENCE and a different syncpoint MQRC_INCONSISTENT_UOW; nothing
    is put. IBM, 2185 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042270_.html):
    "All messages in a group and all segments in a logical message must have the same value
    for persistence"; 2245 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042780_.html):
    "If the current call specifies MQPMO_LOGICAL_ORDER, the call fails"."""
    out.put(text("a", msg_flags=IN, persistence=0), LOGICAL)
    _fails(lambda: out.put(text("b", msg_flags=IN, persistence=1), LOGICAL), 2185)
    under = PutOptions(syncpoint=True, context="default", logical_order=True)
    _fails(lambda: out.put(text("b", msg_flags=IN, persistence=0), under), 2245)
    assert _depth(adapter) == 1
    # MQPER_PERSISTENCE_AS_Q_DEF is the queue's DEFPSIST(NO): the same persistence.
    assert out.put(text("c", msg_flags=LAST, persistence=2), LOGICAL).msg_seq_number == 2


def test_an_empty_intermediate_segment_is_2253(adapter: Adapter, out: Queue) -> None:
    """A segment other than the last with no data fails with MQRC_SEGMENT_LENGTH_ZERO.
    IBM, 2253 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042860_.html):
    "An MQPUT call was issued to put the first or an intermediate segment of a logical
    message, but the length of the application message data in the segment ... is zero"."""
    _fails(lambda: out.put(text("", msg_flags=SEG), LOGICAL), 2253)
    assert _depth(adapter) == 0
