"""MQGET behaviour: ordering, matching, browse cursors, locks, waits and reason codes."""

from __future__ import annotations

import threading
import time

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.qmgr import GetOptions, PutOptions, Queue
from tests.qmgr.contract.conftest import Adapter, collect, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)
FIRST = GetOptions(browse="first", syncpoint=False)
NEXT = GetOptions(browse="next", syncpoint=False)


def drain(q: Queue, options: GetOptions = GET) -> list[str]:
    return [m.body.decode() for m in collect(q, options)]


def browse_all(q: Queue) -> list[str]:
    return [m.body.decode() for m in collect(q, FIRST, NEXT)]


def test_priority_queue_delivers_by_priority_then_arrival(adapter: Adapter) -> None:
    """MSGDLVSQ(PRIORITY): highest priority first, arrival order within a priority."""
    adapter.define_queue("APP.PRI", msgdlvsq="PRIORITY")
    qm = adapter.connect()
    for body, priority in (("a0", 0), ("b5", 5), ("c0", 0), ("d9", 9), ("e5", 5)):
        qm.put1("APP.PRI", text(body, priority=priority), NOW)
    q = qm.open("APP.PRI")
    assert browse_all(q) == ["d9", "b5", "e5", "a0", "c0"]
    assert drain(q) == ["d9", "b5", "e5", "a0", "c0"]


def test_fifo_queue_delivers_by_arrival(adapter: Adapter) -> None:
    """MSGDLVSQ(FIFO): arrival order whatever the priority."""
    adapter.define_queue("APP.FIFO", msgdlvsq="FIFO")
    qm = adapter.connect()
    for body, priority in (("a0", 0), ("b5", 5), ("c9", 9)):
        qm.put1("APP.FIFO", text(body, priority=priority), NOW)
    assert drain(qm.open("APP.FIFO")) == ["a0", "b5", "c9"]


def test_match_by_msgid_correlid_and_groupid(adapter: Adapter) -> None:
    """MsgId, CorrelId and GroupId selection (MQMO_MATCH_*), alone and combined."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    ids = [
        qm.put1("APP.IN", text(f"m{i}", correl_id=b"C%d" % (i % 2)), NOW).msg_id for i in range(4)
    ]
    q = qm.open("APP.IN")
    assert q.get(GetOptions(browse="first", msg_id=ids[2])).body == b"m2"
    assert q.get(GetOptions(syncpoint=False, correl_id=b"C1")).body == b"m1"
    assert q.get(GetOptions(syncpoint=False, correl_id=b"C1", msg_id=ids[3])).body == b"m3"
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(syncpoint=False, correl_id=b"C1"))
    assert exc.value.reason == 2033
    gid = b"G".ljust(24, b"\0")
    qm.put1("APP.IN", text("grouped", group_id=gid, msg_flags=16), NOW)
    assert q.get(GetOptions(syncpoint=False, group_id=gid)).body == b"grouped"


def test_all_zero_identifiers_match_any_message(adapter: Adapter) -> None:
    """MQMI_NONE, MQCI_NONE and MQGI_NONE as match values have "the same effect as not
    specifying" MQMO_MATCH_MSG_ID/CORREL_ID/GROUP_ID (IBM's MQMD field descriptions):
    any identifier matches, so the first message in order comes back."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    for i in range(3):
        qm.put1("APP.IN", text(f"m{i}", correl_id=b"C%d" % i), NOW)
    q = qm.open("APP.IN")
    none = bytes(24)
    assert q.get(GetOptions(browse="first", correl_id=none)).body == b"m0"
    assert q.get(GetOptions(browse="first", msg_id=none)).body == b"m0"
    assert (
        q.get(GetOptions(syncpoint=False, msg_id=none, correl_id=none, group_id=none)).body == b"m0"
    )
    assert q.get(GetOptions(syncpoint=False, correl_id=b"C2")).body == b"m2"
    assert drain(q, GetOptions(syncpoint=False, correl_id=none)) == ["m1"]


def test_browse_is_non_destructive_and_get_under_cursor_removes(adapter: Adapter) -> None:
    """Browse first/next walks the queue; MSG_UNDER_CURSOR gets exactly the browsed one."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    for body in ("a", "b", "c"):
        qm.put1("APP.IN", text(body), NOW)
    q = qm.open("APP.IN")
    assert q.get(FIRST).body == b"a"
    assert q.get(NEXT).body == b"b"
    assert q.get(GetOptions(under_cursor=True, syncpoint=False)).body == b"b"
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(under_cursor=True, syncpoint=False))
    assert exc.value.reason == 2034
    assert q.get(NEXT).body == b"c"
    assert qm.inquire_queue("APP.IN").curdepth == 2
    assert browse_all(q) == ["a", "c"]


def test_browse_cursors_are_per_handle(adapter: Adapter) -> None:
    """Two handles browse independently; a cursor sees messages that arrive after it."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    qm = adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    q1, q2 = qm.open("APP.IN"), qm.open("APP.IN")
    assert q1.get(FIRST).body == b"a"
    with pytest.raises(MQIError):
        q1.get(NEXT)
    assert q2.get(FIRST).body == b"a"
    qm.put1("APP.IN", text("b"), NOW)
    assert q1.get(NEXT).body == b"b"


def test_get_under_cursor_without_a_browse_is_2034(adapter: Adapter) -> None:
    """MQRC_NO_MSG_UNDER_CURSOR when nothing was browsed or the message went elsewhere."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    q = qm.open("APP.IN")
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(under_cursor=True))
    assert exc.value.reason == 2034
    q.get(FIRST)
    other.open("APP.IN").get(GET)
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(under_cursor=True))
    assert exc.value.reason == 2034


UNDER = GetOptions(browse="under_cursor", syncpoint=False)


def test_browse_under_cursor_copies_the_browsed_message_and_leaves_it(adapter: Adapter) -> None:
    """``browse="under_cursor"`` (MQGMO_BROWSE_MSG_UNDER_CURSOR): 2034 before any browse;
    after browsing to m2, m2 again (twice) without moving the cursor; nothing is removed;
    with ``lock`` the message under the cursor is locked from other connections.

    IBM, The browse cursor (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-browse-cursor):
    it "Gets a copy of the message currently pointed to by the cursor ... In all cases, the
    message remains on the queue"; 2034 MQRC_NO_MSG_UNDER_CURSOR
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "The
    cursor is positioned logically before the first message"."""
    adapter.define_queue("APP.U")
    qm = adapter.connect()
    for body in ("m1", "m2", "m3"):
        qm.put1("APP.U", text(body), NOW)
    q = qm.open("APP.U")
    with pytest.raises(MQIError) as exc:
        q.get(UNDER)
    assert exc.value.reason == 2034
    assert [q.get(o).body for o in (FIRST, NEXT, UNDER, UNDER)] == [b"m1", b"m2", b"m2", b"m2"]
    assert q.get(NEXT).body == b"m3"  # the cursor stayed on m2
    assert q.get(GetOptions(browse="under_cursor", lock=True, syncpoint=False)).body == b"m3"
    other = adapter.connect()
    assert drain(other.open("APP.U")) == ["m1", "m2"]  # m3 is locked
    assert q.get(GetOptions(under_cursor=True, syncpoint=False)).body == b"m3"
    assert other.inquire_queue("APP.U").curdepth == 0


def test_exclusive_input_refuses_other_input_opens_with_2042(adapter: Adapter) -> None:
    """``exclusive=True`` (MQOO_INPUT_EXCLUSIVE): while any handle has the queue open for
    input it fails with MQRC_OBJECT_IN_USE (2042); while it is open, input opens of every
    kind fail with 2042 and browse or output opens work; once closed, input opens work.

    IBM, 2042 MQRC_OBJECT_IN_USE (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041130_.html):
    "This arises if the request is for shared input, but the object is already open for
    exclusive input; it also arises if the request is for exclusive input, but the object is
    already open for input (of any sort)"; MQOO_BROWSE
    (http://www.setgetweb.com/p/WAS60/MQ/com.ibm.mq.csqzaw.doc_6.0.2.1/uj19780_.htm): "This
    is allowed even if the queue is currently open for MQOO_INPUT_EXCLUSIVE"."""
    adapter.define_queue("APP.X")
    one, two = adapter.connect(), adapter.connect()
    shared = one.open("APP.X")
    with pytest.raises(MQIError) as exc:
        two.open("APP.X", exclusive=True)
    assert exc.value.reason == 2042
    shared.close()
    mine = one.open("APP.X", exclusive=True)
    for kwargs in ({}, {"exclusive": True}):
        with pytest.raises(MQIError) as exc:
            two.open("APP.X", **kwargs)  # type: ignore[arg-type]
        assert exc.value.reason == 2042
    two.open("APP.X", input=False, browse=True).close()
    two.put1("APP.X", text("x"), NOW)
    assert mine.get(GET).body == b"x"
    mine.close()
    two.open("APP.X").close()


def test_browse_lock_hides_the_message_from_other_connections(adapter: Adapter) -> None:
    """MQGMO_LOCK: others neither browse nor get it until unlock, and it moves with the cursor."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    qm, other = adapter.connect(), adapter.connect()
    for body in ("a", "b"):
        qm.put1("APP.IN", text(body), NOW)
    mine, theirs = qm.open("APP.IN"), other.open("APP.IN")
    assert mine.get(GetOptions(browse="first", lock=True, syncpoint=False)).body == b"a"
    assert theirs.get(FIRST).body == b"b"
    assert theirs.get(GetOptions(syncpoint=False, wait_ms=0)).body == b"b"
    with pytest.raises(MQIError):
        theirs.get(GET)
    mine.unlock()
    assert theirs.get(FIRST).body == b"a"
    mine.get(GetOptions(browse="first", lock=True, syncpoint=False))
    qm.put1("APP.IN", text("c"), NOW)
    mine.get(GetOptions(browse="next", lock=True, syncpoint=False))  # lock moves to "c"
    assert theirs.get(FIRST).body == b"a"
    assert mine.get(GetOptions(under_cursor=True)).body == b"c"
    qm.commit()
    assert browse_all(theirs) == ["a"]


def test_lock_is_released_when_the_handle_closes(adapter: Adapter) -> None:
    """Closing the handle (MQCLOSE) drops its browse lock."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    mine = qm.open("APP.IN")
    mine.get(GetOptions(browse="first", lock=True))
    with pytest.raises(MQIError):
        other.open("APP.IN").get(GET)
    mine.close()
    assert other.open("APP.IN").get(GET).body == b"a"


def test_get_inhibited_is_2016_for_gets_and_browses(adapter: Adapter) -> None:
    """GET(DISABLED) fails MQGET (browse too) with MQRC_GET_INHIBITED."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    q = qm.open("APP.IN")
    adapter.alter_queue("APP.IN", get="DISABLED")
    for options in (GET, FIRST):
        with pytest.raises(MQIError) as exc:
            q.get(options)
        assert exc.value.reason == 2016
    adapter.alter_queue("APP.IN", get="ENABLED")
    assert q.get(GET).body == b"a"


def test_empty_queue_is_2033(adapter: Adapter) -> None:
    """Nothing to get: MQRC_NO_MSG_AVAILABLE, for gets and browses."""
    adapter.define_queue("APP.IN")
    q = adapter.connect().open("APP.IN")
    for options in (GET, FIRST, NEXT):
        with pytest.raises(MQIError) as exc:
            q.get(options)
        assert exc.value.reason == 2033
        assert exc.value.reason_name == "MQRC_NO_MSG_AVAILABLE"


@pytest.mark.timeout(60)  # a hang guard, not a speed target
def test_wait_returns_a_message_put_meanwhile(adapter: Adapter) -> None:
    """A get with wait_ms returns a message another connection puts during the wait, when
    it arrives: the message ended the wait (had the 60 s interval run out, the get would
    have failed with 2033). IBM, "WaitInterval (MQLONG)", https://www.ibm.com/support/
    knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q096890_.html: "the
    approximate time ... that the MQGET call waits for a suitable message to arrive"."""
    adapter.define_queue("APP.IN")
    getter, putter = adapter.connect(), adapter.connect()
    q = getter.open("APP.IN")

    def later() -> None:
        time.sleep(0.15)
        putter.put1("APP.IN", text("late"), NOW)

    thread = threading.Thread(target=later)
    thread.start()
    try:
        assert q.get(GetOptions(syncpoint=False, wait_ms=60_000)).body == b"late"
    finally:
        thread.join()


@pytest.mark.timeout(60)  # a hang guard, not a speed target
def test_wait_times_out_with_2033(adapter: Adapter) -> None:
    """A bounded wait on an empty queue ends with 2033 (that the get does wait for a
    message meanwhile is test_wait_returns_a_message_put_meanwhile's). IBM, same page:
    "If no suitable message has arrived after this time has elapsed, the call completes
    with MQCC_FAILED and reason code MQRC_NO_MSG_AVAILABLE"."""
    adapter.define_queue("APP.IN")
    q = adapter.connect().open("APP.IN")
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(wait_ms=120))
    assert exc.value.reason == 2033


def test_open_options_are_enforced(adapter: Adapter) -> None:
    """A handle without MQOO_BROWSE cannot browse (2036); without input cannot get (2037)."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    with pytest.raises(MQIError) as exc:
        qm.open("APP.IN", browse=False).get(FIRST)
    assert exc.value.reason == 2036
    with pytest.raises(MQIError) as exc:
        qm.open("APP.IN", input=False).get(GET)
    assert exc.value.reason == 2037


def test_closed_handle_and_connection_fail_cleanly(adapter: Adapter) -> None:
    """Using a closed handle is MQRC_HOBJ_ERROR (2019); a disconnected one MQRC_HCONN_ERROR."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    q = qm.open("APP.IN")
    q.close()
    with pytest.raises(MQIError) as exc:
        q.get(GET)
    assert exc.value.reason == 2019
    qm.disconnect()
    with pytest.raises(MQIError) as exc:
        qm.open("APP.IN")
    assert exc.value.reason == 2018


def test_inquire_reports_the_queue_manager_and_queues(adapter: Adapter) -> None:
    """MQINQ: DEADQ, CCSID; queue attributes and CURDEPTH; 2085 for unknown queues."""
    adapter.define_queue("APP.IN", maxdepth=7, maxmsgl=1000, put="DISABLED")
    qm = adapter.connect()
    info = qm.inquire()
    assert (info.name, info.dead_letter_q_name, info.ccsid) == (
        adapter.qmgr_name,
        "SYSTEM.DEAD.LETTER.QUEUE",
        819,
    )
    queue = qm.inquire_queue("APP.IN")
    assert (queue.maxdepth, queue.maxmsgl, queue.put_enabled, queue.get_enabled) == (
        7,
        1000,
        False,
        True,
    )
    assert queue.curdepth == 0
    with pytest.raises(MQIError) as exc:
        qm.inquire_queue("NOPE")
    assert exc.value.reason == 2085


def test_open_checks_the_connection_users_authority(adapter: Adapter) -> None:
    """With authority records for the user, MQOPEN needs GET (input), BROWSE and PUT
    (output) in them (2035 otherwise); other users, without records, are not affected."""
    adapter.define_queue("APP.SECURE")
    adapter.set_authrec("APP.SECURE", "eve", add=["PUT"])
    eve = adapter.connect(user="eve")
    eve.open("APP.SECURE", input=False, browse=False, output=True).put(text("x"), NOW)
    for kwargs in ({"input": True, "browse": False}, {"input": False, "browse": True}):
        with pytest.raises(MQIError) as exc:
            eve.open("APP.SECURE", **kwargs)
        assert exc.value.reason == 2035
    adapter.set_authrec("APP.SECURE", "eve", add=["GET", "BROWSE"])
    assert eve.open("APP.SECURE").get(GET).body == b"x"
    adapter.connect(user="mallory").open("APP.SECURE")
