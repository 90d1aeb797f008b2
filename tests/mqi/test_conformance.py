"""MQI conformance through IBM's ``ibmmq`` package on the stand-in: what only the MQI
shows (handles, the browse cursor, MQPMO/MQGMO fields, context options), each case
held to the IBM page its docstring cites.

Every "bad input" case puts, fails a call with IBM's reason and then counts the queue
on a second connection: a call that fails changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

MQ = tuple[Any, Any]


def _depth(ibmmq: Any, queue: str = "Q1") -> int:
    """CURDEPTH of ``queue`` seen from a second connection (MQINQ)."""
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    try:
        q = ibmmq.Queue(other, queue, ibmmq.CMQC.MQOO_INQUIRE)
        depth = int(q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        q.close()
        return depth
    finally:
        other.disconnect()


def _put(ibmmq: Any, qmgr: Any, *bodies: bytes, queue: str = "Q1") -> None:
    for body in bodies:
        qmgr.put1(
            ibmmq.OD(ObjectName=queue.encode()),
            body,
            ibmmq.MD(Format=b"MQSTR   "),
            ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_NO_SYNCPOINT),
        )


def _open(ibmmq: Any, qmgr: Any, queue: str = "Q1", extra: int = 0) -> Any:
    c = ibmmq.CMQC
    return ibmmq.Queue(qmgr, queue, c.MQOO_INPUT_AS_Q_DEF | c.MQOO_BROWSE | extra)


def _get(ibmmq: Any, q: Any, options: int, *, version: int = 1, **fields: Any) -> bytes:
    gmo = ibmmq.GMO(Version=version, Options=options, **fields)
    return bytes(q.get(None, ibmmq.MD(), gmo))


def _fails(ibmmq: Any, call: Any) -> tuple[int, int]:
    with pytest.raises(ibmmq.MQMIError) as caught:
        call()
    return int(caught.value.comp), int(caught.value.reason)


# -- 1. a failed MQGET takes nothing ---------------------------------------------------------
@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize("syncpoint", ["MQGMO_NO_SYNCPOINT", "MQGMO_SYNCPOINT"])
def test_properties_in_handle_without_a_handle_fails_and_the_message_stays(
    mq: MQ, version: int, syncpoint: str
) -> None:
    """MQGMO_PROPERTIES_IN_HANDLE with MsgHandle MQHM_NONE (or an MQGMO older than version
    4, whose MsgHandle is ignored): MQCC_FAILED, MQRC_HMSG_ERROR (2460), and the message is
    still on the queue for a second connection.

    IBM, MQGMO Options (https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q096715_.html):
    MQGMO_PROPERTIES_IN_HANDLE "Properties of the message must be made available using
    the MsgHandle. If no message handle is provided the call fails with reason
    MQRC_HMSG_ERROR"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    options = getattr(c, syncpoint) | c.MQGMO_PROPERTIES_IN_HANDLE
    assert _fails(ibmmq, lambda: _get(ibmmq, q, options, version=version)) == (2, 2460)
    qmgr.backout()
    assert _depth(ibmmq) == 1
    assert _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT) == b"m1"
    q.close()


def test_a_bad_message_handle_on_mqget_fails_and_the_message_stays(mq: MQ) -> None:
    """MQGMO.MsgHandle naming no handle of MQCRTMH: MQRC_HMSG_ERROR (2460), nothing taken.

    IBM, 2460 MQRC_HMSG_ERROR (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q044720_.html):
    "The value specified was not returned by a preceding MQCRTMH call"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1")
    q = _open(ibmmq, qmgr)
    call = lambda: _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT, version=4, MsgHandle=12345)  # noqa: E731
    assert _fails(ibmmq, call) == (2, 2460)
    assert _depth(ibmmq) == 1
    q.close()


# -- 2. the browse cursor ---------------------------------------------------------------------
@pytest.mark.parametrize("option", ["MQGMO_BROWSE_MSG_UNDER_CURSOR", "MQGMO_MSG_UNDER_CURSOR"])
def test_under_the_cursor_before_any_browse_is_2034_and_takes_nothing(mq: MQ, option: str) -> None:
    """Before any browse the cursor is before the first message: MQGMO_BROWSE_MSG_UNDER_CURSOR
    and MQGMO_MSG_UNDER_CURSOR fail with MQRC_NO_MSG_UNDER_CURSOR (2034); both messages stay.

    IBM, 2034 MQRC_NO_MSG_UNDER_CURSOR
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "The cursor
    is positioned logically before the first message (as it is before the first MQGET call
    with a browse option has been successfully performed)"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    options = getattr(c, option) | c.MQGMO_NO_SYNCPOINT
    assert _fails(ibmmq, lambda: _get(ibmmq, q, options)) == (2, 2034)
    assert _depth(ibmmq) == 2
    q.close()


def test_browse_msg_under_cursor_returns_a_copy_of_the_browsed_message(mq: MQ) -> None:
    """BROWSE_FIRST (m1), BROWSE_NEXT (m2), then BROWSE_MSG_UNDER_CURSOR: m2 again, twice, and
    both messages stay on the queue; the cursor did not move (BROWSE_NEXT gives 2033).

    IBM, The browse cursor (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-browse-cursor):
    MQGMO_BROWSE_MSG_UNDER_CURSOR "Gets a copy of the message currently pointed to by the
    cursor, that is, the one that was last retrieved using either the MQGMO_BROWSE_FIRST or
    the MQGMO_BROWSE_NEXT option. In all cases, the message remains on the queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    assert _get(ibmmq, q, c.MQGMO_BROWSE_FIRST) == b"m1"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_NEXT) == b"m2"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"m2"
    assert _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"m2"
    assert _depth(ibmmq) == 2
    assert _fails(ibmmq, lambda: _get(ibmmq, q, c.MQGMO_BROWSE_NEXT)) == (2, 2033)
    q.close()


def test_msg_under_cursor_removes_the_browsed_message_not_the_first(mq: MQ) -> None:
    """After browsing to m2, a destructive MQGMO_MSG_UNDER_CURSOR returns and removes m2; m1
    stays; a second MQGMO_MSG_UNDER_CURSOR is 2034 (the message under the cursor is gone).

    IBM, MQGMO Options (https://www.ibm.com/docs/en/SSFKSJ_9.4.0/refdev/q096715_.html):
    MQGMO_MSG_UNDER_CURSOR "Retrieve the message pointed to by the browse cursor"; 2034
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "The
    message the browse cursor was positioned on has been locked or removed"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    _get(ibmmq, q, c.MQGMO_BROWSE_FIRST)
    _get(ibmmq, q, c.MQGMO_BROWSE_NEXT)
    assert _get(ibmmq, q, c.MQGMO_MSG_UNDER_CURSOR | c.MQGMO_NO_SYNCPOINT) == b"m2"
    assert _depth(ibmmq) == 1
    under = c.MQGMO_MSG_UNDER_CURSOR | c.MQGMO_NO_SYNCPOINT
    assert _fails(ibmmq, lambda: _get(ibmmq, q, under)) == (2, 2034)
    assert _get(ibmmq, q, c.MQGMO_NO_SYNCPOINT) == b"m1"
    q.close()


def test_browse_under_cursor_after_another_handle_took_the_message_is_2034(mq: MQ) -> None:
    """The message under the cursor was got by another connection: 2034, and the other
    message stays.

    IBM, 2034 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html):
    "The message the browse cursor was positioned on has been locked or removed from the
    queue (probably by some other application) since the browse operation was performed"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    _put(ibmmq, qmgr, b"m1", b"m2")
    q = _open(ibmmq, qmgr)
    assert _get(ibmmq, q, c.MQGMO_BROWSE_FIRST) == b"m1"
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    taker = _open(ibmmq, other)
    assert _get(ibmmq, taker, c.MQGMO_NO_SYNCPOINT) == b"m1"
    taker.close()
    other.disconnect()
    assert _fails(ibmmq, lambda: _get(ibmmq, q, c.MQGMO_BROWSE_MSG_UNDER_CURSOR)) == (2, 2034)
    assert _depth(ibmmq) == 1
    q.close()
