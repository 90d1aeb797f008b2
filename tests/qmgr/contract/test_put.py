"""MQPUT/MQPUT1 behaviour: reason codes, MsgId generation, context, defaults, MQXQH."""

from __future__ import annotations

from typing import Any

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions
from dlqhandler.qmgr.embedded.xqh import MQXQH_LENGTH_1, decode_xqh
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)


def reason(exc: pytest.ExceptionInfo[MQIError]) -> int:
    return exc.value.reason


def test_put_to_unknown_queue_is_2085(adapter: Adapter) -> None:
    """MQPUT1 and MQOPEN of a queue that does not exist fail with MQRC_UNKNOWN_OBJECT_NAME."""
    qm = adapter.connect()
    with pytest.raises(MQIError) as exc:
        qm.put1("NO.SUCH.QUEUE", text("x"), NOW)
    assert reason(exc) == 2085
    with pytest.raises(MQIError) as exc:
        qm.open("NO.SUCH.QUEUE")
    assert reason(exc) == 2085


def test_queue_full_is_2053_and_counts_uncommitted_puts(adapter: Adapter) -> None:
    """MAXDEPTH is enforced with MQRC_Q_FULL; uncommitted puts already count."""
    adapter.define_queue("APP.SMALL", maxdepth=2)
    qm = adapter.connect()
    qm.put1("APP.SMALL", text("1"), NOW)
    qm.put1("APP.SMALL", text("2"), PutOptions(syncpoint=True))
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.SMALL", text("3"), NOW)
    assert reason(exc) == 2053
    assert exc.value.reason_name == "MQRC_Q_FULL"
    qm.backout()
    qm.put1("APP.SMALL", text("3"), NOW)


def test_put_inhibited_is_2051(adapter: Adapter) -> None:
    """PUT(DISABLED) makes puts fail with MQRC_PUT_INHIBITED, also on an open handle."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    q = qm.open("APP.IN", output=True)
    adapter.alter_queue("APP.IN", put="DISABLED")
    with pytest.raises(MQIError) as exc:
        q.put(text("x"), NOW)
    assert reason(exc) == 2051
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.IN", text("x"), NOW)
    assert reason(exc) == 2051
    adapter.alter_queue("APP.IN", put="ENABLED")
    q.put(text("x"), NOW)


def test_message_longer_than_maxmsgl_is_2030(adapter: Adapter) -> None:
    """A body longer than the queue's MAXMSGL fails with MQRC_MSG_TOO_BIG_FOR_Q."""
    adapter.define_queue("APP.TINY", maxmsgl=10)
    qm = adapter.connect()
    qm.put1("APP.TINY", text("x" * 10), NOW)
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.TINY", text("x" * 11), NOW)
    assert reason(exc) == 2030


def test_alternate_user_needs_put_authority_2035(adapter: Adapter) -> None:
    """With alternate-user authority (PUTAUT(CTX)), a user whose records lack PUT gets 2035.

    A user with no authority record for the queue is allowed.
    """
    adapter.define_queue("APP.SECURE")
    adapter.set_authrec("APP.SECURE", "bob", add=["GET", "BROWSE"])
    qm = adapter.connect()
    as_bob = PutOptions(syncpoint=False, alternate_user="bob")
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.SECURE", text("x"), as_bob)
    assert reason(exc) == 2035
    qm.put1("APP.SECURE", text("x"), PutOptions(syncpoint=False, alternate_user="alice"))
    adapter.set_authrec("APP.SECURE", "bob", add=["PUT"])
    qm.put1("APP.SECURE", text("x"), as_bob)
    adapter.set_authrec("APP.SECURE", "bob", remove=["PUT"])
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.SECURE", text("x"), as_bob)
    assert reason(exc) == 2035


def test_unknown_remote_qmgr_is_2087(adapter: Adapter) -> None:
    """A queue manager name that is not ours, no queue and no queue manager alias, with no
    DEFXMITQ, fails with 2087; one naming a local queue that is not a transmission queue
    with MQRC_XMIT_Q_USAGE_ERROR (2092).
    IBM, 2092 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041530_.html):
    "ObjectQMgrName specifies the name of a local queue, but it does not have a Usage
    attribute of MQUS_TRANSMISSION"."""
    adapter.define_queue("APP.IN")
    adapter.define_queue("NOT.AN.XMITQ")
    qm = adapter.connect()
    for qmgr, expected in (("ELSEWHERE", 2087), ("NOT.AN.XMITQ", 2092)):
        with pytest.raises(MQIError) as exc:
            qm.put1("APP.IN", text("x"), NOW, qmgr=qmgr)
        assert reason(exc) == expected
    qm.put1("APP.IN", text("local"), NOW, qmgr=adapter.qmgr_name)
    assert qm.inquire_queue("APP.IN").curdepth == 1


def test_remote_put_goes_to_the_transmission_queue_with_an_mqxqh(adapter: Adapter) -> None:
    """A put to QM2 via transmission queue QM2: MQXQH (428 bytes) + data, Format MQXMIT."""
    adapter.define_queue("QM2", usage="XMITQ")
    qm = adapter.connect()
    put = qm.put1("REMOTE.Q", text("payload", priority=4, persistence=1), NOW, qmgr="QM2")
    got = qm.open("QM2").get(GetOptions(syncpoint=False))
    assert got.md.format == "MQXMIT"
    assert got.md.msg_id == put.msg_id
    assert len(got.body) == MQXQH_LENGTH_1 + len(b"payload")
    header, data = decode_xqh(got.body)
    assert (header.remote_q_name, header.remote_q_mgr_name) == ("REMOTE.Q", "QM2")
    assert header.md.version == 1
    assert header.md.msg_id == put.msg_id
    assert header.md.format == "MQSTR"
    assert (header.md.priority, header.md.persistence) == (4, 1)
    assert data == b"payload"


def test_generated_msgids_are_unique_and_look_like_mq(adapter: Adapter) -> None:
    """No MsgId (or new_msg_id) gets a fresh 24-byte 'AMQ <qmgr>' id; a given one is kept."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    ids = {qm.put1("APP.IN", text(str(i)), NOW).msg_id for i in range(50)}
    assert len(ids) == 50
    prefix = b"AMQ " + adapter.qmgr_name.encode().ljust(12)
    assert all(len(i) == 24 and i.startswith(prefix) for i in ids)
    mine = b"my-own-id".ljust(24, b"\0")
    assert qm.put1("APP.IN", text("x", msg_id=mine), NOW).msg_id == mine
    fresh = qm.put1("APP.IN", text("x", msg_id=mine), PutOptions(syncpoint=False, new_msg_id=True))
    assert fresh.msg_id != mine
    assert fresh.msg_id.startswith(prefix)


def test_priority_and_persistence_as_queue_default(adapter: Adapter) -> None:
    """Priority -1 takes DEFPRTY and Persistence 2 takes DEFPSIST; CCSID 0 becomes real."""
    adapter.define_queue("APP.DEF", defprty=6, defpsist="YES")
    qm = adapter.connect()
    put = qm.put1("APP.DEF", Message(MQMD(), b"x"), NOW)
    assert (put.priority, put.persistence) == (6, 1)
    assert put.coded_char_set_id == qm.inquire().ccsid
    got = qm.open("APP.DEF").get(GetOptions(syncpoint=False))
    assert (got.md.priority, got.md.persistence) == (6, 1)


def test_pass_all_context_keeps_identity_and_origin_byte_for_byte(adapter: Adapter) -> None:
    """pass_all (and set_all) keep UserIdentifier, AccountingToken, PutAppl*, PutDate/Time..."""
    adapter.define_queue("APP.CTX")
    qm = adapter.connect()
    q = qm.open("APP.CTX", output=True)
    context: dict[str, Any] = {
        "user_identifier": "origuser",
        "accounting_token": b"\x16acct".ljust(32, b"\xff"),
        "appl_identity_data": "identity data",
        "put_appl_type": 11,
        "put_appl_name": "C:\\apps\\orders.exe",
        "put_date": "20200229",
        "put_time": "23595999",
        "appl_origin_data": "ORIG",
        "reply_to_q": "REPLY",
    }
    original = MQMD(format="MQSTR", priority=3, persistence=1, report=256, **context)
    for mode in ("pass_all", "set_all"):
        q.put(Message(original, b"body"), PutOptions(syncpoint=False, context=mode))
        got = q.get(GetOptions(syncpoint=False))
        for name, value in context.items():
            assert getattr(got.md, name) == value, (mode, name)
        assert got.md.reply_to_q_mgr == ""
        assert got.body == b"body"


def test_default_context_is_filled_from_the_putter(adapter: Adapter) -> None:
    """Default context: the connection's user, PutApplType 6 (MQAT_UNIX), GMT put date/time."""
    adapter.define_queue("APP.CTX")
    qm = adapter.connect(user="carol")
    md = MQMD(
        user_identifier="forged", put_appl_name="forged", put_date="19990101", reply_to_q="REPLY"
    )
    put = qm.put1("APP.CTX", Message(md, b"x"), PutOptions(syncpoint=False, context="default"))
    assert put.user_identifier == "carol"
    assert put.put_appl_type == 6
    assert put.put_appl_name not in ("", "forged")
    assert len(put.put_date) == 8
    assert put.put_date != "19990101"
    assert len(put.put_time) == 8
    assert put.put_time.isdigit()
    assert put.reply_to_q_mgr == adapter.qmgr_name
    if adapter.clock is not None:
        assert (put.put_date, put.put_time[:6]) == ("20241119", "070640")
    got = qm.open("APP.CTX").get(GetOptions(syncpoint=False))
    assert got.md.user_identifier == "carol"


_FORGED = MQMD(
    format="MQSTR",
    user_identifier="bob",
    accounting_token=b"\x07".ljust(32, b"\x00"),
    appl_identity_data="who",
    put_appl_type=28,
    put_appl_name="mine",
    put_date="20200101",
    put_time="01020300",
    appl_origin_data="from",
)


def test_no_context_puts_blank_null_and_zero_context_fields(adapter: Adapter) -> None:
    """``context="none"`` (MQPMO_NO_CONTEXT): whatever the MQMD held, the message has no
    context: blank character fields, a null AccountingToken, PutApplType 0
    (MQAT_NO_CONTEXT).

    IBM, Message context (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=mq-message-context):
    an application "can specify that the context fields are to contain no information";
    MQMD initial values
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.ref.dev.doc/q097720_.htm):
    "PutApplType MQAT_NO_CONTEXT 0"."""
    adapter.define_queue("APP.CTX")
    qm = adapter.connect()
    qm.put1("APP.CTX", Message(_FORGED, b"x"), PutOptions(syncpoint=False, context="none"))
    md = qm.open("APP.CTX").get(GetOptions(syncpoint=False)).md
    assert (md.put_appl_type, md.accounting_token) == (0, bytes(32))
    blank = ("user_identifier", "appl_identity_data", "put_appl_name", "put_date", "put_time")
    assert [getattr(md, f) for f in (*blank, "appl_origin_data")] == [""] * 6


def test_set_identity_keeps_identity_and_fills_origin(adapter: Adapter) -> None:
    """``context="set_identity"`` (MQPMO_SET_IDENTITY_CONTEXT): UserIdentifier,
    AccountingToken and ApplIdentityData as given; PutApplType/Name, PutDate/Time and
    ApplOriginData from the queue manager.

    IBM, Message context (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=mq-message-context):
    "An application can set the identity context fields in a message, allowing the queue
    manager to generate the origin context"."""
    adapter.define_queue("APP.CTX")
    qm = adapter.connect()
    options = PutOptions(syncpoint=False, context="set_identity")
    qm.put1("APP.CTX", Message(_FORGED, b"x"), options)
    md = qm.open("APP.CTX").get(GetOptions(syncpoint=False)).md
    assert (md.user_identifier, md.appl_identity_data) == ("bob", "who")
    assert md.accounting_token == _FORGED.accounting_token
    assert (md.put_appl_type, md.appl_origin_data) == (6, "")
    assert md.put_appl_name not in ("", "mine")
    assert md.put_date != "20200101"


def test_new_correl_id_replaces_the_given_one(adapter: Adapter) -> None:
    """``new_correl_id`` (MQPMO_NEW_CORREL_ID): a unique CorrelId generated by the queue
    manager, returned by the put and carried by the message.

    IBM, CorrelId (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097470_.html):
    "If the application specifies MQPMO_NEW_CORREL_ID, the queue manager generates a unique
    correlation identifier which is sent with the message, and also returned to the sending
    application on output from the MQPUT or MQPUT1 call"."""
    adapter.define_queue("APP.CID")
    qm = adapter.connect()
    given = b"MINE".ljust(24, b"\x00")
    options = PutOptions(syncpoint=False, new_correl_id=True)
    made = [qm.put1("APP.CID", text("x", correl_id=given), options).correl_id for _ in "ab"]
    assert given not in made
    assert made[0] != made[1]
    assert all(c.startswith(b"AMQ ") for c in made)
    q = qm.open("APP.CID")
    assert [q.get(GetOptions(syncpoint=False)).md.correl_id for _ in made] == made


def test_alternate_user_is_the_default_context_user(adapter: Adapter) -> None:
    """With alternate-user authority and default context the message carries that user."""
    adapter.define_queue("APP.CTX")
    qm = adapter.connect(user="carol")
    put = qm.put1(
        "APP.CTX", text("x"), PutOptions(syncpoint=False, context="default", alternate_user="dave")
    )
    assert put.user_identifier == "dave"


def test_invalid_descriptor_fields_are_rejected(adapter: Adapter) -> None:
    """Expiry 0 is MQRC_EXPIRY_ERROR (2013); Priority -2 is 2050; Persistence 5 is 2047."""
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    for md, code in (
        (MQMD(expiry=0), 2013),
        (MQMD(priority=-2), 2050),
        (MQMD(persistence=5), 2047),
    ):
        with pytest.raises(MQIError) as exc:
            qm.put1("APP.IN", Message(md, b"x"), NOW)
        assert reason(exc) == code


def test_put_on_a_handle_not_opened_for_output_is_2039(adapter: Adapter) -> None:
    """MQPUT needs MQOO_OUTPUT (MQRC_NOT_OPEN_FOR_OUTPUT)."""
    adapter.define_queue("APP.IN")
    q = adapter.connect().open("APP.IN", output=False)
    with pytest.raises(MQIError) as exc:
        q.put(text("x"), NOW)
    assert reason(exc) == 2039


def test_a_priority_over_maxprty_is_put_once_at_the_maximum(adapter: Adapter) -> None:
    """MQPUT and MQPUT1 of a message with Priority 10 (over the queue manager's MaxPriority,
    9) succeed: IBM answers MQCC_WARNING, and the IBM MQ adapter takes it as the success it
    is, so the caller never puts the message again; each is on the queue once, queued at
    priority 9 (after an earlier 9, before a 5) with its MQMD's Priority kept as 10. IBM,
    2049 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041200_.html): "The message
    is accepted by the queue manager, but is placed on the queue at the queue manager's
    maximum priority. The Priority field in the message descriptor retains the value
    specified by the application that put the message"."""
    adapter.define_queue("APP.Q")
    qm = adapter.connect()
    qm.put1("APP.Q", text("five", priority=5), NOW)
    qm.put1("APP.Q", text("nine", priority=9), NOW)
    out = qm.open("APP.Q", output=True)
    out.put(text("ten-put", priority=10), PutOptions(syncpoint=True))
    qm.put1("APP.Q", text("ten-put1", priority=10), PutOptions(syncpoint=True))
    qm.commit()
    q = adapter.connect().open("APP.Q")
    got = []
    for _ in range(4):
        m = q.get(GetOptions(syncpoint=False))
        got.append((m.body, m.md.priority))
    assert got == [(b"nine", 9), (b"ten-put", 10), (b"ten-put1", 10), (b"five", 5)]
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(syncpoint=False))
    assert exc.value.reason == 2033
