"""A call that fails leaves the queue manager as it was: the queue's messages (order,
bytes, BackoutCount), the unit of work the connection has open, and the browse cursor.

Each case does some work in a unit of work, makes a call fail one way, then checks the
reason and that committing (or backing out) gives exactly what it would have given
without the failed call.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from tests.qmgr.contract.conftest import Adapter, collect, text

NOW = PutOptions(syncpoint=False)
UOW = PutOptions(syncpoint=True)
GET_UOW = GetOptions(syncpoint=True)
FIRST = GetOptions(browse="first", syncpoint=False)
NEXT = GetOptions(browse="next", syncpoint=False)


def state(qm: QueueManager, queue: str) -> list[tuple[bytes, bytes, int]]:
    """The committed messages of ``queue`` in order: (MsgId, data, BackoutCount)."""
    return [
        (m.md.msg_id, m.body, m.md.backout_count)
        for m in collect(qm.open(queue, input=False, browse=True), FIRST, NEXT)
    ]


def fails(call: Callable[[], object]) -> int:
    with pytest.raises(MQIError) as exc:
        call()
    return exc.value.reason


def test_a_put_to_a_full_queue_inside_a_unit_of_work_leaves_the_unit_of_work(
    adapter: Adapter,
) -> None:
    """MQPUT and MQPUT1 to a full queue fail with MQRC_Q_FULL (2053) and change nothing:
    the unit of work's earlier puts and gets are all still in it, and MQCMIT commits them
    as if the failed calls had not been made. IBM's 2053 page
    (http://www.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041240_.htm):
    "An MQPUT or MQPUT1 call, or a command, failed because the queue is full"."""
    adapter.define_queue("APP.SMALL", maxdepth=2)
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("in"), NOW)
    got = qm.open("APP.IN").get(GET_UOW)
    out = qm.open("APP.SMALL", output=True)
    out.put(text("one"), UOW)
    qm.put1("APP.SMALL", text("two"), UOW)
    assert fails(lambda: out.put(text("three"), UOW)) == 2053
    assert fails(lambda: qm.put1("APP.SMALL", text("three"), UOW)) == 2053
    assert fails(lambda: qm.put1("APP.SMALL", text("three"), NOW)) == 2053
    qm.commit()
    assert [body for _, body, _ in state(other, "APP.SMALL")] == [b"one", b"two"]
    assert state(other, "APP.IN") == []
    assert got.body == b"in"


def test_a_put1_to_a_put_inhibited_queue_leaves_the_unit_of_work(adapter: Adapter) -> None:
    """MQPUT1 to a queue defined PUT(DISABLED) fails with MQRC_PUT_INHIBITED (2051); the
    unit of work's get is still in it (MQBACK gives the message back once, BackoutCount 1)
    and the inhibited queue is untouched. IBM's 2051 page
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041220_.html):
    "MQPUT and MQPUT1 calls are currently inhibited for the queue"."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.SHUT")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.SHUT", text("kept"), NOW)
    adapter.alter_queue("APP.SHUT", put="DISABLED")
    qm.put1("APP.IN", text("a"), NOW)
    before = state(other, "APP.SHUT")
    qm.open("APP.IN").get(GET_UOW)
    assert fails(lambda: qm.put1("APP.SHUT", text("x"), UOW)) == 2051
    assert fails(lambda: qm.put1("APP.SHUT", text("x"), NOW)) == 2051
    qm.backout()
    assert state(other, "APP.SHUT") == before
    assert [(body, count) for _, body, count in state(other, "APP.IN")] == [(b"a", 1)]


def test_an_open_of_an_unknown_queue_leaves_the_unit_of_work(adapter: Adapter) -> None:
    """MQOPEN of a queue that does not exist fails with MQRC_UNKNOWN_OBJECT_NAME (2085)
    inside a unit of work; the unit of work's put is still in it and MQCMIT makes it
    visible. IBM's Unknown Object Name event page (MQRC_UNKNOWN_OBJECT_NAME; a copy at
    http://setgetweb.com/p/MQ92/ref/q050100_.htm): "On an MQOPEN or MQPUT1 call ... the
    ObjectName in the object descriptor is not recognized for the specified object type"."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), UOW)
    assert fails(lambda: qm.open("NO.SUCH.QUEUE")) == 2085
    assert fails(lambda: qm.put1("NO.SUCH.QUEUE", text("x"), UOW)) == 2085
    qm.commit()
    assert [body for _, body, _ in state(other, "APP.IN")] == [b"a"]


def test_a_get_from_a_get_inhibited_queue_leaves_its_messages_and_the_unit_of_work(
    adapter: Adapter,
) -> None:
    """MQGET from a queue altered GET(DISABLED) fails with MQRC_GET_INHIBITED (2016), on
    an open handle too; the queue's messages stay in order with their BackoutCount, and
    the unit of work's earlier get is still in it (MQCMIT makes it final). IBM's
    InhibitGet page (a copy at http://setgetweb.com/p/MQ90/ref.dev/q103250_.htm): "MQGET
    calls fail with reason code MQRC_GET_INHIBITED. This includes MQGET calls that specify
    MQGMO_BROWSE_FIRST or MQGMO_BROWSE_NEXT", and "If an MQGET call operating within a
    unit of work completes successfully, changing the value of the InhibitGet attribute
    subsequently to MQQA_GET_INHIBITED does not prevent the unit of work being
    committed"."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.SHUT")
    qm, other = adapter.connect(), adapter.connect()
    for body in ("x", "y"):
        qm.put1("APP.SHUT", text(body), NOW)
    qm.put1("APP.IN", text("a"), NOW)
    shut = qm.open("APP.SHUT")
    qm.open("APP.IN").get(GET_UOW)
    before = state(other, "APP.SHUT")
    adapter.alter_queue("APP.SHUT", get="DISABLED")
    assert fails(lambda: shut.get(GET_UOW)) == 2016
    assert fails(lambda: shut.get(GetOptions(syncpoint=False))) == 2016
    qm.commit()
    adapter.alter_queue("APP.SHUT", get="ENABLED")
    assert state(other, "APP.SHUT") == before
    assert state(other, "APP.IN") == []


def test_a_get_that_finds_no_match_leaves_the_browse_cursor(adapter: Adapter) -> None:
    """A browse and a get that match no message fail with MQRC_NO_MSG_AVAILABLE (2033)
    and move nothing: the next browse-next returns the message after the one under the
    cursor, and no message was taken. IBM's 2033 page says nothing of the cursor; this
    holds it to the rule IBM's 2080 page gives for a browse that fails
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041460_.html):
    "the browse cursor remains where it was before this call"."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    for body in ("a", "b", "c"):
        qm.put1("APP.IN", text(body), NOW)
    q = qm.open("APP.IN", browse=True)
    assert q.get(FIRST).body == b"a"
    missing = b"NO SUCH MSGID".ljust(24, b"\0")
    no_match = GetOptions(browse="next", syncpoint=False, msg_id=missing)
    assert fails(lambda: q.get(no_match)) == 2033
    assert fails(lambda: q.get(GetOptions(syncpoint=True, msg_id=missing))) == 2033
    assert q.get(NEXT).body == b"b"
    qm.backout()
    assert [body for _, body, _ in state(adapter.connect(), "APP.IN")] == [b"a", b"b", b"c"]


def test_a_message_too_big_for_a_full_queue_is_2030(adapter: Adapter) -> None:
    """A put of a message longer than MAXMSGL to a queue at MAXDEPTH fails with
    MQRC_MSG_TOO_BIG_FOR_Q (2030), not MQRC_Q_FULL (2053): the message is checked before
    the queue's room. IBM's pages give no order between the two (2030,
    http://setgetweb.com/p/MQ90/tro/q041020_.htm: "the message was too long for the
    queue"; 2053,
    http://www.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041240_.htm:
    "failed because the queue is full"); this is our choice, the same on both back ends,
    and a smaller message still gets 2053."""
    adapter.define_queue("APP.SMALL", maxdepth=1, maxmsgl=10)
    qm = adapter.connect()
    qm.put1("APP.SMALL", text("1"), NOW)
    before = state(qm, "APP.SMALL")
    assert fails(lambda: qm.put1("APP.SMALL", text("x" * 11), NOW)) == 2030
    assert fails(lambda: qm.put1("APP.SMALL", text("x"), NOW)) == 2053
    assert state(qm, "APP.SMALL") == before


def test_a_get_or_put_past_maxumsgs_is_2024_and_leaves_the_unit_of_work(
    adapter: Adapter,
) -> None:
    """With the queue manager's MAXUMSGS(3), a unit of work that holds a get and two puts
    under syncpoint refuses one more get, MQPUT or MQPUT1 under syncpoint with
    MQRC_SYNCPOINT_LIMIT_REACHED (2024) and changes nothing: MQCMIT commits exactly the
    three, a put outside syncpoint still goes, and the next unit of work has room again.
    A put asking for a COA report counts the report too (1 more left, 2 needed). MQINQ
    answers MaxUncommittedMsgs. IBM's 2024 page
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040970_.html): "An MQGET,
    MQPUT, or MQPUT1 call failed because it would have caused the number of uncommitted
    messages in the current unit of work to exceed the limit defined for the queue
    manager", counting "COA report messages generated by the queue manager for messages
    put with the MQPMO_SYNCPOINT option"; IBM's MaxUncommittedMsgs page
    (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=manager-maxuncommittedmsgs-mqlong):
    "Messages put or retrieved by the application outside a unit of work" are not
    counted. The limit is the queue manager's as altered, for connections made before the
    ALTER QMGR too."""
    from dlqhandler.mq import selectors as s
    from dlqhandler.mq.constants import MQRO_COA

    for name in ("APP.IN", "APP.OUT", "APP.REPLY"):
        adapter.define_queue(name)
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.OUT", text("before"), UOW)  # (a connection made before the ALTER sees it)
    qm.backout()
    adapter.mqsc("ALTER QMGR MAXUMSGS(3)")
    assert qm.inquire_object("qmgr", "", [s.MQIA_MAX_UNCOMMITTED_MSGS]) == {
        s.MQIA_MAX_UNCOMMITTED_MSGS: 3
    }
    for body in ("a", "b", "c"):
        qm.put1("APP.IN", text(body), NOW)
    q = qm.open("APP.IN")
    out = qm.open("APP.OUT", output=True)
    assert q.get(GET_UOW).body == b"a"
    qm.put1("APP.OUT", text("x"), UOW)
    coa = text("wants coa", report=MQRO_COA, reply_to_q="APP.REPLY")
    assert fails(lambda: qm.put1("APP.OUT", coa, UOW)) == 2024
    out.put(text("y"), UOW)
    assert fails(lambda: out.put(text("z"), UOW)) == 2024
    assert fails(lambda: qm.put1("APP.OUT", text("z"), UOW)) == 2024
    assert fails(lambda: q.get(GET_UOW)) == 2024
    qm.put1("APP.OUT", text("now"), NOW)
    qm.commit()
    assert [body for _, body, _ in state(other, "APP.OUT")] == [b"x", b"y", b"now"]
    assert [body for _, body, _ in state(other, "APP.IN")] == [b"b", b"c"]
    assert state(other, "APP.REPLY") == []
    assert q.get(GET_UOW).body == b"b"
    qm.backout()
    assert [(body, n) for _, body, n in state(other, "APP.IN")] == [(b"b", 1), (b"c", 0)]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"expiry": 0}, 2013),
        ({"expiry": -2}, 2013),
        ({"priority": -2}, 2050),
        ({"persistence": 3}, 2047),
        ({"msg_type": 0}, 2029),
        ({"msg_type": 1_000_000_000}, 2029),
        ({"feedback": -1}, 2014),
        ({"msg_type": 1}, 2027),
    ],
    ids=str,
)
def test_a_put_of_a_bad_descriptor_leaves_the_unit_of_work(
    adapter: Adapter, fields: dict[str, int], reason: int
) -> None:
    """MQPUT and MQPUT1 of a message whose MQMD field IBM refuses fail with IBM's reason,
    under syncpoint and outside it, and change nothing: the unit of work's get and put are
    still in it (MQCMIT commits exactly them) and the target queue gets nothing. IBM:
    2013 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040870_.html) "the value
    specified for the Expiry field in the message descriptor MQMD is not valid"; 2050
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041210_.html) "the value
    specified for the Priority field ... is not valid"; 2047
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041180_.html) "the value
    specified for the Persistence field ... is not valid"; 2029
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041010_.html) "the value
    specified for the MsgType field in the message descriptor (MQMD) is not valid"; 2014
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040880_.html) "The value is not
    MQFB_NONE, and is outside both the range defined for system feedback codes and the
    range defined for application feedback codes"; 2027 for a request without a reply-to
    queue, ReplyToQ (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097660_.html):
    "this field must not be blank if the MsgType field has the value MQMT_REQUEST"."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.OUT")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("in"), NOW)
    assert qm.open("APP.IN").get(GET_UOW).body == b"in"
    qm.put1("APP.OUT", text("kept"), UOW)
    out = qm.open("APP.OUT", output=True)
    bad = text("bad", **fields)
    for options in (UOW, NOW):
        assert fails(lambda o=options: out.put(bad, o)) == reason
        assert fails(lambda o=options: qm.put1("APP.OUT", bad, o)) == reason
    assert state(other, "APP.OUT") == []
    qm.commit()
    assert [body for _, body, _ in state(other, "APP.OUT")] == [b"kept"]
    assert state(other, "APP.IN") == []


def test_calls_on_a_handle_not_opened_for_them_leave_the_unit_of_work(adapter: Adapter) -> None:
    """A browse on a handle not opened to browse (MQRC_NOT_OPEN_FOR_BROWSE, 2036), a get
    on one not opened for input (MQRC_NOT_OPEN_FOR_INPUT, 2037) and a put on one not
    opened for output (MQRC_NOT_OPEN_FOR_OUTPUT, 2039) fail inside a unit of work and
    change nothing: MQBACK gives back the one message the unit of work got (BackoutCount
    1) and drops its one put; the queues' other messages stay as they were. IBM: 2036
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041070_.html) "the queue had not
    been opened for browse"; 2037
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041080_.html) "the queue had not
    been opened for input"; 2039
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041100_.html) "the queue had not
    been opened for output"."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.OUT")
    qm, other = adapter.connect(), adapter.connect()
    for body in ("a", "b"):
        qm.put1("APP.IN", text(body), NOW)
    getter = qm.open("APP.IN", input=True, browse=False)
    putter = qm.open("APP.OUT", input=False, output=True)
    assert getter.get(GET_UOW).body == b"a"
    putter.put(text("uncommitted"), UOW)
    assert fails(lambda: getter.get(FIRST)) == 2036
    assert fails(lambda: putter.get(GET_UOW)) == 2037
    assert fails(lambda: getter.put(text("x"), UOW)) == 2039
    qm.backout()
    assert [(body, n) for _, body, n in state(other, "APP.IN")] == [(b"a", 1), (b"b", 0)]
    assert state(other, "APP.OUT") == []


def test_calls_after_close_or_disconnect_fail_and_take_nothing(adapter: Adapter) -> None:
    """A get or put on a closed handle is MQRC_HOBJ_ERROR (2019); every call of a
    connection after MQDISC (MQOPEN, MQPUT1, MQGET, MQCMIT, MQBACK, MQINQ) is
    MQRC_HCONN_ERROR (2018); none takes or puts a message, and the unit of work the
    disconnect ended was backed out (the port's disconnect backs out, as IBM's MQDISC does
    for a connection that ends abnormally; docs/embedded-qmgr.md). IBM: 2019
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040920_.html) "The object
    handle Hobj is not valid"; 2018
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040910_.html) "The connection
    handle Hconn is not valid"."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    for body in ("a", "b"):
        other.put1("APP.IN", text(body), NOW)
    closed = qm.open("APP.IN", output=True)
    closed.close()
    assert fails(lambda: closed.get(GetOptions(syncpoint=False))) == 2019
    assert fails(lambda: closed.put(text("x"), NOW)) == 2019
    q = qm.open("APP.IN")
    assert q.get(GET_UOW).body == b"a"
    qm.disconnect()
    for call in (
        lambda: qm.open("APP.IN"),
        lambda: qm.put1("APP.IN", text("x"), NOW),
        lambda: q.get(GetOptions(syncpoint=False)),
        qm.commit,
        qm.backout,
        lambda: qm.inquire_queue("APP.IN"),
    ):
        assert fails(call) == 2018
    assert [(body, n) for _, body, n in state(other, "APP.IN")] == [(b"a", 1), (b"b", 0)]


def test_a_message_over_the_queue_managers_maxmsgl_is_2031(adapter: Adapter) -> None:
    """With ALTER QMGR MAXMSGL(32768), a message one byte longer fails with
    MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031) on MQPUT and MQPUT1, under syncpoint or not, even to
    a queue whose own MAXMSGL would take it (and before the queue's 2030), and changes
    nothing: the unit of work's put is still in it; a message of exactly 32768 bytes goes.
    IBM, 2031 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041030_.html): "An
    MQPUT or MQPUT1 call was issued to put a message on a queue, but the message was too
    long for the queue manager"."""
    adapter.mqsc("ALTER QMGR MAXMSGL(32768)")
    adapter.define_queue("APP.OUT")
    adapter.define_queue("APP.SMALL", maxmsgl=10)
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.OUT", text("kept"), UOW)
    out = qm.open("APP.OUT", output=True)
    big = text("x" * 32769)
    for options in (UOW, NOW):
        assert fails(lambda o=options: out.put(big, o)) == 2031
        assert fails(lambda o=options: qm.put1("APP.OUT", big, o)) == 2031
        assert fails(lambda o=options: qm.put1("APP.SMALL", big, o)) == 2031
    assert fails(lambda: qm.put1("APP.SMALL", text("x" * 11), NOW)) == 2030
    out.put(text("y" * 32768), UOW)
    qm.commit()
    assert [len(body) for _, body, _ in state(other, "APP.OUT")] == [4, 32768]
    assert state(other, "APP.SMALL") == []


def test_inquire_needs_inq_authority_and_leaves_the_unit_of_work(adapter: Adapter) -> None:
    """With authority records for the user, MQOPEN for inquiry (the port's inquire_queue
    and inquire_object on a queue) needs INQ: MQRC_NOT_AUTHORIZED (2035) without it, and the
    unit of work's get is still in it (MQBACK gives the message back once); a queue that
    does not exist is still 2085; once INQ is added the inquiry answers.
    IBM, MQOPEN options
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101020_.html), MQOO_INQUIRE: "Open
    the object to query attributes"; 2035
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html): "The user is not
    authorized to perform the operation attempted"."""
    from dlqhandler.mq import selectors as s

    adapter.define_queue("APP.SECURE")
    adapter.set_authrec("APP.SECURE", "eve", add=["GET", "BROWSE", "PUT"])
    eve = adapter.connect(user="eve")
    eve.put1("APP.SECURE", text("a"), NOW)
    assert eve.open("APP.SECURE").get(GET_UOW).body == b"a"
    assert fails(lambda: eve.inquire_queue("APP.SECURE")) == 2035
    assert (
        fails(lambda: eve.inquire_object("queue", "APP.SECURE", [s.MQIA_CURRENT_Q_DEPTH])) == 2035
    )
    assert fails(lambda: eve.inquire_queue("NO.SUCH.QUEUE")) == 2085
    eve.backout()
    assert [(body, n) for _, body, n in state(adapter.connect(), "APP.SECURE")] == [(b"a", 1)]
    adapter.set_authrec("APP.SECURE", "eve", add=["INQ"])
    assert eve.inquire_queue("APP.SECURE").curdepth == 1


def test_a_waiting_get_ends_with_2016_when_the_queue_is_get_inhibited(adapter: Adapter) -> None:
    """An MQGET with a wait on an empty queue, which another connection then alters
    GET(DISABLED), ends with MQRC_GET_INHIBITED (2016) well before its wait is over, and
    the unit of work's earlier get is still in it (MQBACK gives that message back once).
    IBM, InhibitGet (a copy at http://setgetweb.com/p/MQ90/ref.dev/q103250_.htm): "MQGET
    calls fail with reason code MQRC_GET_INHIBITED"; MQGMO_WAIT
    (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q096780_.html): "the wait is
    canceled" when "Get operations are inhibited for the queue"."""
    import threading
    import time

    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.EMPTY")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    assert qm.open("APP.IN").get(GET_UOW).body == b"a"
    empty = qm.open("APP.EMPTY")
    shut = threading.Timer(0.3, lambda: adapter.alter_queue("APP.EMPTY", get="DISABLED"))
    started = time.monotonic()
    shut.start()
    try:
        assert fails(lambda: empty.get(GetOptions(syncpoint=True, wait_ms=20_000))) == 2016
    finally:
        shut.join()
    assert time.monotonic() - started < 10
    qm.backout()
    assert [(body, n) for _, body, n in state(other, "APP.IN")] == [(b"a", 1)]


def test_inquiring_the_queue_manager_needs_inq_on_it(adapter: Adapter) -> None:
    """With an authority record for the user on the queue manager object
    (SET AUTHREC OBJTYPE(QMGR)), MQOPEN of the queue manager for inquiry (the port's
    inquire and inquire_object("qmgr")) without INQ is MQRC_NOT_AUTHORIZED (2035), and the
    unit of work's get is still in it; once INQ is added the inquiry answers. A record on
    a queue does not limit the queue manager object. IBM, Authorizations for MQI calls
    (https://ibm.com/docs/SSFKSJ_9.3.0/refadmin/q083510_.html): inq "Make an inquiry on a
    specific queue using an MQINQ call", and Granting authority to inquire on a queue
    manager (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=manager-granting-authority-inquire-queue):
    "setmqaut -m QMgrName -n ObjectProfile -t qmgr -g GroupName +inq"."""
    from dlqhandler.mq import selectors as s

    adapter.define_queue("APP.IN")
    adapter.set_authrec("APP.IN", "eve", add=["GET", "BROWSE", "PUT"])
    eve = adapter.connect(user="eve")
    assert eve.inquire().name == adapter.qmgr_name  # (no QMGR record: not limited)
    adapter.set_authrec(adapter.qmgr_name, "eve", add=["CONNECT"], objtype="QMGR")
    eve = adapter.connect(user="eve")
    eve.put1("APP.IN", text("a"), NOW)
    assert eve.open("APP.IN").get(GET_UOW).body == b"a"
    assert fails(eve.inquire) == 2035
    assert fails(lambda: eve.inquire_object("qmgr", "", [s.MQCA_Q_MGR_NAME])) == 2035
    eve.backout()
    assert [(body, n) for _, body, n in state(adapter.connect(), "APP.IN")] == [(b"a", 1)]
    adapter.set_authrec(adapter.qmgr_name, "eve", add=["INQ"], objtype="QMGR")
    assert eve.inquire().name == adapter.qmgr_name


def test_connecting_needs_connect_on_the_queue_manager(adapter: Adapter) -> None:
    """With an authority record for the user on the queue manager object, MQCONN without
    CONNECT is MQRC_NOT_AUTHORIZED (2035) and leaves nothing behind (other connections and
    their messages are untouched); once CONNECT is added the user connects. IBM,
    Authorizations for MQI calls (https://ibm.com/docs/SSFKSJ_9.3.0/refadmin/q083510_.html):
    connect "Connect the application to the specified queue manager using an MQCONN call"."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    adapter.set_authrec(adapter.qmgr_name, "eve", add=["INQ"], objtype="QMGR")
    assert fails(lambda: adapter.connect(user="eve")) == 2035
    assert [body for _, body, _ in state(qm, "APP.IN")] == [b"a"]
    adapter.set_authrec(adapter.qmgr_name, "eve", add=["CONNECT"], objtype="QMGR")
    assert adapter.connect(user="eve").inquire().name == adapter.qmgr_name
