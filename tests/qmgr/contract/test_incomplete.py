"""A queue handle with a message group or logical message left unfinished by logical-order
gets: a get out of logical order, a get in it under another syncpoint, a browse that
switches order, and the end of the unit of work (MQCMIT keeps the group position, MQBACK
restores it). What the MQI alone shows (MQCC_WARNING with 2241/2242 on MQGET and MQCLOSE)
is in ``tests/mqi/test_groups.py``.
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
    MQRO_COD,
)
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from tests.qmgr.contract.conftest import Adapter, collect, text

NOW = PutOptions(syncpoint=False)
G = b"GROUP-INCOMPLETE".ljust(24, b"\0")
IN, LAST = MQMF_MSG_IN_GROUP, MQMF_LAST_MSG_IN_GROUP
LOGICAL = GetOptions(logical_order=True, syncpoint=False)
LOGICAL_UOW = GetOptions(logical_order=True, syncpoint=True)


def _member(qm: QueueManager, body: str, seq: int, flags: int, offset: int = 0) -> None:
    msg = text(body, group_id=G, msg_seq_number=seq, msg_flags=flags, offset=offset)
    qm.put1("APP.GRP", msg, NOW)


def _bodies(adapter: Adapter) -> list[bytes]:
    """The committed messages of APP.GRP in physical order, seen by another connection."""
    q = adapter.connect().open("APP.GRP", input=False, browse=True)
    first = GetOptions(browse="first", syncpoint=False)
    return [m.body for m in collect(q, first, GetOptions(browse="next", syncpoint=False))]


def _fails(call: object) -> int:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    return exc.value.reason


@pytest.fixture
def qm(adapter: Adapter) -> QueueManager:
    adapter.define_queue("APP.GRP", msgdlvsq="FIFO")
    conn = adapter.connect()
    _member(conn, "g-1", 1, IN)
    _member(conn, "g-2", 2, IN)
    _member(conn, "g-3", 3, LAST)
    return conn


def test_a_get_out_of_logical_order_mid_group_gets_the_message(
    adapter: Adapter, qm: QueueManager
) -> None:
    """A destructive get without MQGMO_LOGICAL_ORDER right after one with it that left a
    group unfinished gets its message (IBM answers MQCC_WARNING, not a failure: the
    message must not be lost behind an error); the handle's group position stays, so the
    next logical-order get returns the member after the first.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQGET call, when the application does not specify MQGMO_LOGICAL_ORDER, but the previous
    MQGET call for the queue handle did specify MQGMO_LOGICAL_ORDER. The completion code is
    MQCC_WARNING in this case"."""
    qm.put1("APP.GRP", text("plain"), NOW)
    q = qm.open("APP.GRP")
    assert q.get(LOGICAL).body == b"g-1"
    by_id = GetOptions(syncpoint=False, msg_id=_msg_id_of(adapter, b"plain"))
    assert q.get(by_id).body == b"plain"
    assert _bodies(adapter) == [b"g-2", b"g-3"]
    assert [m.body for m in collect(q, LOGICAL)] == [b"g-2", b"g-3"]


def _msg_id_of(adapter: Adapter, body: bytes) -> bytes:
    q = adapter.connect().open("APP.GRP", input=False, browse=True)
    first = GetOptions(browse="first", syncpoint=False)
    for m in collect(q, first, GetOptions(browse="next", syncpoint=False)):
        if m.body == body:
            return m.md.msg_id
    raise AssertionError(body)


def test_a_logical_get_under_another_syncpoint_mid_group_is_2245(
    adapter: Adapter, qm: QueueManager
) -> None:
    """Inside a group got in logical order under syncpoint, a logical-order get outside
    syncpoint fails with MQRC_INCONSISTENT_UOW (2245) and takes nothing; the unit of work
    still holds the first member (MQCMIT removes exactly it) and the group goes on under
    syncpoint.
    IBM, 2245 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042780_.html): "An
    MQGET call was issued to remove from the queue a message in a group or a segment of a
    logical message, but the value specified or defaulted for the MQGMO_SYNCPOINT option is
    not consistent with the current group and segment information retained by the queue
    manager for the queue handle. If the current call specifies MQGMO_LOGICAL_ORDER, the
    call fails". The failed get sends no COD report: one COD, for the get that took
    the member asking for it."""
    adapter.define_queue("APP.REPLY")
    msg = text(
        "cod",
        group_id=b"GROUP-COD".ljust(24, b"\0"),
        msg_seq_number=1,
        msg_flags=IN,
        report=MQRO_COD,
        reply_to_q="APP.REPLY",
    )
    qm.put1("APP.GRP", msg, NOW)
    q = qm.open("APP.GRP")
    assert q.get(LOGICAL_UOW).body == b"g-1"
    assert _fails(lambda: q.get(LOGICAL)) == 2245
    qm.commit()
    assert _bodies(adapter) == [b"g-2", b"g-3", b"cod"]
    assert [q.get(LOGICAL_UOW).body for _ in range(2)] == [b"g-2", b"g-3"]
    assert q.get(LOGICAL_UOW).body == b"cod"  # (a new group: its COD is this get's)
    assert _fails(lambda: q.get(LOGICAL)) == 2245  # (and sends no second one)
    qm.commit()
    assert _bodies(adapter) == []
    reply = adapter.connect().open("APP.REPLY")
    assert len(collect(reply, GetOptions(syncpoint=False))) == 1


def test_backout_restores_the_group_position_and_commit_keeps_it(
    adapter: Adapter, qm: QueueManager
) -> None:
    """Two members got in logical order under syncpoint, then MQBACK: both are back on the
    queue and the next logical-order get starts the group again (member 1, not 3). After
    MQCMIT of member 1 the position is kept: the next get in the next unit of work is
    member 2.
    IBM, MQBACK usage notes (https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q101690_.html): "If
    the application puts or gets the messages as part of a unit of work, and the
    application then decides to back out the unit of work, the group and segment
    information is restored to the value that it had previously"; MQCMIT usage notes
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101750_.html): "When a unit of
    work is committed, the queue manager retains the group and segment information"."""
    q = qm.open("APP.GRP")
    assert [q.get(LOGICAL_UOW).body for _ in range(2)] == [b"g-1", b"g-2"]
    qm.backout()
    assert _bodies(adapter) == [b"g-1", b"g-2", b"g-3"]
    assert q.get(LOGICAL_UOW).body == b"g-1"
    qm.commit()
    assert q.get(LOGICAL_UOW).body == b"g-2"
    qm.backout()
    assert q.get(LOGICAL_UOW).body == b"g-2"
    assert q.get(LOGICAL_UOW).body == b"g-3"
    qm.commit()
    assert _bodies(adapter) == []


def test_backout_restores_a_logical_message_left_unfinished(adapter: Adapter) -> None:
    """The same for segments: the first segment of a logical message got in logical order
    under syncpoint and backed out; the next logical-order get returns the first segment
    again, then the last.
    IBM, MQBACK usage notes (https://ibm.com/docs/SSFKSJ_9.3.0/refdev/q101690_.html): "the
    group and segment information is restored to the value that it had previously"."""
    adapter.define_queue("APP.GRP", msgdlvsq="FIFO")
    qm = adapter.connect()
    _member(qm, "ab", 1, MQMF_SEGMENT, offset=0)
    _member(qm, "cd", 1, MQMF_LAST_SEGMENT, offset=2)
    q = qm.open("APP.GRP")
    assert q.get(LOGICAL_UOW).body == b"ab"
    qm.backout()
    assert [m.body for m in collect(q, LOGICAL_UOW)] == [b"ab", b"cd"]
    qm.commit()
    assert _bodies(adapter) == []


def test_browse_next_that_switches_logical_order_is_2259(
    adapter: Adapter, qm: QueueManager
) -> None:
    """A browse-next whose MQGMO_LOGICAL_ORDER differs from the previous browse's fails
    with MQRC_INCONSISTENT_BROWSE (2259) and leaves the cursor where it was: browse-next in
    the same order goes on; a browse-first may switch.
    IBM, 2259 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042910_.html): "An
    MQGET call was issued with the MQGMO_BROWSE_NEXT option specified, but the
    specification of the MQGMO_LOGICAL_ORDER option for the call is different from the
    specification of that option for the previous call for the queue handle"."""
    q = qm.open("APP.GRP", input=False, browse=True)
    first = GetOptions(browse="first", logical_order=True, syncpoint=False)
    assert q.get(first).body == b"g-1"
    assert _fails(lambda: q.get(GetOptions(browse="next", syncpoint=False))) == 2259
    nxt = GetOptions(browse="next", logical_order=True, syncpoint=False)
    assert q.get(nxt).body == b"g-2"
    assert q.get(GetOptions(browse="first", syncpoint=False)).body == b"g-1"
    assert _fails(lambda: q.get(nxt)) == 2259
    assert q.get(GetOptions(browse="next", syncpoint=False)).body == b"g-2"
    assert _bodies(adapter) == [b"g-1", b"g-2", b"g-3"]


def test_disconnect_with_a_group_left_unfinished_is_no_failure(
    adapter: Adapter, qm: QueueManager
) -> None:
    """A handle whose logical-order get left a group unfinished, closed by the disconnect:
    the close completes (IBM's MQCC_WARNING 2241 on MQCLOSE) and nothing is logged as a
    failed call; the member got outside syncpoint stays got, the others stay.
    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQCLOSE call, when the application attempts to close the queue that has the incomplete
    message group. The completion code is MQCC_WARNING in this case"."""
    from structlog.testing import capture_logs

    q = qm.open("APP.GRP")
    assert q.get(LOGICAL).body == b"g-1"
    with capture_logs() as logs:
        qm.disconnect()
    assert not [e for e in logs if e.get("event") == "mq_call_failed"]
    assert _bodies(adapter) == [b"g-2", b"g-3"]
