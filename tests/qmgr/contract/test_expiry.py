"""Expiry: counting down, never returning expired messages, discarding, expiration reports."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import (
    MQRO_DISCARD_MSG,
    MQRO_EXPIRATION,
    MQRO_EXPIRATION_WITH_DATA,
    MQRO_EXPIRATION_WITH_FULL_DATA,
    MQRO_PASS_CORREL_ID,
    MQRO_PASS_DISCARD_AND_EXPIRY,
    MQRO_PASS_MSG_ID,
)
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from tests.qmgr.conftest import FakeClock
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)
FIRST = GetOptions(browse="first", syncpoint=False)


def empty(qm: QueueManager, queue: str, options: GetOptions = GET) -> bool:
    try:
        qm.open(queue).get(options)
    except MQIError as exc:
        return exc.reason == 2033
    return False


def test_remaining_expiry_counts_down_in_tenths(adapter: Adapter, fake_clock: FakeClock) -> None:
    """A got or browsed message carries the expiry left: put 50, 2.3 s later 27 remain."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x", expiry=50), NOW)
    q = qm.open("APP.IN")
    assert q.get(FIRST).md.expiry == 50
    fake_clock.advance(2.3)
    assert q.get(FIRST).md.expiry == 27
    assert q.get(GET).md.expiry == 27


def test_unlimited_expiry_stays_unlimited(adapter: Adapter, fake_clock: FakeClock) -> None:
    """Expiry -1 (MQEI_UNLIMITED) never counts down."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x"), NOW)
    fake_clock.advance(10**6)
    assert qm.open("APP.IN").get(GET).md.expiry == -1


def test_expired_message_is_never_returned_but_counts_until_discarded(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """Past its expiry a message still counts in CURDEPTH; the first get that passes it
    discards it and returns the next one."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    qm = adapter.connect()
    qm.put1("APP.IN", text("short", expiry=10), NOW)
    qm.put1("APP.IN", text("long", expiry=1000), NOW)
    fake_clock.advance(1.0)
    assert qm.inquire_queue("APP.IN").curdepth == 2
    got = qm.open("APP.IN").get(GET)
    assert (got.body, got.md.expiry) == (b"long", 990)
    assert qm.inquire_queue("APP.IN").curdepth == 0


def test_browse_discards_expired_messages_too(adapter: Adapter, fake_clock: FakeClock) -> None:
    """A browse that would have returned an expired message discards it."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x", expiry=5), NOW)
    fake_clock.advance(0.5)
    assert empty(qm, "APP.IN", FIRST)
    assert qm.inquire_queue("APP.IN").curdepth == 0


def test_expiry_keeps_running_through_a_backout(adapter: Adapter, fake_clock: FakeClock) -> None:
    """Time spent in a backed-out unit of work still counts; it may expire meanwhile."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x", expiry=20), NOW)
    qm.open("APP.IN").get(GetOptions(syncpoint=True))
    fake_clock.advance(3)
    qm.backout()
    assert empty(qm, "APP.IN")


def report_of(
    adapter: Adapter, report: int, body: bytes = b"B" * 150, **md: object
) -> tuple[MQMD, Message]:
    """Put an expiring message asking for ``report``, let it expire, return (put, report)."""
    assert adapter.clock is not None
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.REPLY")
    qm = adapter.connect()
    put = qm.put1(
        "APP.IN",
        Message(
            MQMD(format="MQSTR", expiry=10, report=report, reply_to_q="APP.REPLY", **md),  # type: ignore[arg-type]
            body,
        ),
        NOW,
    )
    adapter.clock.advance(5)
    assert empty(qm, "APP.IN")
    return put, qm.open("APP.REPLY").get(GET)


def test_expiration_report_without_data(adapter: Adapter, fake_clock: FakeClock) -> None:
    """MQRO_EXPIRATION: an MQMT_REPORT with MQFB_EXPIRATION, a new MsgId, CorrelId = the
    original MsgId, no data, to the ReplyToQ."""
    put, report = report_of(adapter, MQRO_EXPIRATION)
    md = report.md
    assert (md.msg_type, md.feedback) == (4, 258)
    assert md.msg_id != put.msg_id
    assert md.correl_id == put.msg_id
    assert report.body == b""
    assert md.expiry == -1


def test_expiration_report_with_data_keeps_100_bytes(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """MQRO_EXPIRATION_WITH_DATA carries the first 100 bytes of the message."""
    _, report = report_of(adapter, MQRO_EXPIRATION_WITH_DATA)
    assert report.body == b"B" * 100
    assert report.md.format == "MQSTR"


def test_expiration_report_with_full_data(adapter: Adapter, fake_clock: FakeClock) -> None:
    """MQRO_EXPIRATION_WITH_FULL_DATA carries all of it."""
    _, report = report_of(adapter, MQRO_EXPIRATION_WITH_FULL_DATA)
    assert report.body == b"B" * 150


def test_expiration_report_passes_ids_when_asked(adapter: Adapter, fake_clock: FakeClock) -> None:
    """MQRO_PASS_MSG_ID and MQRO_PASS_CORREL_ID copy the original ids into the report."""
    correl = b"CORREL".ljust(24, b"\0")
    put, report = report_of(
        adapter, MQRO_EXPIRATION | MQRO_PASS_MSG_ID | MQRO_PASS_CORREL_ID, correl_id=correl
    )
    assert (report.md.msg_id, report.md.correl_id) == (put.msg_id, correl)


def test_expiration_report_that_cannot_be_delivered_goes_to_the_dlq(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """An expiration report whose ReplyToQ does not exist goes to the dead-letter queue with
    an MQDLH (Reason 2085, DestQName the ReplyToQ); the get that discarded the expired
    message goes on to the next one. IBM, DeadLetterQName
    (https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html): "if the report message
    cannot be delivered to its destination queue ... the report message is placed on the
    dead-letter (undelivered-message) queue"."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x", expiry=10, report=MQRO_EXPIRATION, reply_to_q="NO.SUCH.Q"), NOW)
    qm.put1("APP.IN", text("next"), NOW)
    fake_clock.advance(2)
    assert qm.open("APP.IN").get(GET).body == b"next"
    dead = qm.open("SYSTEM.DEAD.LETTER.QUEUE").get(GET)
    letter = decode_dead_letter(dead.md, dead.body)
    assert letter.dlh is not None
    assert (letter.dlh.reason, letter.dlh.dest_q_name.strip()) == (2085, "NO.SUCH.Q")
    assert (letter.md.msg_type, letter.md.feedback) == (4, 258)


def test_expiration_report_passing_discard_and_expiry_lives_60_seconds(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """MQRO_EXPIRATION with MQRO_PASS_DISCARD_AND_EXPIRY and MQRO_DISCARD_MSG: the original
    has no expiry left, so the report gets 60 seconds (Expiry 600) and Report
    MQRO_DISCARD_MSG. IBM, Report (MQLONG)
    (https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q097680_.htm),
    MQRO_PASS_DISCARD_AND_EXPIRY: the report inherits MQRO_DISCARD_MSG and the remaining
    expiry "(if this is not an expiry report)"; an expiry report's is 60 seconds."""
    _, report = report_of(
        adapter, MQRO_EXPIRATION | MQRO_PASS_DISCARD_AND_EXPIRY | MQRO_DISCARD_MSG
    )
    assert (report.md.expiry, report.md.report) == (600, MQRO_DISCARD_MSG)


def test_no_report_unless_asked(adapter: Adapter, fake_clock: FakeClock) -> None:
    """An expired message without MQRO_EXPIRATION* produces no report."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.REPLY")
    qm = adapter.connect()
    qm.put1("APP.IN", text("x", expiry=10, reply_to_q="APP.REPLY"), NOW)
    fake_clock.advance(2)
    assert empty(qm, "APP.IN")
    assert qm.inquire_queue("APP.REPLY").curdepth == 0


@pytest.mark.parametrize("expiry", [0, -2])
def test_invalid_expiry_is_2013(adapter: Adapter, expiry: int) -> None:
    """Expiry 0 or below -1 is MQRC_EXPIRY_ERROR."""
    adapter.define_queue("APP.IN")
    with pytest.raises(MQIError) as exc:
        adapter.connect().put1("APP.IN", text("x", expiry=expiry), NOW)
    assert exc.value.reason == 2013


def test_discarding_is_not_part_of_the_unit_of_work(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """A get under syncpoint that passes an expired message discards it for good: a
    backout does not bring it back, and its report is sent at once."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    adapter.define_queue("APP.REPLY")
    qm = adapter.connect()
    qm.put1("APP.IN", text("old", expiry=10, report=MQRO_EXPIRATION, reply_to_q="APP.REPLY"), NOW)
    qm.put1("APP.IN", text("fresh"), NOW)
    fake_clock.advance(2)
    assert qm.open("APP.IN").get(GetOptions(syncpoint=True)).body == b"fresh"
    qm.backout()
    assert qm.inquire_queue("APP.IN").curdepth == 1
    assert qm.inquire_queue("APP.REPLY").curdepth == 1
    got = qm.open("APP.IN").get(GET)
    assert (got.body, got.md.backout_count) == (b"fresh", 1)


_UNDER = GetOptions(browse="under_cursor", syncpoint=False)
_GET_UNDER = GetOptions(under_cursor=True, syncpoint=False)
_NEXT = GetOptions(browse="next", syncpoint=False)


def _reason(call: object) -> int:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    return exc.value.reason


@pytest.mark.parametrize("lock", [False, True])
def test_a_message_that_expires_under_the_browse_cursor_is_2034_and_the_cursor_stays(
    adapter: Adapter, fake_clock: FakeClock, lock: bool
) -> None:
    """The browse cursor is on B (locked or not) when B's expiry passes: a browse under
    the cursor and a get under the cursor both fail with MQRC_NO_MSG_UNDER_CURSOR (2034),
    B is discarded with the expiration report it asked for, and the next browse returns
    C, the message after B (the cursor stays where B was; it does not go back to the
    start). IBM's 2034 page
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041050_.html): "the
    browse cursor is not positioned at a retrievable message. This is caused by ... The
    message the browse cursor was positioned on has expired"."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    adapter.define_queue("APP.REPLY")
    qm = adapter.connect()
    qm.put1("APP.IN", text("A"), NOW)
    qm.put1("APP.IN", text("B", expiry=10, report=MQRO_EXPIRATION, reply_to_q="APP.REPLY"), NOW)
    qm.put1("APP.IN", text("C"), NOW)
    q = qm.open("APP.IN")
    assert q.get(FIRST).body == b"A"
    assert q.get(GetOptions(browse="next", syncpoint=False, lock=lock)).body == b"B"
    fake_clock.advance(2)
    assert _reason(lambda: q.get(_GET_UNDER)) == 2034
    assert _reason(lambda: q.get(_UNDER)) == 2034
    assert q.get(_NEXT).body == b"C"
    reports = qm.open("APP.REPLY").get(GET)
    assert reports.md.feedback == 258  # MQFB_EXPIRATION
    assert empty(qm, "APP.REPLY")
    assert [qm.open("APP.IN").get(GET).body for _ in range(2)] == [b"A", b"C"]


def test_a_message_behind_the_cursor_expires_and_the_next_browse_first_discards_it(
    adapter: Adapter, fake_clock: FakeClock
) -> None:
    """A message the cursor has passed expires: browse-next goes on from the cursor (C),
    and the next browse-first, which would have returned it, discards it (with its
    expiration report) and returns B. IBM's Expiry page
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q097490_.html): "The
    message is discarded when a browse or nonbrowse MQGET call occurs that would have
    returned the message had it not already expired"."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    adapter.define_queue("APP.REPLY")
    qm = adapter.connect()
    qm.put1("APP.IN", text("A", expiry=10, report=MQRO_EXPIRATION, reply_to_q="APP.REPLY"), NOW)
    qm.put1("APP.IN", text("B"), NOW)
    qm.put1("APP.IN", text("C"), NOW)
    q = qm.open("APP.IN")
    assert q.get(FIRST).body == b"A"
    assert q.get(_NEXT).body == b"B"
    fake_clock.advance(2)
    assert empty(qm, "APP.REPLY")  # (nothing has passed it yet)
    assert q.get(_NEXT).body == b"C"
    assert q.get(FIRST).body == b"B"
    assert qm.open("APP.REPLY").get(GET).md.feedback == 258
