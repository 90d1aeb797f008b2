"""MQINQ through the port: ``inquire_object`` on the queue manager, queues and processes."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.qmgr import PutOptions
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)


def test_queue_manager_answers_its_name_deadq_and_maxmsgl(adapter: Adapter) -> None:
    """MQINQ on the queue manager object returns its name, DEADQ (blanks stripped) and
    MAXMSGL as ALTER QMGR set them."""
    adapter.mqsc("ALTER QMGR DEADQ(APP.DLQ) MAXMSGL(1048576)")
    qm = adapter.connect()
    got = qm.inquire_object(
        "qmgr", "", [s.MQCA_Q_MGR_NAME, s.MQCA_DEAD_LETTER_Q_NAME, s.MQIA_MAX_MSG_LENGTH]
    )
    assert got == {
        s.MQCA_Q_MGR_NAME: adapter.qmgr_name,
        s.MQCA_DEAD_LETTER_Q_NAME: "APP.DLQ",
        s.MQIA_MAX_MSG_LENGTH: 1048576,
    }


def test_local_queue_answers_its_attributes_and_depth(adapter: Adapter) -> None:
    """A local queue's type, limits, inhibits, backout hardening and trigger set-up come
    back as the MQSC defined them, its depth as the messages on it."""
    adapter.define_queue("APP.INITQ")
    adapter.mqsc("DEFINE PROCESS(APP.PROC) APPLICID('dlqhandler run')")
    adapter.define_queue(
        "APP.DLQ",
        maxdepth=7,
        maxmsgl=65536,
        put="DISABLED",
        hardenbo=True,
        trigger=True,
        trigtype="DEPTH",
        trigdpth=3,
        initq="APP.INITQ",
        process="APP.PROC",
    )
    adapter.alter_queue("APP.DLQ", put="ENABLED")
    qm = adapter.connect()
    qm.put1("APP.DLQ", text("one"), NOW)
    adapter.alter_queue("APP.DLQ", put="DISABLED")
    got = qm.inquire_object(
        "queue",
        "APP.DLQ",
        [
            s.MQIA_Q_TYPE,
            s.MQIA_MAX_Q_DEPTH,
            s.MQIA_MAX_MSG_LENGTH,
            s.MQIA_CURRENT_Q_DEPTH,
            s.MQIA_INHIBIT_PUT,
            s.MQIA_INHIBIT_GET,
            s.MQIA_HARDEN_GET_BACKOUT,
            s.MQIA_TRIGGER_CONTROL,
            s.MQIA_TRIGGER_TYPE,
            s.MQIA_TRIGGER_DEPTH,
            s.MQCA_INITIATION_Q_NAME,
            s.MQCA_PROCESS_NAME,
            s.MQIA_USAGE,
        ],
    )
    assert got == {
        s.MQIA_Q_TYPE: s.MQQT_LOCAL,
        s.MQIA_MAX_Q_DEPTH: 7,
        s.MQIA_MAX_MSG_LENGTH: 65536,
        s.MQIA_CURRENT_Q_DEPTH: 1,
        s.MQIA_INHIBIT_PUT: s.MQQA_PUT_INHIBITED,
        s.MQIA_INHIBIT_GET: s.MQQA_GET_ALLOWED,
        s.MQIA_HARDEN_GET_BACKOUT: s.MQQA_BACKOUT_HARDENED,
        s.MQIA_TRIGGER_CONTROL: s.MQTC_ON,
        s.MQIA_TRIGGER_TYPE: s.MQTT_DEPTH,
        s.MQIA_TRIGGER_DEPTH: 3,
        s.MQCA_INITIATION_Q_NAME: "APP.INITQ",
        s.MQCA_PROCESS_NAME: "APP.PROC",
        s.MQIA_USAGE: s.MQUS_NORMAL,
    }


def test_process_answers_its_applicid(adapter: Adapter) -> None:
    """A process definition opens for inquiry and returns its APPLICID."""
    adapter.mqsc("DEFINE PROCESS(APP.PROC) APPLTYPE(UNIX) APPLICID('dlqhandler run -x')")
    got = adapter.connect().inquire_object("process", "APP.PROC", [s.MQCA_APPL_ID])
    assert got == {s.MQCA_APPL_ID: "dlqhandler run -x"}


@pytest.mark.parametrize("kind", ["queue", "process"])
def test_unknown_object_is_2085(adapter: Adapter, kind: str) -> None:
    """Inquiring a queue or process that does not exist fails with
    MQRC_UNKNOWN_OBJECT_NAME (2085)."""
    qm = adapter.connect()
    with pytest.raises(MQIError) as err:
        qm.inquire_object("queue" if kind == "queue" else "process", "NO.SUCH", [s.MQIA_Q_TYPE])
    assert err.value.reason == 2085


def test_a_selector_the_queue_manager_cannot_answer_is_left_out(adapter: Adapter) -> None:
    """Asked for the trigger interval, which a queue does not have (it is the queue
    manager's TRIGINT), with its MAXDEPTH: the answer has MAXDEPTH and leaves the other
    out, not guessed."""
    adapter.define_queue("APP.Q", maxdepth=42)
    got = adapter.connect().inquire_object(
        "queue", "APP.Q", [s.MQIA_MAX_Q_DEPTH, s.MQIA_TRIGGER_INTERVAL]
    )
    assert got == {s.MQIA_MAX_Q_DEPTH: 42}


def test_inquiry_opens_nothing_for_input_or_output(adapter: Adapter) -> None:
    """An inquiry leaves no handle open: the queue's open input count stays 0."""
    adapter.define_queue("APP.Q")
    qm = adapter.connect()
    qm.inquire_object("queue", "APP.Q", [s.MQIA_Q_TYPE])
    assert qm.inquire_object("queue", "APP.Q", [s.MQIA_OPEN_INPUT_COUNT]) == {
        s.MQIA_OPEN_INPUT_COUNT: 0
    }
