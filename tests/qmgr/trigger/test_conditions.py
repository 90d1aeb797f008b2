"""Trigger events through the real embedded queue manager, one test per condition.

Test names carry the seed document's numbering ("Conditions for a trigger
event": conditions 1-14, the sub-items 13.1-13.3 and the closing notes);
``dlqhandler/qmgr/embedded/trigger.py`` lists what each number means here.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import MQMF_LAST_SEGMENT, MQMF_SEGMENT
from dlqhandler.mq.mqtm import MQTM, decode_mqtm
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions
from tests.qmgr.conftest import FakeClock
from tests.qmgr.trigger.support import APPQ, IN_UOW, INITQ, NOW, PROCESS, World


def test_trigger_message_is_an_mqtm_built_from_the_definitions(world: World) -> None:
    """A trigger message: Format MQTRIG, non-persistent datagram, unlimited expiry, queue
    manager context; the MQTM names queue and process, carries TRIGDATA and the process's
    ApplType (UNIX = 6), APPLICID, ENVRDATA and USERDATA."""
    world.app_queue()
    world.monitor()
    world.put(priority=7)
    [message] = world.waiting()
    md = message.md
    assert (md.format, md.msg_type, md.persistence, md.expiry) == ("MQTRIG", 8, 0, -1)
    assert (md.put_appl_type, md.put_appl_name, md.priority) == (7, "QM1", 0)
    assert len(message.body) == 684
    assert decode_mqtm(message.body) == MQTM(
        q_name=APPQ,
        process_name=PROCESS,
        trigger_data=f"data for {APPQ}",
        appl_type=6,
        appl_id="/bin/app --flag",
        env_data="env",
        user_data="user data",
    )


def test_condition_01_only_a_put_triggers(world: World) -> None:
    """Defining a triggered queue or opening the monitor with nothing to do writes nothing;
    the first put does."""
    world.app_queue()
    world.monitor()
    assert world.triggers() == []
    world.put()
    assert world.queues_triggered() == [APPQ]


def test_condition_02_messages_below_trigmpri_do_not_count(world: World) -> None:
    """TRIGMPRI(5): a priority-4 message neither triggers nor counts, so the first
    priority-5 message is still the first qualifying one (FIRST)."""
    world.app_queue(extra="TRIGMPRI(5)")
    world.monitor()
    world.put(priority=4)
    world.put(priority=0)
    assert world.triggers() == []
    world.put(priority=5)
    assert world.queues_triggered() == [APPQ]
    world.put(priority=9)
    assert len(world.triggers()) == 1


def test_condition_03_first_triggers_when_the_depth_goes_from_0_to_1(world: World) -> None:
    """FIRST: one trigger message for the first of several messages; after the queue is
    drained, the next message triggers again."""
    world.app_queue()
    world.monitor()
    for _ in range(3):
        world.put()
    assert len(world.triggers()) == 1
    server = world.connect().open(APPQ)
    for _ in range(3):
        server.get(GetOptions(syncpoint=False))
    server.close()  # empty: no trigger on close (condition 12 needs a message)
    assert len(world.triggers()) == 1
    world.put()
    assert len(world.triggers()) == 2


def test_condition_03_every_triggers_for_each_message(world: World) -> None:
    """EVERY: each qualifying message writes a trigger message."""
    world.app_queue(trigtype="EVERY")
    world.monitor()
    for _ in range(3):
        world.put()
    assert world.queues_triggered() == [APPQ] * 3


def test_condition_03_depth_triggers_at_trigdpth_then_switches_trigger_off(world: World) -> None:
    """DEPTH(3): nothing for two messages, a trigger message for the third, and TRIGGER
    becomes NOTRIGGER so the fourth writes nothing (as MQ does)."""
    world.app_queue(trigtype="DEPTH", extra="TRIGDPTH(3)")
    world.monitor()
    world.put()
    world.put()
    assert world.triggers() == []
    world.put()
    assert world.queues_triggered() == [APPQ]
    assert world.attr(APPQ, "TRIGGER") == "NOTRIGGER"
    world.put()
    assert len(world.triggers()) == 1


def test_condition_03_note_1_uncommitted_messages_count(world: World) -> None:
    """Uncommitted messages count: after another connection's uncommitted put, a put is no
    longer the first (FIRST); the trigger message the uncommitted put caused stays invisible
    until its unit of work ends."""
    world.app_queue()
    world.monitor()
    other = world.connect()
    world.put(conn=other, options=IN_UOW)
    assert world.depth(INITQ) == 1
    assert world.triggers() == []  # written, not yet available
    world.put()  # committed, but not the first message
    assert world.triggers() == []
    other.commit()
    assert world.queues_triggered() == [APPQ]


def test_condition_04_first_and_depth_wait_while_the_queue_is_open_for_input(world: World) -> None:
    """An input handle on the application queue holds off FIRST and DEPTH; a browse-only
    or output handle does not."""
    world.app_queue()
    world.app_queue("APP.D", trigtype="DEPTH", extra="TRIGDPTH(1)")
    world.monitor()
    server = world.connect()
    server.open(APPQ)
    server.open("APP.D")
    world.put()
    world.put("APP.D")
    assert world.triggers() == []
    watcher = world.connect()
    world.app_queue("APP.B")
    watcher.open("APP.B", input=False, browse=True)
    watcher.open("APP.B", input=False, browse=False, output=True)
    world.put("APP.B")
    assert world.queues_triggered() == ["APP.B"]


def test_condition_04_every_triggers_while_the_queue_is_open_for_input(world: World) -> None:
    """EVERY ignores condition 4: messages trigger although a server has the queue open."""
    world.app_queue(trigtype="EVERY")
    world.monitor()
    world.connect().open(APPQ)
    world.put()
    world.put()
    assert world.queues_triggered() == [APPQ, APPQ]


def test_condition_05_is_z_os_only_so_a_get_inhibited_queue_triggers(world: World) -> None:
    """Condition 5 (InhibitGet of the application queue) applies on z/OS only; on MQ for
    distributed platforms, which this queue manager follows, GET(DISABLED) still triggers."""
    world.app_queue(extra="GET(DISABLED)")
    world.monitor()
    world.put()
    assert world.queues_triggered() == [APPQ]


def test_condition_06_the_process_definition_must_exist(world: World) -> None:
    """PROCESS naming nothing, or blank on an ordinary queue: no trigger message. A
    transmission queue needs no process (a triggered channel): its trigger message has
    blank process fields."""
    world.mqsc(
        f"DEFINE QLOCAL(APP.NOPROC) TRIGGER INITQ({INITQ}) PROCESS(NO.SUCH)\n"
        f"DEFINE QLOCAL(APP.BLANK) TRIGGER INITQ({INITQ})\n"
        f"DEFINE QLOCAL(XMIT.Q) USAGE(XMITQ) TRIGGER INITQ({INITQ}) TRIGDATA(CHL1)"
    )
    world.monitor()
    world.put("APP.NOPROC")
    world.put("APP.BLANK")
    assert world.triggers() == []
    world.put("XMIT.Q")
    assert world.triggers() == [MQTM(q_name="XMIT.Q", trigger_data="CHL1")]


@pytest.mark.parametrize(
    "initq_setup",
    [
        "ALTER QLOCAL(APP.Q) INITQ(' ')",
        "ALTER QLOCAL(APP.Q) INITQ(NO.SUCH.Q)",
        f"ALTER QLOCAL({INITQ}) PUT(DISABLED)",
        f"ALTER QLOCAL({INITQ}) GET(DISABLED)",
        f"ALTER QLOCAL({INITQ}) USAGE(XMITQ)",
    ],
)
def test_condition_07_the_initiation_queue_must_exist_and_take_messages(
    world: World, initq_setup: str
) -> None:
    """No INITQ, an undefined one, or one with PUT or GET disabled or USAGE(XMITQ): no
    trigger message, and the application's put still works."""
    world.app_queue()
    world.monitor()
    world.mqsc(initq_setup)
    world.put()
    assert world.depth(APPQ) == 1
    assert world.depth(INITQ) == 0


def test_condition_08_no_trigger_message_without_a_trigger_monitor(world: World) -> None:
    """Nothing has the initiation queue open for input (a browser does not count): no
    trigger message."""
    world.app_queue()
    world.connect().open(INITQ, input=False, browse=True)
    world.put()
    assert world.depth(INITQ) == 0


def test_condition_09_notrigger_writes_nothing(world: World) -> None:
    """TRIGGER off (NOTRIGGER): no trigger message."""
    world.app_queue(control="NOTRIGGER")
    world.monitor()
    world.put()
    assert world.depth(INITQ) == 0


def test_condition_10_trigtype_none_writes_nothing(world: World) -> None:
    """TRIGTYPE(NONE): no trigger message even with TRIGGER on."""
    world.app_queue(trigtype="NONE")
    world.monitor()
    world.put()
    assert world.depth(INITQ) == 0


def test_condition_10_in_a_unit_of_work_the_trigger_message_waits_for_commit(world: World) -> None:
    """A put under syncpoint: the trigger message is on the initiation queue (CURDEPTH) but
    not available until the putter commits."""
    world.app_queue()
    monitor = world.monitor()
    putter = world.connect()
    world.put(conn=putter, options=IN_UOW)
    with pytest.raises(MQIError) as exc:
        monitor.get(GetOptions(syncpoint=False))
    assert exc.value.reason == 2033
    putter.commit()
    assert decode_mqtm(monitor.get(GetOptions(syncpoint=False)).body).q_name == APPQ


@pytest.mark.parametrize(("trigtype", "kept"), [("FIRST", 1), ("DEPTH", 1), ("EVERY", 0)])
def test_condition_10_a_backout_keeps_first_and_depth_trigger_messages(
    world: World, trigtype: str, kept: int
) -> None:
    """Backing out the put: FIRST and DEPTH trigger messages become available all the same,
    an EVERY trigger message goes with the message."""
    world.app_queue(trigtype=trigtype, extra="TRIGDPTH(1)")
    world.monitor()
    putter = world.connect()
    world.put(conn=putter, options=IN_UOW)
    putter.backout()
    assert world.depth(APPQ) == 0
    assert len(world.triggers()) == kept
    assert world.depth(INITQ) == kept


def test_condition_11_first_triggers_a_non_empty_queue_once_per_trigint(
    world: World, clock: FakeClock
) -> None:
    """FIRST on a queue that was not empty (its server ended early): another trigger message
    when TRIGINT ms have passed since the last one, not before, and not while the queue is
    open for input."""
    world.mqsc("ALTER QMGR TRIGINT(1000)")
    world.app_queue()
    world.monitor()
    world.put()
    assert len(world.triggers()) == 1
    clock.advance(0.5)
    world.put()
    assert len(world.triggers()) == 1
    clock.advance(0.5)
    world.put()
    assert len(world.triggers()) == 2
    clock.advance(5)
    server = world.connect().open(APPQ, input=True)
    world.put()
    assert len(world.triggers()) == 2
    server.close()  # the close is an event of its own (condition 12)
    assert len(world.triggers()) == 3


def test_condition_11_default_trigint_and_a_queue_never_triggered(
    world: World, clock: FakeClock
) -> None:
    """Messages that arrived while no trigger was possible (no process yet): the next one
    triggers, as no trigger message was ever written for the queue; with the default TRIGINT
    (999 999 999 ms) the one after does not."""
    world.mqsc(f"DEFINE QLOCAL({APPQ}) TRIGGER INITQ({INITQ}) PROCESS(LATE.PROC)")
    world.monitor()
    world.put()
    world.put()
    assert world.triggers() == []
    world.mqsc("DEFINE PROCESS(LATE.PROC) APPLICID('/bin/late')")
    world.put()
    assert [tm.appl_id for tm in world.triggers()] == ["/bin/late"]
    clock.advance(3600)
    world.put()
    assert len(world.triggers()) == 1


def test_condition_11_depth_triggers_a_queue_already_at_trigdpth(world: World) -> None:
    """DEPTH: when TRIGDPTH was reached without a trigger (no process yet), the next
    qualifying message triggers, and TRIGGER goes off."""
    world.mqsc(
        f"DEFINE QLOCAL({APPQ}) TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(2) INITQ({INITQ})"
        " PROCESS(LATE.PROC)"
    )
    world.monitor()
    world.put()
    world.put()
    world.mqsc("DEFINE PROCESS(LATE.PROC) APPLICID('/bin/late')")
    assert world.triggers() == []
    world.put()
    assert world.queues_triggered() == [APPQ]
    assert world.attr(APPQ, "TRIGGER") == "NOTRIGGER"


def test_condition_12_the_last_server_closing_with_messages_left_triggers(world: World) -> None:
    """FIRST: closing one of two input handles writes nothing; the last close with a
    message left writes a trigger message (the closed loop of note 1 starts here)."""
    world.app_queue()
    world.monitor()
    first, second = world.connect().open(APPQ), world.connect().open(APPQ)
    world.put()
    assert world.triggers() == []
    first.close()
    assert world.triggers() == []
    second.close()
    assert world.queues_triggered() == [APPQ]


def test_condition_12_disconnect_closes_and_depth_needs_trigdpth(world: World) -> None:
    """MQDISC closes the handles (an event); DEPTH needs TRIGDPTH messages left; EVERY and
    an empty queue write nothing on close."""
    world.app_queue()
    world.app_queue("APP.D", trigtype="DEPTH", extra="TRIGDPTH(2)")
    world.app_queue("APP.E", trigtype="EVERY")
    world.monitor()
    server = world.connect()
    for name in (APPQ, "APP.D", "APP.E"):
        server.open(name)
    world.put()
    world.put("APP.D")
    world.put("APP.E")
    world.clear()  # the EVERY trigger message
    server.disconnect()
    assert world.queues_triggered() == [APPQ]
    server = world.connect()
    server.open("APP.D")
    world.put("APP.D")
    server.disconnect()
    assert world.queues_triggered() == [APPQ, "APP.D"]


def test_condition_12_note_2_a_backed_out_get_leaves_the_message_to_trigger(world: World) -> None:
    """A server that gets under syncpoint and backs out before closing: the message is back,
    so the close triggers; one that closes before its commit has taken it: no trigger."""
    world.app_queue()
    world.monitor()
    world.put()
    world.clear()
    server = world.connect()
    q = server.open(APPQ)
    q.get(GetOptions(syncpoint=True))
    server.backout()
    q.close()
    assert world.queues_triggered() == [APPQ]
    world.clear()
    q = server.open(APPQ)
    q.get(GetOptions(syncpoint=True))
    q.close()
    server.commit()
    assert world.triggers() == []


def test_condition_13_trigger_switched_on_with_messages_waiting(world: World) -> None:
    """ALTER ... TRIGGER on a queue that holds messages writes a trigger message at once;
    condition 8 does not apply, so no trigger monitor is needed."""
    world.app_queue(control="NOTRIGGER")
    world.put()
    world.put()
    world.mqsc(f"ALTER QLOCAL({APPQ}) TRIGGER")
    assert world.queues_triggered() == [APPQ]


def test_condition_13_changed_trigger_attributes_with_messages_waiting(world: World) -> None:
    """With TRIGGER on, changing TRIGTYPE, TRIGMPRI or (DEPTH) TRIGDPTH is an event; other
    changes, repeating TRIGGER, or too few qualifying messages are not. EVERY writes one
    trigger message for the queue (note 1); DEPTH switches TRIGGER off afterwards."""
    world.app_queue()
    world.put()
    world.put()
    world.clear()
    world.mqsc(f"ALTER QLOCAL({APPQ}) DESCR('x')\nALTER QLOCAL({APPQ}) TRIGGER")
    assert world.triggers() == []
    world.mqsc(f"ALTER QLOCAL({APPQ}) TRIGTYPE(EVERY)")
    assert world.queues_triggered() == [APPQ]
    world.clear()
    world.mqsc(f"ALTER QLOCAL({APPQ}) TRIGMPRI(1)")  # the messages are at priority 0
    assert world.triggers() == []
    world.mqsc(f"ALTER QLOCAL({APPQ}) TRIGMPRI(0) TRIGTYPE(DEPTH) TRIGDPTH(3)")
    assert world.triggers() == []  # 2 messages < TRIGDPTH
    world.mqsc(f"ALTER QLOCAL({APPQ}) TRIGDPTH(2)")
    assert world.queues_triggered() == [APPQ]
    assert world.attr(APPQ, "TRIGGER") == "NOTRIGGER"


def test_condition_13_via_define_replace_and_held_off_by_a_server(world: World) -> None:
    """DEFINE REPLACE that switches TRIGGER on is a change too; a FIRST queue open for input
    (condition 4) writes nothing."""
    world.app_queue(control="NOTRIGGER")
    world.put()
    server = world.connect().open(APPQ)
    world.app_queue()  # DEFINE ... REPLACE TRIGGER
    assert world.triggers() == []
    world.mqsc(f"ALTER QLOCAL({APPQ}) NOTRIGGER")
    server.close()
    world.app_queue()
    assert world.queues_triggered() == [APPQ]


def test_condition_13_1_initiation_queue_put_enabled_again(world: World) -> None:
    """While INIT.Q is put-inhibited no trigger message is written; enabling PUT writes one
    for each queue it serves that holds messages (and none for an empty one)."""
    world.app_queue()
    world.app_queue("APP.Q2", trigtype="EVERY")
    world.app_queue("APP.EMPTY")
    world.monitor()
    world.mqsc(f"ALTER QLOCAL({INITQ}) PUT(DISABLED)")
    world.put()
    world.put("APP.Q2")
    world.put("APP.Q2")
    assert world.depth(INITQ) == 0
    world.mqsc(f"ALTER QLOCAL({INITQ}) PUT(ENABLED)")
    assert sorted(world.queues_triggered()) == [APPQ, "APP.Q2"]


def test_condition_13_1_needs_a_trigger_monitor(world: World) -> None:
    """Condition 13.1 includes condition 8: with no monitor, re-enabling PUT writes nothing."""
    world.app_queue()
    world.mqsc(f"ALTER QLOCAL({INITQ}) PUT(DISABLED)")
    world.put()
    world.mqsc(f"ALTER QLOCAL({INITQ}) PUT(ENABLED)")
    assert world.depth(INITQ) == 0


def test_condition_13_2_application_queue_get_enabled_again(world: World) -> None:
    """GET(DISABLED) -> GET(ENABLED) with messages waiting writes a trigger message, so the
    application is started once it can get them."""
    world.app_queue(extra="GET(DISABLED)")
    world.monitor()
    world.put()
    world.clear()
    world.mqsc(f"ALTER QLOCAL({APPQ}) GET(ENABLED)")
    assert world.queues_triggered() == [APPQ]


def test_condition_13_3_trigger_monitor_opens_with_messages_waiting(world: World) -> None:
    """Messages that arrived while no monitor ran: the monitor's MQOPEN of the initiation
    queue writes one trigger message per served queue (EVERY too: one); a second monitor
    opening it as well writes nothing more."""
    world.app_queue()
    world.app_queue("APP.E", trigtype="EVERY")
    world.app_queue("APP.EMPTY")
    world.put()
    world.put("APP.E")
    world.put("APP.E")
    assert world.depth(INITQ) == 0
    world.monitor()
    assert sorted(world.queues_triggered()) == ["APP.E", APPQ]
    world.connect().open(INITQ, input=True)
    assert len(world.triggers()) == 2


def test_condition_14_fifo_queue_counts_messages_at_its_default_priority(world: World) -> None:
    """MSGDLVSQ(FIFO): priority is ignored and DEFPRTY counts. DEFPRTY(3) < TRIGMPRI(5): even
    a priority-9 message does not trigger; DEFPRTY(5): a priority-0 message does."""
    world.app_queue(extra="MSGDLVSQ(FIFO) DEFPRTY(3) TRIGMPRI(5)")
    world.app_queue("APP.F5", extra="MSGDLVSQ(FIFO) DEFPRTY(5) TRIGMPRI(5)")
    world.monitor()
    world.put(priority=9)
    assert world.triggers() == []
    world.put("APP.F5", priority=0)
    assert world.queues_triggered() == ["APP.F5"]


def test_note_1_events_other_than_arrival_are_outside_the_unit_of_work(world: World) -> None:
    """A server closes the queue (condition 12) with a unit of work still open: the trigger
    message is available at once, and stays when that unit of work is backed out."""
    world.app_queue()
    world.mqsc("DEFINE QLOCAL(OTHER.Q)")
    world.monitor()
    world.put()
    world.clear()
    server = world.connect()
    q = server.open(APPQ)
    server.put1("OTHER.Q", Message(MQMD(), b"x"), IN_UOW)
    q.close()
    assert world.queues_triggered() == [APPQ]
    server.backout()
    assert world.queues_triggered() == [APPQ]


def test_note_2_each_segment_counts_as_a_message(world: World) -> None:
    """Segments on the queue are messages for triggering: three segments of one logical
    message on an EVERY queue write three trigger messages."""
    world.app_queue(trigtype="EVERY")
    world.monitor()
    group = b"G" * 24
    for offset, flags in (
        (0, MQMF_SEGMENT),
        (1, MQMF_SEGMENT),
        (2, MQMF_SEGMENT | MQMF_LAST_SEGMENT),
    ):
        md = MQMD(group_id=group, offset=offset, msg_flags=flags)
        world.qm.put1(APPQ, Message(md, b"s"), NOW)
    assert len(world.triggers()) == 3


@pytest.mark.parametrize(("initq_attrs", "reason"), [("MAXDEPTH(1)", 2053), ("MAXMSGL(100)", 2030)])
def test_a_trigger_message_the_initiation_queue_refuses_goes_to_the_dlq(
    world: World, initq_attrs: str, reason: int, logs: list[MutableMapping[str, Any]]
) -> None:
    """An initiation queue that is full (or takes under 684 bytes): the trigger message goes
    to the dead-letter queue with an MQDLH naming INIT.Q and the reason; the application's
    put is not affected."""
    world.mqsc(f"ALTER QLOCAL({INITQ}) {initq_attrs}")
    world.app_queue()
    world.app_queue("APP.Q2")
    world.monitor()
    world.put()
    world.put("APP.Q2")
    assert world.depth(APPQ) == world.depth("APP.Q2") == 1
    dead = [decode_dead_letter(m.md, m.body) for m in world.waiting("SYSTEM.DEAD.LETTER.QUEUE")]
    expected = ["APP.Q2"] if reason == 2053 else [APPQ, "APP.Q2"]
    assert [decode_mqtm(m.payload).q_name for m in dead] == expected
    assert {(m.dlh.reason, m.dlh.dest_q_name, m.dlh.format) for m in dead if m.dlh} == {
        (reason, INITQ, "MQTRIG")
    }
    assert [e["reason"] for e in logs if e["event"] == "trigger_message_dead_lettered"] == [
        reason
    ] * len(expected)


def test_a_dead_lettered_trigger_message_can_trigger_the_dlq_itself(
    world: World, logs: list[MutableMapping[str, Any]]
) -> None:
    """A triggered DLQ (its own initiation queue): the dead-lettered trigger message is a
    first message there and triggers the DLQ's process; if the DLQ's trigger message cannot
    be put either, it is dropped rather than dead-lettered again."""
    world.mqsc(
        f"ALTER QLOCAL({INITQ}) MAXDEPTH(1)\nDEFINE QLOCAL(DLQ.INITQ)\n"
        "DEFINE PROCESS(DLQ.HANDLER) APPLICID('/bin/handler')\n"
        "ALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) TRIGGER INITQ(DLQ.INITQ)"
        " PROCESS(DLQ.HANDLER)"
    )
    world.app_queue()
    world.app_queue("APP.Q2")
    world.monitor()
    world.monitor("DLQ.INITQ")
    world.put()
    world.put("APP.Q2")
    assert world.queues_triggered("DLQ.INITQ") == ["SYSTEM.DEAD.LETTER.QUEUE"]
    world.mqsc(
        "ALTER QLOCAL(DLQ.INITQ) PUT(DISABLED)\nALTER QLOCAL(SYSTEM.DEAD.LETTER.QUEUE) MAXDEPTH(1)"
    )
    world.app_queue("APP.Q3")
    world.put("APP.Q3")  # INIT.Q full, DLQ full: dropped, and the put still works
    assert world.depth("APP.Q3") == 1
    dropped = [e for e in logs if e["event"] == "trigger_message_dropped"]
    assert [(e["initq"], e["deadq"]) for e in dropped] == [(INITQ, "SYSTEM.DEAD.LETTER.QUEUE")]


def test_a_put_racing_an_alter_that_arms_the_queue_still_triggers(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A put that read the queue before another connection switched TRIGGER on: the insert
    checks the stored attributes in the same statement and takes the triggered path."""
    world.app_queue(control="NOTRIGGER")
    world.monitor()
    stale = world.qm.queue_view(APPQ)
    world.connect().admin().alter_queue(APPQ, {"TRIGGER": "TRIGGER"})
    real = EmbeddedQueueManager.queue_view
    calls: list[str] = []

    def first_stale(self: EmbeddedQueueManager, queue: str, **kw: int) -> object:
        calls.append(queue)
        return stale if len(calls) == 1 else real(self, queue, **kw)

    monkeypatch.setattr(EmbeddedQueueManager, "queue_view", first_stale)
    world.put()
    assert world.queues_triggered() == [APPQ]


def test_deleting_a_queue_forgets_its_trigger_state(world: World, clock: FakeClock) -> None:
    """TRIGINT is measured per queue: a deleted and re-created queue starts afresh."""
    world.mqsc("ALTER QMGR TRIGINT(60000)")
    world.app_queue()
    world.monitor()
    world.put()
    world.clear()
    world.mqsc(f"DELETE QLOCAL({APPQ}) PURGE")
    world.mqsc(f"DEFINE QLOCAL({APPQ}) TRIGGER INITQ({INITQ}) PROCESS(NO.SUCH)")
    world.put()  # no process: no trigger, but the queue is not empty now
    world.mqsc(f"ALTER QLOCAL({APPQ}) PROCESS({PROCESS})")
    world.put()
    assert world.queues_triggered() == [APPQ]


def test_persistent_puts_on_a_triggered_queue_keep_their_options(world: World) -> None:
    """The triggered path honours MAXDEPTH (2053) and syncpoint like the plain one."""
    world.app_queue(extra="MAXDEPTH(1)")
    world.monitor()
    world.qm.put1(APPQ, Message(MQMD(persistence=1), b"p"), PutOptions(syncpoint=True))
    with pytest.raises(MQIError) as exc:
        world.put()
    assert exc.value.reason == 2053
    world.qm.commit()
    assert world.depth(APPQ) == 1
    assert world.queues_triggered() == [APPQ]
