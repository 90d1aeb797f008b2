"""Groups and segments through IBM's ``ibmmq`` on the stand-in: what only the MQI shows
(MQCLOSE's warning, the MQGMO group and segment status fields)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mqi.test_conformance import _depth, _fails

MQ = tuple[Any, Any]


def _logical_put(ibmmq: Any, q: Any, body: bytes, flags: int) -> Any:
    c = ibmmq.CMQC
    md = ibmmq.MD(Version=2, Format=b"MQSTR   ", MsgFlags=flags)
    q.put(body, md, ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT | c.MQPMO_LOGICAL_ORDER))
    return md


@pytest.mark.parametrize(
    ("flags", "reason"),
    [("MQMF_MSG_IN_GROUP", 2241), ("MQMF_SEGMENT", 2242)],
)
def test_close_with_an_unfinished_logical_put_warns(mq: MQ, flags: str, reason: int) -> None:
    """MQCLOSE of a handle whose logical-order puts left a group (or a logical message's
    segments) unfinished: MQCC_WARNING with MQRC_INCOMPLETE_GROUP (MQRC_INCOMPLETE_MSG);
    the handle is closed and the message put stays.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQCLOSE call, when the application attempts to close the queue that has the incomplete
    message group. The completion code is MQCC_WARNING in this case"."""
    ibmmq, qmgr = mq
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_OUTPUT)
    md = _logical_put(ibmmq, q, b"part", getattr(ibmmq.CMQC, flags))
    assert md.GroupId != bytes(24)
    assert md.MsgSeqNumber == 1
    assert _fails(ibmmq, q.close) == (1, reason)
    assert _depth(ibmmq) == 1


def test_close_after_a_finished_group_is_ok(mq: MQ) -> None:
    """A group finished with MQMF_LAST_MSG_IN_GROUP leaves nothing unfinished: MQCLOSE is
    MQCC_OK, and the MQMD returned by each MQPUT carries the GroupId and MsgSeqNumber set.
    IBM, MsgSeqNumber (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097560_.html):
    "On output from the MQPUT and MQPUT1 calls, the queue manager sets this field to the
    value that was sent with the message"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    first = _logical_put(ibmmq, q, b"a", c.MQMF_MSG_IN_GROUP)
    last = _logical_put(ibmmq, q, b"b", c.MQMF_LAST_MSG_IN_GROUP)
    assert (last.GroupId, last.MsgSeqNumber) == (first.GroupId, 2)
    q.close()
    assert _depth(ibmmq) == 2


def test_segment_status_and_complete_msg_through_the_mqi(mq: MQ) -> None:
    """Two segments put in logical order: an MQGET version 2 without MQGMO_COMPLETE_MSG
    reports MQSS_SEGMENT for the first (browsed), and with it returns the whole logical
    message, SegmentStatus MQSS_LAST_SEGMENT (the only segment), MsgFlags MQMF_LAST_SEGMENT;
    the queue is then empty.
    IBM, SegmentStatus (https://www.ibm.com/docs/en/ibm-mq/9.0.x?topic=options-segmentstatus-mqchar):
    "MQSS_LAST_SEGMENT ... This is also the value returned if the logical message consists
    of only one segment"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    out = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    _logical_put(ibmmq, out, b"abc", c.MQMF_SEGMENT)
    _logical_put(ibmmq, out, b"de", c.MQMF_LAST_SEGMENT)
    out.close()
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF | c.MQOO_BROWSE)
    gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_BROWSE_FIRST)
    assert bytes(q.get(None, ibmmq.MD(Version=2), gmo)) == b"abc"
    assert gmo.SegmentStatus == ord("S")
    md = ibmmq.MD(Version=2)
    gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_COMPLETE_MSG)
    assert bytes(q.get(None, md, gmo)) == b"abcde"
    assert (gmo.SegmentStatus, md.MsgFlags, md.Offset) == (ord("L"), c.MQMF_LAST_SEGMENT, 0)
    q.close()
    assert _depth(ibmmq) == 0


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        ("MQMF_MSG_IN_GROUP", 2241),
        ("MQMF_SEGMENT", 2242),
        ("MQMF_SEGMENT | MQMF_MSG_IN_GROUP", 2242),
    ],
)
def test_a_put_without_logical_order_mid_group_warns(mq: MQ, flags: str, reason: int) -> None:
    """MQPUT without MQPMO_LOGICAL_ORDER right after a logical-order put that left a group
    (a logical message; both: the message first) unfinished: MQCC_WARNING with
    MQRC_INCOMPLETE_GROUP (MQRC_INCOMPLETE_MSG), and the message is put; the next such put
    (its previous put was not logical) is MQCC_OK; the group status stays, so MQCLOSE still
    warns with the same reason.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQPUT call, when the application does not specify MQPMO_LOGICAL_ORDER, but the previous
    MQPUT call for the queue handle did specify MQPMO_LOGICAL_ORDER. The completion code is
    MQCC_WARNING in this case"; "If there is an incomplete logical message as well as an
    incomplete message group, reason code MQRC_INCOMPLETE_MSG is returned in preference";
    2242 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/reference/q042750_.html), the same."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    value = 0
    for name in flags.split(" | "):
        value |= getattr(c, name)
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    _logical_put(ibmmq, q, b"part", value)
    plain = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    assert _fails(ibmmq, lambda: q.put(b"aside", ibmmq.MD(), plain)) == (1, reason)
    assert _depth(ibmmq) == 2
    q.put(b"again", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    assert _depth(ibmmq) == 3
    assert _fails(ibmmq, q.close) == (1, reason)


def test_a_put_without_logical_order_after_a_finished_group_is_ok(mq: MQ) -> None:
    """After a logical-order group is finished (MQMF_LAST_MSG_IN_GROUP), an MQPUT without
    MQPMO_LOGICAL_ORDER is MQCC_OK: nothing is unfinished.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "An
    operation was attempted on a queue using a queue handle that had an incomplete message
    group"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    _logical_put(ibmmq, q, b"only", c.MQMF_LAST_MSG_IN_GROUP)
    q.put(b"aside", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    q.close()
    assert _depth(ibmmq) == 2


@pytest.mark.parametrize("syncpoint", ["MQGMO_NO_SYNCPOINT", "MQGMO_SYNCPOINT"])
def test_a_logical_order_get_too_big_for_the_buffer_takes_nothing(
    mq: MQ, home: Any, syncpoint: str
) -> None:
    """A get in logical order (MQGMO_LOGICAL_ORDER) of a group member longer than the
    buffer, without MQGMO_ACCEPT_TRUNCATED_MSG, fails with MQRC_TRUNCATED_MSG_FAILED
    (2080) and takes nothing: the member stays on the queue (a second connection counts
    both), no COD report is sent, closing the handle then loses nothing, and a get with
    room returns the group in order with one COD each. IBM's 2080 page
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041460_.html):
    "The message remains on the queue"."""
    from dlqhandler.qmgr import connect

    admin = connect("QM1", home=home)
    admin.admin().define_queue("REPLY", {})
    admin.disconnect()
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    for body, flags in (
        (b"a long first member", c.MQMF_MSG_IN_GROUP),
        (b"b", c.MQMF_LAST_MSG_IN_GROUP),
    ):
        md = ibmmq.MD(
            Version=2, Format=b"MQSTR   ", MsgFlags=flags, Report=c.MQRO_COD, ReplyToQ=b"REPLY"
        )
        q.put(body, md, ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT | c.MQPMO_LOGICAL_ORDER))
    options = getattr(c, syncpoint) | c.MQGMO_LOGICAL_ORDER

    def get(room: int) -> bytes:
        gmo = ibmmq.GMO(Version=2, Options=options, MatchOptions=c.MQMO_NONE)
        return bytes(q.get(room, ibmmq.MD(Version=2), gmo))

    assert _fails(ibmmq, lambda: get(4)) == (c.MQCC_WARNING, 2080)
    assert _fails(ibmmq, lambda: get(4)) == (c.MQCC_WARNING, 2080)
    assert (_depth(ibmmq), _depth(ibmmq, "REPLY")) == (2, 0)
    qmgr.backout()
    q.close()
    assert _depth(ibmmq) == 2
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF)
    assert [get(100), get(100)] == [b"a long first member", b"b"]
    qmgr.commit()
    assert (_depth(ibmmq), _depth(ibmmq, "REPLY")) == (0, 2)
    q.close()


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        ("MQMF_MSG_IN_GROUP", "MQMF_LAST_MSG_IN_GROUP", 2241),
        ("MQMF_SEGMENT", "MQMF_LAST_SEGMENT", 2242),
    ],
)
def test_a_get_without_logical_order_mid_group_warns(
    mq: MQ, first: str, second: str, reason: int
) -> None:
    """MQGET without MQGMO_LOGICAL_ORDER right after a logical-order get that left a group
    (a logical message) unfinished: MQCC_WARNING with MQRC_INCOMPLETE_GROUP
    (MQRC_INCOMPLETE_MSG), and the message is got (returned, gone from the queue); the
    next such get is MQCC_OK; the group status stays, so MQCLOSE warns with the same reason.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQGET call, when the application does not specify MQGMO_LOGICAL_ORDER, but the previous
    MQGET call for the queue handle did specify MQGMO_LOGICAL_ORDER. The completion code is
    MQCC_WARNING in this case"; "On the MQCLOSE call, when the application attempts to
    close the queue that has the incomplete message group"; 2242
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/reference/q042750_.html), the same for "an
    incomplete logical message"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    _logical_put(ibmmq, q, b"ab", getattr(c, first))
    _logical_put(ibmmq, q, b"cd", getattr(c, second))
    q.put(b"plain", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    q.put(b"more", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))

    def get(options: int) -> bytes:
        gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_NO_SYNCPOINT | options)
        return bytes(q.get(100, ibmmq.MD(Version=2), gmo))

    assert get(c.MQGMO_LOGICAL_ORDER) == b"ab"
    with pytest.raises(ibmmq.MQMIError) as caught:
        get(0)
    assert (caught.value.comp, caught.value.reason) == (c.MQCC_WARNING, reason)
    assert bytes(caught.value.message) == b"cd"
    assert get(0) == b"plain"
    assert _depth(ibmmq) == 1
    assert _fails(ibmmq, q.close) == (1, reason)


def test_a_get_in_logical_order_to_the_end_of_the_group_leaves_nothing_to_warn_of(
    mq: MQ,
) -> None:
    """A group got to its last member in logical order: a get out of logical order and
    MQCLOSE are MQCC_OK (nothing is unfinished; a logical-order get on a new handle then
    passes over the group whose first member is gone), while a close after only the first
    member of a group warns MQRC_INCOMPLETE_GROUP.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "An
    operation was attempted on a queue using a queue handle that had an incomplete message
    group"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    for _ in range(2):
        _logical_put(ibmmq, q, b"a", c.MQMF_MSG_IN_GROUP)
        _logical_put(ibmmq, q, b"b", c.MQMF_LAST_MSG_IN_GROUP)
    q.put(b"plain", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    logical = ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_LOGICAL_ORDER)
    assert [bytes(q.get(10, ibmmq.MD(Version=2), logical)) for _ in range(2)] == [b"a", b"b"]
    plain = ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT)
    assert bytes(q.get(10, ibmmq.MD(Version=2), plain)) == b"a"
    q.close()
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF)
    # (logical order skips the group whose first member is gone: "b" stays)
    assert bytes(q.get(10, ibmmq.MD(Version=2), logical)) == b"plain"
    q.close()
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    _logical_put(ibmmq, q, b"x", c.MQMF_MSG_IN_GROUP)
    _logical_put(ibmmq, q, b"y", c.MQMF_LAST_MSG_IN_GROUP)
    assert bytes(q.get(10, ibmmq.MD(Version=2), logical)) == b"x"
    assert _fails(ibmmq, q.close) == (1, 2241)
    assert _depth(ibmmq) == 2


def test_a_put_over_maxpriority_warns_and_is_put(mq: MQ) -> None:
    """MQPUT and MQPUT1 with Priority 10: MQCC_WARNING with MQRC_PRIORITY_EXCEEDS_MAXIMUM
    (2049), and each message is put (a second connection counts both).
    IBM, 2049 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041200_.html): "The
    message is accepted by the queue manager, but is placed on the queue at the queue
    manager's maximum priority"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT)
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    put = lambda: q.put(b"high", ibmmq.MD(Priority=10), pmo)  # noqa: E731
    assert _fails(ibmmq, put) == (c.MQCC_WARNING, 2049)
    put1 = lambda: qmgr.put1("Q1", b"high1", ibmmq.MD(Priority=10), pmo)  # noqa: E731
    assert _fails(ibmmq, put1) == (c.MQCC_WARNING, 2049)
    q.put(b"nine", ibmmq.MD(Priority=9), pmo)
    assert _depth(ibmmq) == 3
    q.close()
