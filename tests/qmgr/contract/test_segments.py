"""Segmented messages on MQGET: MQGMO_COMPLETE_MSG and MQGMO_ALL_SEGMENTS_AVAILABLE.

IBM, MsgFlags (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097540_.html):
"The application that retrieves the message can either retrieve the segments one by one, or
request the queue manager to reassemble the segments into a single message that is returned
by the MQGET call. The latter is achieved by specifying the MQGMO_COMPLETE_MSG option".
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import Message
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from tests.qmgr.contract.conftest import Adapter, collect, text

NOW = PutOptions(syncpoint=False)
G = b"SEGMENTED".ljust(24, b"\0")
SEG, LAST_SEG = MQMF_SEGMENT, MQMF_LAST_SEGMENT
IN, LAST = MQMF_MSG_IN_GROUP, MQMF_LAST_MSG_IN_GROUP
COMPLETE = GetOptions(complete_msg=True, syncpoint=False)
ALL_SEGMENTS = GetOptions(all_segments_available=True, syncpoint=False)
# MQGMO_COMPLETE_MSG: "Only a complete logical message can be returned by the MQGET call"
# (IBM, MQGMO Options, https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm)


@pytest.fixture
def qm(adapter: Adapter) -> QueueManager:
    adapter.define_queue("APP.SEG", msgdlvsq="FIFO")
    return adapter.connect()


def _segment(qm: QueueManager, body: str, offset: int, flags: int, seq: int = 1) -> None:
    msg = text(body, group_id=G, msg_seq_number=seq, offset=offset, msg_flags=flags)
    qm.put1("APP.SEG", msg, NOW)


def _depth(adapter: Adapter) -> int:
    return adapter.connect().inquire_queue("APP.SEG").curdepth


def _no_message(call: object) -> None:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    assert exc.value.reason == 2033


def test_complete_msg_returns_the_logical_message_whole(adapter: Adapter, qm: QueueManager) -> None:
    """Segments that arrived last-first come back as one message: data joined in Offset
    order, the first segment's MQMD with MsgFlags MQMF_LAST_SEGMENT (the only segment) and
    Offset 0; every segment is gone from the queue (counted on a second connection).
    IBM, MQGMO Options
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm),
    MQGMO_COMPLETE_MSG: "the message descriptor is returned with the values from the
    message descriptor for the first segment; the only exception is the MsgFlags field,
    which the queue manager sets to indicate that the reassembled message is the only
    segment"."""
    _segment(qm, "def", 3, LAST_SEG)
    qm.put1("APP.SEG", text("plain"), NOW)
    _segment(qm, "abc", 0, SEG)
    assert _depth(adapter) == 3
    q = qm.open("APP.SEG")
    got = collect(q, COMPLETE)
    assert [m.body for m in got] == [b"plain", b"abcdef"]
    md = got[1].md
    assert (md.group_id, md.msg_seq_number, md.offset, md.msg_flags) == (G, 1, 0, LAST_SEG)
    assert _depth(adapter) == 0


def test_complete_msg_leaves_an_incomplete_logical_message(
    adapter: Adapter, qm: QueueManager
) -> None:
    """With a segment missing (Offsets 0-2 and 5-, nothing at 3), MQGMO_COMPLETE_MSG and
    MQGMO_ALL_SEGMENTS_AVAILABLE find no message (2033) and take nothing; once the missing
    segment arrives the message comes back whole.
    IBM, MQGMO Options
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm):
    "Only a complete logical message can be returned by the MQGET call"."""
    _segment(qm, "abc", 0, SEG)
    _segment(qm, "fg", 5, LAST_SEG)
    q = qm.open("APP.SEG")
    _no_message(lambda: q.get(COMPLETE))
    _no_message(lambda: q.get(ALL_SEGMENTS))
    _no_message(lambda: q.get(GetOptions(browse="first", complete_msg=True, syncpoint=False)))
    assert _depth(adapter) == 2
    _segment(qm, "de", 3, SEG)
    assert q.get(COMPLETE).body == b"abcdefg"
    assert _depth(adapter) == 0


def test_all_segments_available_returns_segments_one_by_one(
    adapter: Adapter, qm: QueueManager
) -> None:
    """MQGMO_ALL_SEGMENTS_AVAILABLE with MQGMO_LOGICAL_ORDER returns a logical message's
    segments one at a time, in Offset order, only once its last segment and every one
    before it are there (then the handle's current logical message carries on).
    IBM, MQGMO Options
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm),
    MQGMO_ALL_SEGMENTS_AVAILABLE: "Segments in an incomplete logical message are not
    eligible for return"."""
    _segment(qm, "ab", 0, SEG)
    qm.put1("APP.SEG", text("plain"), NOW)
    q = qm.open("APP.SEG")
    one_by_one = GetOptions(all_segments_available=True, logical_order=True, syncpoint=False)
    assert q.get(one_by_one).body == b"plain"
    _no_message(lambda: q.get(one_by_one))
    _segment(qm, "cd", 2, LAST_SEG)
    got = collect(q, one_by_one)
    assert [(m.body, m.md.offset, m.md.msg_flags) for m in got] == [
        (b"ab", 0, SEG),
        (b"cd", 2, LAST_SEG),
    ]


def test_browse_with_complete_msg_takes_nothing(adapter: Adapter, qm: QueueManager) -> None:
    """A browse with MQGMO_COMPLETE_MSG returns the whole logical message and leaves every
    segment on the queue; browse next goes past the whole message.
    IBM, MQGMO Options
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm):
    "Only a complete logical message can be returned by the MQGET call"."""
    _segment(qm, "ab", 0, SEG)
    _segment(qm, "cd", 2, LAST_SEG)
    qm.put1("APP.SEG", text("after"), NOW)
    q = qm.open("APP.SEG")
    first = GetOptions(browse="first", complete_msg=True, syncpoint=False)
    more = GetOptions(browse="next", complete_msg=True, syncpoint=False)
    assert [m.body for m in collect(q, first, more)] == [b"abcd", b"after"]
    assert _depth(adapter) == 3


def test_complete_msg_under_syncpoint_backs_out_every_segment(
    adapter: Adapter, qm: QueueManager
) -> None:
    """A whole logical message got under syncpoint and backed out: every segment is back
    (depth 2, BackoutCount 1 on the first) and a second get returns it whole again.
    IBM, MQBACK (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q101790_.html): "All
    messages retrieved during the current unit of work are reinstated"."""
    _segment(qm, "ab", 0, SEG)
    _segment(qm, "cd", 2, LAST_SEG)
    q = qm.open("APP.SEG")
    assert q.get(GetOptions(complete_msg=True, syncpoint=True)).body == b"abcd"
    qm.backout()
    assert _depth(adapter) == 2
    again = q.get(GetOptions(complete_msg=True, syncpoint=True))
    assert (again.body, again.md.backout_count) == (b"abcd", 1)
    qm.commit()
    assert _depth(adapter) == 0


def test_complete_msg_in_a_group_in_logical_order(adapter: Adapter, qm: QueueManager) -> None:
    """A group of two segmented logical messages, got in logical order with
    MQGMO_COMPLETE_MSG and MQGMO_ALL_MSGS_AVAILABLE: each logical message whole, in order.
    IBM, Reassembly by queue manager
    (https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q026400_.htm): "MQGMO_LOGICAL_ORDER
    is used to ensure that the segments and messages of the group are retrieved in order"."""
    _segment(qm, "g", 2, LAST | LAST_SEG, seq=2)
    _segment(qm, "cd", 2, IN | LAST_SEG)
    _segment(qm, "ab", 0, IN | SEG)
    _segment(qm, "ef", 0, LAST | SEG, seq=2)
    q = qm.open("APP.SEG")
    options = GetOptions(
        logical_order=True, all_msgs_available=True, complete_msg=True, syncpoint=False
    )
    got = collect(q, options)
    assert [(m.body, m.md.msg_seq_number) for m in got] == [(b"abcd", 1), (b"efg", 2)]
    assert _depth(adapter) == 0


def test_complete_msg_has_no_effect_on_a_message_that_is_not_a_segment(
    qm: QueueManager,
) -> None:
    """A message that is no segment comes back as it is under MQGMO_COMPLETE_MSG.
    IBM, MQGMO Options
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_8.0.0/com.ibm.mq.ref.dev.doc/q096780_.htm):
    "Only a complete logical message can be returned by the MQGET call" (an unsegmented
    message is one)."""
    qm.put1("APP.SEG", text("g1", group_id=G, msg_flags=LAST), NOW)
    md = qm.open("APP.SEG").get(COMPLETE).md
    assert (md.msg_flags, md.offset) == (LAST, 0)


def test_lock_with_complete_msg_is_refused(adapter: Adapter, qm: QueueManager) -> None:
    """A browse with MQGMO_LOCK and MQGMO_COMPLETE_MSG is refused with MQRC_OPTIONS_ERROR
    before anything is read or locked (a lock holds one physical message here; docs/ibmmq.md
    lists the combination); the segments stay and a plain get still takes the first.
    IBM, 2046 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041170_.html): "The
    Options parameter or field contains options that are not valid, or a combination of
    options that is not valid"."""
    _segment(qm, "ab", 0, SEG)
    _segment(qm, "cd", 2, LAST_SEG)
    q = qm.open("APP.SEG")
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(browse="first", lock=True, complete_msg=True, syncpoint=False))
    assert exc.value.reason == 2046
    assert _depth(adapter) == 2
    assert q.get(GetOptions(syncpoint=False)).body == b"ab"


def test_complete_msg_waits_for_a_missing_last_segment_then_finds_none(
    adapter: Adapter, qm: QueueManager
) -> None:
    """The last segment missing (no MQMF_LAST_SEGMENT yet): MQGMO_COMPLETE_MSG with a wait
    waits it out and fails with MQRC_NO_MSG_AVAILABLE (2033), not MQRC_INCOMPLETE_MSG
    (2242, which IBM gives MQGET only for a get without MQGMO_LOGICAL_ORDER after one with
    it), and takes nothing; a waiting get is answered, whole, when another connection puts
    the missing segment during the wait. IBM's 2033 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041040_.html) lists
    MQGMO_COMPLETE_MSG among the options that "affect the eligibility of a message for
    return on the MQGET call"; IBM's 2242 page
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q042750_.html): "On the
    MQGET call, when the application does not specify MQGMO_LOGICAL_ORDER, but the
    previous MQGET call for the queue handle did specify MQGMO_LOGICAL_ORDER"."""
    import threading
    import time

    _segment(qm, "abc", 0, SEG)
    _segment(qm, "de", 3, SEG)
    q = qm.open("APP.SEG")
    started = time.monotonic()
    _no_message(lambda: q.get(GetOptions(complete_msg=True, syncpoint=False, wait_ms=300)))
    assert time.monotonic() - started >= 0.25
    assert _depth(adapter) == 2
    other = adapter.connect()
    late = threading.Timer(0.3, lambda: other.put1("APP.SEG", _last("fg"), NOW))
    late.start()
    try:
        got = q.get(GetOptions(complete_msg=True, syncpoint=False, wait_ms=10_000))
    finally:
        late.join()
    assert got.body == b"abcdefg"
    assert _depth(adapter) == 0


def _last(body: str) -> Message:
    return text(body, group_id=G, msg_seq_number=1, offset=5, msg_flags=LAST_SEG)


def test_complete_msg_under_syncpoint_counts_every_segment_against_maxumsgs(
    adapter: Adapter, qm: QueueManager
) -> None:
    """With MAXUMSGS(2) a logical message of three segments cannot be got whole under
    syncpoint: MQRC_SYNCPOINT_LIMIT_REACHED (2024), nothing taken; outside syncpoint it
    can. IBM's MaxUncommittedMsgs page
    (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=manager-maxuncommittedmsgs-mqlong)
    counts "Messages retrieved by the application with the MQGMO_SYNCPOINT option"; each
    segment is a physical message."""
    adapter.mqsc("ALTER QMGR MAXUMSGS(2)")
    _segment(qm, "abc", 0, SEG)
    _segment(qm, "de", 3, SEG)
    _segment(qm, "fg", 5, LAST_SEG)
    q = qm.open("APP.SEG")
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(complete_msg=True, syncpoint=True))
    assert exc.value.reason == 2024
    qm.commit()
    assert _depth(adapter) == 3
    assert q.get(COMPLETE).body == b"abcdefg"
