"""Units of work: commit, backout, BackoutCount, visibility of uncommitted work."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
UOW = PutOptions(syncpoint=True)
GET = GetOptions(syncpoint=False)
FIRST = GetOptions(browse="first", syncpoint=False)


def nothing(call: object) -> bool:
    try:
        call()  # type: ignore[operator]
    except MQIError as exc:
        return exc.reason == 2033
    return False


def test_uncommitted_puts_are_invisible_until_commit(adapter: Adapter) -> None:
    """A put under syncpoint is seen by nobody (the putter included) until MQCMIT."""
    adapter.define_queue("APP.IN")
    putter, other = adapter.connect(), adapter.connect()
    putter.put1("APP.IN", text("a"), UOW)
    assert nothing(lambda: other.open("APP.IN").get(FIRST))
    assert nothing(lambda: putter.open("APP.IN").get(GET))
    assert other.inquire_queue("APP.IN").curdepth == 1  # CURDEPTH counts it, as MQ does
    putter.commit()
    assert other.open("APP.IN").get(GET).body == b"a"


def test_backout_drops_uncommitted_puts(adapter: Adapter) -> None:
    """MQBACK removes the unit of work's puts; the depth goes back down."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    q = qm.open("APP.IN", output=True)
    q.put(text("a"), UOW)
    qm.put1("APP.IN", text("b"), UOW)
    qm.backout()
    assert qm.inquire_queue("APP.IN").curdepth == 0
    assert nothing(lambda: q.get(GET))


def test_got_messages_are_invisible_to_others_until_backout(adapter: Adapter) -> None:
    """A get under syncpoint hides the message from everyone's browse and get."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    assert qm.open("APP.IN").get(GetOptions(syncpoint=True)).body == b"a"
    theirs = other.open("APP.IN")
    assert nothing(lambda: theirs.get(FIRST))
    assert nothing(lambda: theirs.get(GET))
    assert other.inquire_queue("APP.IN").curdepth == 0
    qm.backout()
    assert theirs.get(FIRST).body == b"a"


def test_commit_makes_gets_final_and_puts_visible_together(adapter: Adapter) -> None:
    """One unit of work moves a message: get from one queue, put to another, commit."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.OUT")
    qm = adapter.connect()
    qm.put1("APP.IN", text("move me"), NOW)
    msg = qm.open("APP.IN").get(GetOptions(syncpoint=True))
    qm.put1("APP.OUT", msg, UOW)
    qm.commit()
    assert qm.inquire_queue("APP.IN").curdepth == 0
    assert qm.inquire_queue("APP.OUT").curdepth == 1
    qm.backout()  # nothing left to back out
    assert qm.open("APP.OUT").get(GET).body == b"move me"


def test_backout_restores_messages_with_backout_count_incremented(adapter: Adapter) -> None:
    """Each backed-out get adds 1 to BackoutCount; browses never count."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("poison"), NOW)
    q = qm.open("APP.IN")
    for expected in range(3):
        assert q.get(FIRST).md.backout_count == expected
        assert q.get(GetOptions(syncpoint=True)).md.backout_count == expected
        qm.backout()
    final = q.get(GetOptions(syncpoint=True))
    assert final.md.backout_count == 3
    qm.commit()


def test_backed_out_message_keeps_its_place(adapter: Adapter) -> None:
    """A backed-out message goes back to its original position, not to the end."""
    adapter.define_queue("APP.IN", msgdlvsq="FIFO")
    qm = adapter.connect()
    for body in ("a", "b", "c"):
        qm.put1("APP.IN", text(body), NOW)
    q = qm.open("APP.IN")
    assert q.get(GetOptions(syncpoint=True)).body == b"a"
    qm.backout()
    assert q.get(GET).body == b"a"


def test_non_syncpoint_work_is_not_part_of_the_unit_of_work(adapter: Adapter) -> None:
    """Puts and gets outside syncpoint are final at once; a backout leaves them be."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    qm.put1("APP.IN", text("b"), UOW)
    qm.backout()
    q = qm.open("APP.IN")
    assert q.get(GET).body == b"a"
    qm.backout()
    assert qm.inquire_queue("APP.IN").curdepth == 0


def test_disconnect_backs_out(adapter: Adapter) -> None:
    """MQDISC with a unit of work in flight backs it out (as the port promises)."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("APP.OUT")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    qm.open("APP.IN").get(GetOptions(syncpoint=True))
    qm.put1("APP.OUT", text("b"), UOW)
    qm.disconnect()
    got = other.open("APP.IN").get(GET)
    assert (got.body, got.md.backout_count) == (b"a", 1)
    assert other.inquire_queue("APP.OUT").curdepth == 0


def test_closing_a_handle_does_not_end_the_unit_of_work(adapter: Adapter) -> None:
    """MQCLOSE neither commits nor backs out."""
    adapter.define_queue("APP.IN")
    qm, other = adapter.connect(), adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    q = qm.open("APP.IN")
    q.get(GetOptions(syncpoint=True))
    q.close()
    assert nothing(lambda: other.open("APP.IN").get(GET))
    qm.commit()
    assert other.inquire_queue("APP.IN").curdepth == 0


def test_a_live_connections_unit_of_work_survives_new_connections(adapter: Adapter) -> None:
    """Connecting (which backs out dead connections' work) leaves live ones alone."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    qm.put1("APP.IN", text("a"), NOW)
    qm.open("APP.IN").get(GetOptions(syncpoint=True))
    latecomer = adapter.connect()
    with pytest.raises(MQIError) as exc:
        latecomer.open("APP.IN").get(GetOptions(syncpoint=False, wait_ms=50))
    assert exc.value.reason == 2033
    qm.commit()
    assert latecomer.inquire_queue("APP.IN").curdepth == 0
