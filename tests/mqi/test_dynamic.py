"""Model queues and dynamic queues through IBM's ``ibmmq`` package on the stand-in: what
only the MQI shows (MQOD.DynamicQName in, MQOD.ObjectName out, MQCLOSE's delete options,
the creating handle), each case held to the IBM page its docstring cites.

A call that fails changes nothing: the queue is counted on a second connection.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.qmgr import connect
from tests.worker.helpers import mqsc

MQ = tuple[Any, Any]
_NOT_PERSISTENT, _PERSISTENT = 0, 1


def _queues(home: Path) -> list[str]:
    """The names of the local queues of QM1 (dynamic ones included)."""
    qm = connect("QM1", home=home)
    try:
        return [rec.name for rec in qm.admin().queues("*")]
    finally:
        qm.disconnect()


def _second(ibmmq: Any) -> Any:
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    return other


def _depth(ibmmq: Any, queue: str) -> int | None:
    """CURDEPTH of ``queue`` seen from a second connection; None when it does not exist
    (MQOPEN gives 2085)."""
    other = _second(ibmmq)
    try:
        try:
            q = ibmmq.Queue(other, queue, ibmmq.CMQC.MQOO_INQUIRE)
        except ibmmq.MQMIError as exc:
            if exc.reason == ibmmq.CMQC.MQRC_UNKNOWN_OBJECT_NAME:
                return None
            raise
        depth = int(q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        q.close()
        return depth
    finally:
        other.disconnect()


def _open_model(ibmmq: Any, qmgr: Any, model: str, options: int, dynamic: str = "") -> Any:
    """MQOPEN of a model queue; returns (queue, the MQOD it filled in)."""
    od = ibmmq.OD(ObjectName=model.encode())
    if dynamic:
        od.DynamicQName = dynamic.encode()
    return ibmmq.Queue(qmgr, od, options), od


def _name(od: Any) -> str:
    return bytes(od.ObjectName).rstrip(b"\x00 ").decode()


def _put(ibmmq: Any, qmgr: Any, queue: str, body: bytes, persistence: int, **md: Any) -> None:
    qmgr.put1(
        ibmmq.OD(ObjectName=queue.encode()),
        body,
        ibmmq.MD(Format=b"MQSTR   ", Persistence=persistence, **md),
        ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_NO_SYNCPOINT),
    )


def _fails(ibmmq: Any, call: Any) -> tuple[int, int]:
    with pytest.raises(ibmmq.MQMIError) as caught:
        call()
    return int(caught.value.comp), int(caught.value.reason)


def test_open_of_a_model_creates_a_temporary_dynamic_queue_named_from_the_prefix(
    mq: MQ, home: Path
) -> None:
    """MQOPEN of a TEMPDYN model with DynamicQName 'APP.REPLY.*' creates a local queue whose
    name is the prefix and a unique suffix, returned in MQOD.ObjectName (and the queue
    manager in ObjectQMgrName), with the model's attributes; IBM's default 'AMQ.*' gives an
    'AMQ.' name; two opens make two queues. Closing the creating handle deletes the queue
    with its messages.

    IBM, DynamicQName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm):
    "the queue manager replaces the asterisk with a string of characters that guarantees
    that the name generated for the queue is unique"; MQOPEN
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101870_.htm):
    "The name of the model queue in the ObjDesc parameter is replaced with the name of the
    dynamic queue created"; Closing objects (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/develop/q026120_.html):
    "When you close a temporary dynamic queue, the queue is deleted, along with any messages
    that might still be on it"; another connection's handle on it then gets 2052
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041230_.html): "An Hobj queue
    handle specified on a call refers to a dynamic queue that has been deleted since the
    queue was opened"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QMODEL(APP.REPLY.MODEL) MAXDEPTH(7)")
    options = c.MQOO_INPUT_EXCLUSIVE | c.MQOO_INQUIRE
    q, od = _open_model(ibmmq, qmgr, "APP.REPLY.MODEL", options, "APP.REPLY.*")
    name = _name(od)
    assert name.startswith("APP.REPLY.")
    assert len(name) > len("APP.REPLY.")
    assert len(name) <= 48
    assert bytes(od.ObjectQMgrName).rstrip(b"\x00 ") == b"QM1"
    other, od2 = _open_model(ibmmq, qmgr, "APP.REPLY.MODEL", c.MQOO_OUTPUT)
    assert _name(od2).startswith("AMQ.")
    assert _name(od2) != name
    assert int(q.inquire(c.MQIA_MAX_Q_DEPTH)) == 7
    writer_conn = _second(ibmmq)
    writer = ibmmq.Queue(writer_conn, name, c.MQOO_OUTPUT)
    put_now = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    writer.put(b"reply", ibmmq.MD(Persistence=_NOT_PERSISTENT), put_now)
    assert _depth(ibmmq, name) == 1
    q.close()
    assert _depth(ibmmq, name) is None  # gone, with its message
    late = ibmmq.MD(Persistence=_NOT_PERSISTENT)
    assert _fails(ibmmq, lambda: writer.put(b"late", late, put_now)) == (2, 2052)
    writer.close()  # (a handle to a deleted queue still closes)
    writer_conn.disconnect()
    assert _depth(ibmmq, _name(od2)) == 0
    other.close()
    assert _depth(ibmmq, _name(od2)) is None


def test_a_temporary_dynamic_queue_goes_when_its_connection_ends(mq: MQ, home: Path) -> None:
    """A TEMPDYN queue whose creating handle is never closed is deleted, with its messages,
    when its connection ends (MQDISC).

    IBM, Dynamic and Model queues (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm):
    temporary dynamic queues "are deleted when the application that issued the MQOPEN call
    that created the queue closes the queue or terminates"."""
    ibmmq, _ = mq
    mqsc(home, "DEFINE QMODEL(APP.MODEL)")
    creator = _second(ibmmq)
    _, od = _open_model(ibmmq, creator, "APP.MODEL", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    name = _name(od)
    _put(ibmmq, creator, name, b"m1", _NOT_PERSISTENT)
    assert _depth(ibmmq, name) == 1
    creator.disconnect()
    assert _depth(ibmmq, name) is None


@pytest.mark.parametrize("how", ["MQPER_PERSISTENT", "DEFPSIST(YES)"])
def test_a_persistent_message_on_a_temporary_dynamic_queue_is_2048(
    mq: MQ, home: Path, how: str
) -> None:
    """A persistent message, asked for in the MQMD or taken from the model's DEFPSIST(YES),
    cannot be put on a temporary dynamic queue: MQRC_PERSISTENT_NOT_ALLOWED (2048), and
    nothing is put (the queue stays empty on a second connection); a non-persistent one is.

    IBM, 2048 MQRC_PERSISTENT_NOT_ALLOWED (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041190_.html):
    "the value specified for the Persistence field in MQMD (or obtained from the
    DefPersistence queue attribute) specifies MQPER_PERSISTENT ... Persistent messages
    cannot be placed on temporary dynamic queues"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    defpsist = "YES" if how == "DEFPSIST(YES)" else "NO"
    mqsc(home, f"DEFINE QMODEL(APP.MODEL) DEFPSIST({defpsist})")
    q, od = _open_model(ibmmq, qmgr, "APP.MODEL", c.MQOO_INPUT_AS_Q_DEF | c.MQOO_OUTPUT)
    persistence = _PERSISTENT if how == "MQPER_PERSISTENT" else c.MQPER_PERSISTENCE_AS_Q_DEF
    md = ibmmq.MD(Persistence=persistence)
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    assert _fails(ibmmq, lambda: q.put(b"p", md, pmo)) == (2, 2048)
    assert _depth(ibmmq, _name(od)) == 0
    q.put(b"np", ibmmq.MD(Persistence=_NOT_PERSISTENT), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    assert _depth(ibmmq, _name(od)) == 1
    q.close()


def test_permanent_dynamic_queue_close_options(mq: MQ, home: Path) -> None:
    """A PERMDYN queue (a full DynamicQName) outlives its handle; a second open of the same
    full name is MQRC_OBJECT_ALREADY_EXISTS (2100). MQCO_DELETE of it with a message on it
    is MQRC_Q_NOT_EMPTY (2055) and an uncommitted put makes MQCO_DELETE_PURGE 2055 too: the
    handle stays open and the queue and its message stay. Once committed, MQCO_DELETE_PURGE
    deletes it with its messages. MQCO_DELETE on a predefined queue is 2045; both delete
    options at once are MQRC_OPTIONS_ERROR (2046: the MQCLOSE page allows one of them).

    IBM, Closing objects (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/develop/q026120_.html):
    "The control option to determine whether the queue manager should delete the queue even
    if there are still messages on it (when closing a permanent dynamic queue)"; 2055
    MQRC_Q_NOT_EMPTY (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041250_.html):
    "The MQCO_DELETE option was specified, but there are messages on the queue"; 2045
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041160_.html): "The
    MQCO_DELETE or MQCO_DELETE_PURGE option when the queue is not a dynamic queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QMODEL(APP.PERM.MODEL) DEFTYPE(PERMDYN)")
    options = c.MQOO_INPUT_AS_Q_DEF | c.MQOO_OUTPUT
    q, od = _open_model(ibmmq, qmgr, "APP.PERM.MODEL", options, "APP.PERM.Q1")
    assert _name(od) == "APP.PERM.Q1"
    q.close()
    assert _depth(ibmmq, "APP.PERM.Q1") == 0  # permanent: still there
    assert _fails(
        ibmmq, lambda: _open_model(ibmmq, qmgr, "APP.PERM.MODEL", options, "APP.PERM.Q1")
    ) == (2, 2100)
    q = ibmmq.Queue(qmgr, "APP.PERM.Q1", options)
    _put(ibmmq, qmgr, "APP.PERM.Q1", b"m1", _PERSISTENT)
    both = c.MQCO_DELETE | c.MQCO_DELETE_PURGE
    assert _fails(ibmmq, lambda: q.close(both)) == (2, 2046)  # (one of them only)
    assert _fails(ibmmq, lambda: q.close(c.MQCO_DELETE)) == (2, 2055)
    q.put(b"m2", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_SYNCPOINT))
    assert _fails(ibmmq, lambda: q.close(c.MQCO_DELETE_PURGE)) == (2, 2055)
    assert _depth(ibmmq, "APP.PERM.Q1") == 2  # (the uncommitted put counts in CURDEPTH)
    qmgr.commit()
    q.close(c.MQCO_DELETE_PURGE)
    assert _depth(ibmmq, "APP.PERM.Q1") is None
    predefined = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF)
    assert _fails(ibmmq, lambda: predefined.close(c.MQCO_DELETE)) == (2, 2045)
    predefined.close()


def test_a_model_is_opened_for_output_or_browse_but_not_put1_to(mq: MQ, home: Path) -> None:
    """An MQOPEN of a model for output only, or browse only, creates a dynamic queue all
    the same; MQPUT1 naming a model is MQRC_Q_TYPE_ERROR (2057) and creates nothing.

    IBM, MQOPEN (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101870_.htm):
    "a dynamic local queue is created with the attributes of the model queue; this happens
    whatever options you specify"; 2057 MQRC_Q_TYPE_ERROR
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041270_.html): "On an MQPUT1 call,
    the object descriptor MQOD or object record MQOR specifies the name of a model queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN)")
    for options, name in ((c.MQOO_OUTPUT, "APP.OUT"), (c.MQOO_BROWSE, "APP.BROWSE")):
        q, od = _open_model(ibmmq, qmgr, "APP.MODEL", options, name)
        assert _name(od) == name
        q.close()
        assert _depth(ibmmq, name) == 0
    before = _queues(home)
    inquire = ibmmq.Queue(qmgr, "APP.MODEL", c.MQOO_INQUIRE)  # (creates a queue as well)
    inquire.close()
    assert len(_queues(home)) == len(before) + 1
    before = _queues(home)
    assert _fails(ibmmq, lambda: _put(ibmmq, qmgr, "APP.MODEL", b"x", _NOT_PERSISTENT)) == (
        2,
        2057,
    )
    assert _queues(home) == before


def test_a_reply_and_an_expiry_report_land_on_a_temporary_dynamic_reply_queue(
    mq: MQ, home: Path
) -> None:
    """Request/reply as applications do it: the requester opens a model (a TEMPDYN reply
    queue) and names the dynamic queue in ReplyToQ; a server gets the request and puts
    its reply there (CorrelId = the request's MsgId), and a second request that expires
    unread brings back the queue manager's expiration report on the same queue.

    IBM, Creating dynamic queues (https://ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q026100_.html):
    "you could use a dynamic queue for your reply-to queue"; 2048
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041190_.html): "If the
    request message is persistent, the reply queue ... cannot be a temporary dynamic queue"
    (so these requests are non-persistent)."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QMODEL(APP.REPLY.MODEL)")
    replies, od = _open_model(ibmmq, qmgr, "APP.REPLY.MODEL", c.MQOO_INPUT_EXCLUSIVE, "APP.R.*")
    reply_q = _name(od)
    request = ibmmq.MD(
        MsgType=c.MQMT_REQUEST, Persistence=_NOT_PERSISTENT, ReplyToQ=reply_q.encode()
    )
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"ping", request, ibmmq.PMO())
    server = _second(ibmmq)
    inbound = ibmmq.Queue(server, "Q1", c.MQOO_INPUT_SHARED)
    got = ibmmq.MD()
    assert inbound.get(None, got, ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT)) == b"ping"
    reply = ibmmq.MD(
        MsgType=c.MQMT_REPLY, CorrelId=got.MsgId, Persistence=got.Persistence, Format=b"MQSTR   "
    )
    server.put1(
        ibmmq.OD(ObjectName=got.ReplyToQ), b"pong", reply, ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    )
    answer = ibmmq.MD()
    assert replies.get(None, answer, ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT)) == b"pong"
    assert answer.CorrelId == got.MsgId
    expiring = ibmmq.MD(
        Persistence=_NOT_PERSISTENT,
        ReplyToQ=reply_q.encode(),
        Report=c.MQRO_EXPIRATION,
        Expiry=1,
    )
    qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"late", expiring, ibmmq.PMO())
    time.sleep(0.3)
    assert _fails(
        ibmmq, lambda: inbound.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
    ) == (2, 2033)
    report = ibmmq.MD()
    replies.get(None, report, ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
    assert (report.MsgType, report.Feedback) == (c.MQMT_REPORT, c.MQFB_EXPIRATION)
    inbound.close()
    server.disconnect()
    replies.close()
    assert _depth(ibmmq, reply_q) is None


def test_a_blank_dynamic_queue_name_is_2011_and_creates_nothing(mq: MQ, home: Path) -> None:
    """MQOPEN of a model with a blank DynamicQName: MQRC_DYNAMIC_Q_NAME_ERROR (2011), no
    handle and no queue.

    IBM, DynamicQName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm):
    "A name that is blank (or one in which only blanks occur before the first null
    character) is not valid if ObjectName is the name of a model queue"."""
    ibmmq, qmgr = mq
    mqsc(home, "DEFINE QMODEL(APP.MODEL)")
    before = _queues(home)
    for blank in (b"\x00", b" " * 48):
        od = ibmmq.OD(ObjectName=b"APP.MODEL", DynamicQName=blank)
        assert _fails(ibmmq, lambda od=od: ibmmq.Queue(qmgr, od, ibmmq.CMQC.MQOO_OUTPUT)) == (
            2,
            2011,
        )
    assert _queues(home) == before


def test_only_a_model_s_open_replaces_the_object_name(mq: MQ, home: Path) -> None:
    """MQOPEN of a local queue or an alias leaves MQOD.ObjectName as the caller gave it (the
    resolved base queue goes in ResolvedQName); only a model's open writes the dynamic
    queue's name there.

    IBM, ObjectQMgrName for MQOD (https://ibm.com/support/knowledgecenter/SSFKSJ_9.3.0/refdev/q098190_.html):
    "If ObjectName is the name of a model queue, the queue manager creates a dynamic queue
    with the attributes of the model queue"; ResolvedQName
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098270_.html):
    "This is the name of the destination queue after the local queue manager resolves the
    name"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QALIAS(APP.ALIAS) TARGET(Q1)\nDEFINE QMODEL(APP.MODEL)")
    for given in ("Q1", "APP.ALIAS"):
        od = ibmmq.OD(Version=c.MQOD_VERSION_3, ObjectName=given.encode())
        q = ibmmq.Queue(qmgr, od, c.MQOO_OUTPUT)
        assert _name(od) == given
        assert bytes(od.ResolvedQName).rstrip(b"\x00 ") == b"Q1"
        q.close()
    q, od = _open_model(ibmmq, qmgr, "APP.MODEL", c.MQOO_OUTPUT)
    assert _name(od) != "APP.MODEL"
    q.close()
