"""Remote queues through IBM's ``ibmmq`` package on the stand-in: what only the MQI shows
of name resolution (MQOD.ObjectQMgrName on MQOPEN, ResolvedQName/ResolvedQMgrName in the
MQOD and the MQPMO, the open options a remote queue refuses, MQINQ of a QREMOTE and of
DEFXMITQ). The port-level cases are in tests/qmgr/contract/test_remote.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dlqhandler.qmgr.embedded.xqh import decode_xqh
from tests.worker.helpers import mqsc

MQ = tuple[Any, Any]


def _fails(ibmmq: Any, call: Any) -> tuple[int, int]:
    with pytest.raises(ibmmq.MQMIError) as caught:
        call()
    return int(caught.value.comp), int(caught.value.reason)


def _name(raw: Any) -> str:
    return bytes(raw).split(b"\0", 1)[0].decode().strip()


def _transmitted(ibmmq: Any, qmgr: Any, xmitq: str) -> list[tuple[str, str, bytes]]:
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, xmitq, c.MQOO_INPUT_AS_Q_DEF)
    out = []
    while True:
        md = ibmmq.MD()
        try:
            body = q.get(None, md, ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
        except ibmmq.MQMIError as exc:
            if exc.reason != c.MQRC_NO_MSG_AVAILABLE:
                raise
            break
        assert md.Format == b"MQXMIT  "
        header, data = decode_xqh(bytes(body))
        out.append((header.remote_q_name, header.remote_q_mgr_name, data))
    q.close()
    return out


def test_mqopen_with_object_qmgr_name_puts_through_its_transmission_queue(
    mq: MQ, home: Path
) -> None:
    """MQOPEN of APP.IN with ObjectQMgrName QM2 (a transmission queue) for output: the MQOD
    (version 3) comes back with ResolvedQName APP.IN and ResolvedQMgrName QM2, and MQPUT lands
    on QM2 with an MQXQH naming APP.IN at QM2.
    IBM, ResolvedQName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098270_.html):
    "This is the name of the destination queue after the local queue manager resolves the
    name. The name returned is the name of a queue that exists on the queue manager
    identified by ResolvedQMgrName"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QLOCAL(QM2) USAGE(XMITQ)")
    od = ibmmq.OD(Version=c.MQOD_VERSION_3, ObjectName=b"APP.IN", ObjectQMgrName=b"QM2")
    q = ibmmq.Queue(qmgr, od, c.MQOO_OUTPUT)
    assert (_name(od.ResolvedQName), _name(od.ResolvedQMgrName)) == ("APP.IN", "QM2")
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    q.put(b"payload", ibmmq.MD(Format=b"MQSTR   "), pmo)
    assert (_name(pmo.ResolvedQName), _name(pmo.ResolvedQMgrName)) == ("APP.IN", "QM2")
    q.close()
    assert _transmitted(ibmmq, qmgr, "QM2") == [("APP.IN", "QM2", b"payload")]


def test_mqput1_of_a_remote_definition_resolves_to_rname_at_rqmname(mq: MQ, home: Path) -> None:
    """MQPUT1 of QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(TO.QM2): the MQPMO's
    ResolvedQName/ResolvedQMgrName are APP.IN and QM2; the message waits on TO.QM2.
    IBM, ResolvedQMgrName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098260_.html):
    "the name of the destination queue manager after the local queue manager resolves the
    name"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(
        home,
        "DEFINE QLOCAL(TO.QM2) USAGE(XMITQ)\n"
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(TO.QM2)",
    )
    pmo = ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT)
    qmgr.put1(ibmmq.OD(ObjectName=b"CENTRAL"), b"x", ibmmq.MD(Format=b"MQSTR   "), pmo)
    assert (_name(pmo.ResolvedQName), _name(pmo.ResolvedQMgrName)) == ("APP.IN", "QM2")
    assert _transmitted(ibmmq, qmgr, "TO.QM2") == [("APP.IN", "QM2", b"x")]


@pytest.mark.parametrize("option", ["MQOO_INPUT_AS_Q_DEF", "MQOO_BROWSE", "MQOO_INQUIRE"])
def test_input_browse_or_inquire_through_a_queue_manager_alias_of_this_qmgr_is_2045(
    mq: MQ, home: Path, option: str
) -> None:
    """ObjectQMgrName naming a queue manager alias whose RQMNAME is this queue manager, or a
    remote queue manager, with MQOO_INPUT_AS_Q_DEF, MQOO_BROWSE or MQOO_INQUIRE: MQCC_FAILED,
    MQRC_OPTION_NOT_VALID_FOR_TYPE (2045). For output the alias resolves to the local queue.
    IBM, 2045 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041160_.html): "ObjectQMgrName
    in the object descriptor specifies the name of a local definition of a remote queue (to
    specify a queue manager alias), and the queue named in the RemoteQMgrName attribute of
    the definition is the name of the local queue manager"; "MQOO_INQUIRE for a remote queue
    that has no local definition"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(home, "DEFINE QREMOTE(OLD.NAME) RQMNAME(QM1)\nDEFINE QLOCAL(QM2) USAGE(XMITQ)")
    for alias in (b"OLD.NAME", b"QM2"):
        od = ibmmq.OD(ObjectName=b"Q1", ObjectQMgrName=alias)
        assert _fails(ibmmq, lambda od=od: ibmmq.Queue(qmgr, od, getattr(c, option))) == (2, 2045)
    q = ibmmq.Queue(qmgr, ibmmq.OD(ObjectName=b"Q1", ObjectQMgrName=b"OLD.NAME"), c.MQOO_OUTPUT)
    q.put(b"here", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    q.close()
    local = ibmmq.Queue(qmgr, "Q1", c.MQOO_INPUT_AS_Q_DEF)
    assert bytes(local.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))) == b"here"
    local.close()


def test_mqinq_of_a_remote_definition_and_of_defxmitq(mq: MQ, home: Path) -> None:
    """MQOPEN (MQOO_INQUIRE) of a QREMOTE then MQINQ: MQIA_Q_TYPE is MQQT_REMOTE and
    MQCA_REMOTE_Q_NAME, MQCA_REMOTE_Q_MGR_NAME, MQCA_XMIT_Q_NAME are its RNAME, RQMNAME and
    XMITQ, blank-padded to 48; MQINQ of the queue manager answers MQCA_DEF_XMIT_Q_NAME.
    IBM, XmitQName (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103620_.html):
    "use the MQCA_XMIT_Q_NAME selector with the MQINQ call. The length of this attribute is
    given by MQ_Q_NAME_LENGTH"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    mqsc(
        home,
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(TO.QM2)\n"
        "DEFINE QLOCAL(DEF.XMITQ) USAGE(XMITQ)\nALTER QMGR DEFXMITQ(DEF.XMITQ)",
    )
    q = ibmmq.Queue(qmgr, "CENTRAL", c.MQOO_INQUIRE)
    assert q.inquire(c.MQIA_Q_TYPE) == c.MQQT_REMOTE
    got = {
        s: bytes(q.inquire(s))
        for s in (c.MQCA_REMOTE_Q_NAME, c.MQCA_REMOTE_Q_MGR_NAME, c.MQCA_XMIT_Q_NAME)
    }
    assert got == {
        c.MQCA_REMOTE_Q_NAME: b"APP.IN".ljust(48),
        c.MQCA_REMOTE_Q_MGR_NAME: b"QM2".ljust(48),
        c.MQCA_XMIT_Q_NAME: b"TO.QM2".ljust(48),
    }
    q.close()
    assert bytes(qmgr.inquire(c.MQCA_DEF_XMIT_Q_NAME)) == b"DEF.XMITQ".ljust(48)
