"""The MQI stand-in itself, driven through IBM's ``ibmmq`` package directly.

What the adapter never asks for but IBM documents (MQMD version 1 with an MQMDE,
group status in the MQGMO, option checks), the shell route (``make mqi-standin``
variables in a fresh process) and the calls that are refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.qmgr import PutOptions, connect, create_qmgr
from tests.mqi.build import ROOT, child_env


def test_a_version_1_mqmd_receives_the_group_fields_in_an_mqmde(mq: tuple[Any, Any]) -> None:
    """A grouped message got with an MQMD version 1: Format MQHMDE and an MQMDE (72
    bytes, GroupId, MsgSeqNumber, MsgFlags, the real Format) in front of the data;
    MQGMO.GroupStatus says 'L' for the last message of the group."""
    ibmmq, qmgr = mq
    gid = b"G1".ljust(24, b"\0")
    md = ibmmq.MD(Format=b"MQSTR   ", GroupId=gid, MsgSeqNumber=2, MsgFlags=MQMF_LAST_MSG_IN_GROUP)
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"data", md)
    got_md = ibmmq.MD(Version=1)
    gmo = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT)
    data = q.get(None, got_md, gmo)
    assert got_md.Format == b"MQHMDE  "
    assert (data[:4], data[72:]) == (b"MDE ", b"data")
    assert data[32:56] == gid
    assert data[20:28] == b"MQSTR   "
    assert gmo.GroupStatus == ord("L")  # ibmmq unpacks this MQCHAR as a number
    q.close()


def test_a_version_1_put_with_an_mqmde_keeps_the_group(mq: tuple[Any, Any]) -> None:
    """The other way: MQMD v1 with an MQMDE in the data puts a grouped message (v2 get)."""
    ibmmq, qmgr = mq
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(
        b"first",
        ibmmq.MD(Format=b"MQSTR   ", GroupId=b"G2".ljust(24, b"\0"), MsgFlags=MQMF_MSG_IN_GROUP),
    )
    first = ibmmq.MD(Version=1)
    data = q.get(None, first, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT))
    q.put(data, first)  # the MQMDE goes back in front of the data
    again = ibmmq.MD()
    assert q.get(None, again, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT)) == b"first"
    assert (again.GroupId, again.MsgFlags) == (b"G2".ljust(24, b"\0"), MQMF_MSG_IN_GROUP)
    q.close()


@pytest.mark.parametrize(
    "options",
    ["MQGMO_SYNCPOINT|MQGMO_NO_SYNCPOINT", "MQGMO_LOCK", "MQGMO_BROWSE_FIRST|MQGMO_SYNCPOINT"],
)
def test_contradictory_get_options_are_mqrc_options_error(
    mq: tuple[Any, Any], options: str
) -> None:
    """IBM's option rules: one syncpoint choice; MQGMO_LOCK only with a browse; no
    syncpoint on a browse. MQRC_OPTIONS_ERROR (2046)."""
    ibmmq, qmgr = mq
    flags = 0
    for name in options.split("|"):
        flags |= getattr(ibmmq.CMQC, name)
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF | ibmmq.CMQC.MQOO_BROWSE)
    with pytest.raises(ibmmq.MQMIError) as caught:
        q.get(None, ibmmq.MD(), ibmmq.GMO(Options=flags))
    assert caught.value.reason == 2046
    q.close()


def test_pass_all_context_needs_a_handle_that_saves_context(mq: tuple[Any, Any]) -> None:
    """MQPMO_PASS_ALL_CONTEXT naming a handle opened without MQOO_SAVE_ALL_CONTEXT:
    MQRC_CONTEXT_HANDLE_ERROR (2097)."""
    ibmmq, qmgr = mq
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_PASS_ALL_CONTEXT, Context=q.get_handle())
    with pytest.raises(ibmmq.MQMIError) as caught:
        qmgr.put1(ibmmq.OD(ObjectName=b"Q1"), b"x", ibmmq.MD(), pmo)
    assert caught.value.reason == 2097
    q.close()


def test_mqdisc_commits_the_unit_of_work(mq: tuple[Any, Any], tmp_path: Path) -> None:
    """As on IBM MQ, a normal MQDISC commits: a message put under syncpoint survives it."""
    ibmmq, qmgr = mq
    other = ibmmq.QueueManager(None)
    other.connect_with_options("QM1")
    other.put1(
        ibmmq.OD(ObjectName=b"Q1"),
        b"kept",
        ibmmq.MD(),
        ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT),
    )
    other.disconnect()
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get(None, ibmmq.MD(), ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT)) == b"kept"
    q.close()


def test_make_mqi_standin_variables_work_in_a_fresh_process(tmp_path: Path) -> None:
    """``python -m tests.mqi.build`` prints export lines; a new Python process with them
    imports ibmmq, whose first MQCONNX loads the stand-in (through the CPython API of the
    process) and reaches the embedded queue manager under DLQHANDLER_HOME."""
    home = tmp_path / "home"
    create_qmgr(home, "QM7")
    qm = connect("QM7", home=home)
    qm.put1(
        "SYSTEM.DEAD.LETTER.QUEUE",
        Message(MQMD(), b"hello"),
        PutOptions(syncpoint=False, context="default"),
    )
    qm.disconnect()
    printed = subprocess.run(
        [sys.executable, "-m", "tests.mqi.build"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    exports = dict(line.removeprefix("export ").split("=", 1) for line in printed.splitlines())
    assert exports.keys() == child_env().keys()
    script = (
        "import ibmmq\n"
        "qm = ibmmq.connect('QM7')\n"
        "q = ibmmq.Queue(qm, 'SYSTEM.DEAD.LETTER.QUEUE')\n"
        "print(q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))\n"
    )
    env = {**os.environ, **child_env(), "DLQHANDLER_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "1"), done.stderr


def _every_property(ibmmq: Any, handle: Any) -> list[tuple[str, Any]]:
    """(name, value) of each property, by ``%`` with MQIMPO_INQ_FIRST then INQ_NEXT."""
    c, out, options = ibmmq.CMQC, [], ibmmq.CMQC.MQIMPO_INQ_FIRST
    while True:
        try:
            value, name = handle.properties.get("%", impo_options=options)
        except ibmmq.MQMIError as exc:
            if exc.reason != c.MQRC_PROPERTY_NOT_AVAILABLE:
                raise
            return out
        out.append((name.decode() if isinstance(name, bytes) else name, value))
        options = c.MQIMPO_INQ_NEXT


def test_properties_set_through_ibmmq_travel_with_the_message(mq: tuple[Any, Any]) -> None:
    """ibmmq.MessageHandle: MQSETMP of each IBM type, MQPUT with NewMsgHandle, MQGET with
    MQGMO_PROPERTIES_IN_HANDLE into another handle, MQINQMP by name and by ``%`` with
    INQ_FIRST/INQ_NEXT: the same names and values; MQDLTMP removes one."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    out = ibmmq.MessageHandle(qmgr)
    p = out.properties
    p.set("Color", "red")
    p.set("usr.Count", 7, property_type=c.MQTYPE_INT32)
    p.set("Small", -3, property_type=c.MQTYPE_INT8)
    p.set("Big", 2**40, property_type=c.MQTYPE_INT64)
    p.set("Ratio", 0.5, property_type=c.MQTYPE_FLOAT32)
    p.set("Flag", True, property_type=c.MQTYPE_BOOLEAN)
    p.set("Raw", b"\x00\xff", property_type=c.MQTYPE_BYTE_STRING, value_length=2)
    p.set("Gone", None, property_type=c.MQTYPE_NULL)
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF)
    pmo = ibmmq.PMO(Version=c.MQPMO_VERSION_3)
    pmo.NewMsgHandle = out.get_handle()
    q.put(b"data", ibmmq.MD(), pmo)
    into = ibmmq.MessageHandle(qmgr)
    gmo = ibmmq.GMO(
        Version=c.MQGMO_VERSION_4, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_PROPERTIES_IN_HANDLE
    )
    gmo.MsgHandle = into.get_handle()
    assert q.get(None, ibmmq.MD(), gmo) == b"data"
    assert into.properties.get("Color") == "red"
    assert into.properties.get("usr.Count") == 7
    assert (
        into.properties.get(
            "Count", property_type=c.MQTYPE_STRING, impo_options=c.MQIMPO_CONVERT_TYPE
        )
        == "7"
    )
    assert _every_property(ibmmq, into) == [
        ("Color", "red"),
        ("Count", 7),
        ("Small", -3),
        ("Big", 2**40),
        ("Ratio", 0.5),
        ("Flag", 1),
        ("Raw", b"\x00\xff"),
        ("Gone", None),
    ]
    into.properties.dlt("Color")
    with pytest.raises(ibmmq.MQMIError) as exc:
        into.properties.get("Color")
    assert exc.value.reason == c.MQRC_PROPERTY_NOT_AVAILABLE
    into.dlt()
    out.dlt()


def test_a_forbidden_property_name_through_ibmmq_is_2442(mq: tuple[Any, Any]) -> None:
    """MQSETMP through IBM's library with a name IBM forbids (a selector keyword, 'JMS'
    names other than the MQI's synonyms, 'Body...', a '..'): MQRC_PROPERTY_NAME_ERROR
    2442, as on the embedded queue manager; nothing is set. An empty name is 2513."""
    ibmmq, qmgr = mq
    handle = ibmmq.MessageHandle(qmgr)
    for name, reason in (("NULL", 2442), ("JMSFoo", 2442), ("Body.x", 2442), ("a..b", 2442)):
        with pytest.raises(ibmmq.MQMIError) as exc:
            handle.properties.set(name, "v")
        assert (exc.value.comp, exc.value.reason) == (ibmmq.CMQC.MQCC_FAILED, reason), name
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("%")
    assert exc.value.reason == 2471  # nothing was set
    handle.dlt()


def test_a_value_longer_than_the_buffer_is_2469_then_read_under_the_cursor(
    mq: tuple[Any, Any],
) -> None:
    """MQINQMP with a buffer shorter than the value: MQRC_PROPERTY_VALUE_TOO_BIG with the
    length needed; MQIMPO_INQ_PROP_UNDER_CURSOR with that length returns it."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    handle = ibmmq.MessageHandle(qmgr)
    handle.properties.set("Long", "x" * 200)
    with pytest.raises(ibmmq.MQMIError) as exc:
        handle.properties.get("%", max_value_length=16)
    assert (exc.value.reason, exc.value.data_length) == (c.MQRC_PROPERTY_VALUE_TOO_BIG, 200)
    value, name = handle.properties.get(
        "%", max_value_length=200, impo_options=c.MQIMPO_INQ_PROP_UNDER_CURSOR
    )
    assert (value, name) == ("x" * 200, "Long")
    handle.dlt()


def test_a_waiting_get_that_fails_with_2080_takes_nothing(mq: tuple[Any, Any]) -> None:
    """MQGET with a wait interval and a buffer too small (no MQGMO_ACCEPT_TRUNCATED_MSG)
    fails with 2080 and leaves the message on the queue: the depth another handle sees is
    still 1 and the next get with a big enough buffer takes it, under syncpoint or not.
    IBM's 2080 page
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041460_.html):
    "The MQGMO_ACCEPT_TRUNCATED_MSG option was not specified, so the message has not been
    removed from the queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF | c.MQOO_INQUIRE)
    q.put(b"x" * 100, ibmmq.MD(Format=b"MQSTR   "))
    for syncpoint in (c.MQGMO_NO_SYNCPOINT, c.MQGMO_SYNCPOINT):
        gmo = ibmmq.GMO(Options=syncpoint | c.MQGMO_WAIT, WaitInterval=100)
        with pytest.raises(ibmmq.MQMIError) as failed:
            q.get(10, ibmmq.MD(), gmo)
        assert failed.value.reason == c.MQRC_TRUNCATED_MSG_FAILED
        qmgr.backout()
        assert q.inquire(c.MQIA_CURRENT_Q_DEPTH) == 1
    got = q.get(200, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_WAIT))
    assert got == b"x" * 100
    q.close()


def test_an_open_with_bad_options_of_an_unknown_queue_is_2046(mq: tuple[Any, Any]) -> None:
    """MQOPEN of a queue that does not exist with options that are not valid (both
    MQOO_INPUT_SHARED and MQOO_INPUT_EXCLUSIVE, or an undefined bit) fails with
    MQRC_OPTIONS_ERROR (2046), not MQRC_UNKNOWN_OBJECT_NAME (2085): the call's options
    are checked before the object is looked up, and with valid options the same open is
    2085. IBM's reason-code pages give no order between the two (IBM's API reason codes
    page, https://www.ibm.com/docs/en/ibm-mq/9.2?topic=codes-api-reason: "details are
    given under each call description"); this is our choice."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    for options in (c.MQOO_INPUT_SHARED | c.MQOO_INPUT_EXCLUSIVE, 0x40000000):
        with pytest.raises(ibmmq.MQMIError) as failed:
            ibmmq.Queue(qmgr, "NO.SUCH.QUEUE", options)
        assert failed.value.reason == c.MQRC_OPTIONS_ERROR
    with pytest.raises(ibmmq.MQMIError) as failed:
        ibmmq.Queue(qmgr, "NO.SUCH.QUEUE", c.MQOO_INPUT_SHARED)
    assert failed.value.reason == c.MQRC_UNKNOWN_OBJECT_NAME


def test_a_complete_msg_get_that_fails_with_2080_takes_nothing(mq: tuple[Any, Any]) -> None:
    """MQGET with MQGMO_COMPLETE_MSG and a buffer too small for the logical message fails
    with 2080 and takes none of its segments (the depth stays 2, no COD is sent); a big
    enough buffer then gets it whole and sends one COD. IBM's 2080 page
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041460_.html):
    "the message has not been removed from the queue"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF | c.MQOO_INQUIRE)
    group = b"G3".ljust(24, b"\0")
    for offset, flags in ((0, c.MQMF_SEGMENT), (50, c.MQMF_LAST_SEGMENT)):
        md = ibmmq.MD(
            Format=b"MQSTR   ",
            GroupId=group,
            Offset=offset,
            MsgFlags=flags,
            Report=c.MQRO_COD,
            ReplyToQ=b"Q1",
        )
        q.put(b"x" * 50, md)
    gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_COMPLETE_MSG)
    with pytest.raises(ibmmq.MQMIError) as failed:
        q.get(60, ibmmq.MD(Version=2), gmo)
    assert failed.value.reason == c.MQRC_TRUNCATED_MSG_FAILED
    assert q.inquire(c.MQIA_CURRENT_Q_DEPTH) == 2
    gmo = ibmmq.GMO(Version=2, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_COMPLETE_MSG)
    assert q.get(200, ibmmq.MD(Version=2), gmo) == b"x" * 100
    report = ibmmq.MD()
    q.get(200, report, ibmmq.GMO(Options=c.MQGMO_NO_SYNCPOINT))
    assert (report.MsgType, report.Feedback) == (c.MQMT_REPORT, c.MQFB_COD)
    assert q.inquire(c.MQIA_CURRENT_Q_DEPTH) == 0
    q.close()


def test_an_mqcmit_that_backs_out_is_a_warning_and_the_adapter_raises_it(
    mq: tuple[Any, Any],
) -> None:
    """MQCMIT made to fail with MQRC_BACKED_OUT (2003) answers MQCC_WARNING with the unit
    of work backed out: the put under syncpoint is gone and the message got under
    syncpoint is back with BackoutCount 1. Through the IBM MQ adapter the same commit
    raises MQIError 2003 (never taken as done), and the next unit of work commits as
    usual. IBM's MQCMIT page (https://www.ibm.com/docs/en/SSFKSJ_latest/refdev/q101750_.html):
    "If CompCode is MQCC_WARNING: MQRC_BACKED_OUT (2003, X'7D3') Unit of work backed
    out"."""
    from dlqhandler.errors import MQIError
    from dlqhandler.qmgr import GetOptions
    from dlqhandler.qmgr.ibmmq.adapter import connect as connect_ibmmq
    from dlqhandler.qmgr.ibmmq.config import IBMMQSettings
    from tests.mqi.build import load

    ibmmq, qmgr = mq
    faults = load().faults  # type: ignore[attr-defined]
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_INPUT_AS_Q_DEF | c.MQOO_BROWSE)
    q.put(b"kept", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_NO_SYNCPOINT))
    assert q.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_SYNCPOINT)) == b"kept"
    q.put(b"undone", ibmmq.MD(), ibmmq.PMO(Options=c.MQPMO_SYNCPOINT))
    faults.fail("MQCMIT", 2003)
    with pytest.raises(ibmmq.MQMIError) as caught:
        qmgr.commit()
    assert (caught.value.comp, caught.value.reason) == (c.MQCC_WARNING, 2003)
    md = ibmmq.MD()
    assert q.get(None, md, ibmmq.GMO(Options=c.MQGMO_BROWSE_FIRST)) == b"kept"
    assert md.BackoutCount == 1
    with pytest.raises(ibmmq.MQMIError) as none:
        q.get(None, ibmmq.MD(), ibmmq.GMO(Options=c.MQGMO_BROWSE_NEXT))
    assert none.value.reason == 2033
    q.close()

    adapter = connect_ibmmq(settings=IBMMQSettings(qmgr="QM1", reconnect_attempts=0))
    try:
        dq = adapter.open("Q1")
        assert dq.get(GetOptions(syncpoint=True)).body == b"kept"
        faults.fail("MQCMIT", 2003)
        with pytest.raises(MQIError) as failed:
            adapter.commit()
        assert failed.value.reason == 2003
        assert dq.get(GetOptions(syncpoint=True)).body == b"kept"
        adapter.commit()
        with pytest.raises(MQIError) as gone:
            dq.get(GetOptions(syncpoint=False))
        assert gone.value.reason == 2033
    finally:
        adapter.disconnect()


def test_mqconn_to_an_unknown_queue_manager_is_2058_and_connects_nothing(
    mq: tuple[Any, Any],
) -> None:
    """MQCONNX naming a queue manager that does not exist: MQCC_FAILED with
    MQRC_Q_MGR_NAME_ERROR (2058), no connection is made (the stand-in holds only the
    fixture's) and the fixture's connection still works.
    IBM, 2058 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041280_.html): "On an
    MQCONN or MQCONNX call, the value specified for the QMgrName parameter is not valid or
    not known"."""
    from tests.mqi.build import load

    ibmmq, qmgr = mq
    standin = load()
    before = standin.connections  # type: ignore[attr-defined]
    other = ibmmq.QueueManager(None)
    with pytest.raises(ibmmq.MQMIError) as caught:
        other.connect_with_options("NOSUCHQM")
    assert (caught.value.comp, caught.value.reason) == (ibmmq.CMQC.MQCC_FAILED, 2058)
    assert standin.connections == before  # type: ignore[attr-defined]
    q = ibmmq.Queue(qmgr, "Q1", ibmmq.CMQC.MQOO_OUTPUT)
    q.put(b"still here")
    q.close()


def test_a_browse_that_fails_with_2080_leaves_the_browse_cursor(mq: tuple[Any, Any]) -> None:
    """A browse-next into a buffer too small, without MQGMO_ACCEPT_TRUNCATED_MSG, fails
    with 2080 (MQCC_WARNING, as IBM gives it) and leaves the browse cursor where it was:
    the next browse-next with room returns that same message. With
    MQGMO_ACCEPT_TRUNCATED_MSG the browse completes with 2079 and the cursor moves on to
    that message, so the next browse-next is 2033. IBM's 2080 page
    (http://www-01.ibm.com/support/knowledgecenter/SSFKSJ_7.5.0/com.ibm.mq.tro.doc/q041460_.html):
    "the browse cursor remains where it was before this call"."""
    ibmmq, qmgr = mq
    c = ibmmq.CMQC
    q = ibmmq.Queue(qmgr, "Q1", c.MQOO_OUTPUT | c.MQOO_BROWSE | c.MQOO_INQUIRE)
    for body in (b"a", b"b" * 50, b"c" * 50):
        q.put(body, ibmmq.MD(Format=b"MQSTR   "))

    def browse(length: int, extra: int = 0) -> bytes:
        options = c.MQGMO_BROWSE_NEXT | c.MQGMO_NO_SYNCPOINT | extra
        return bytes(q.get(length, ibmmq.MD(), ibmmq.GMO(Options=options)))

    assert browse(10) == b"a"
    with pytest.raises(ibmmq.MQMIError) as failed:
        browse(10)
    assert (failed.value.comp, failed.value.reason) == (c.MQCC_WARNING, 2080)
    assert browse(100) == b"b" * 50
    with pytest.raises(ibmmq.MQMIError) as warned:
        browse(10, c.MQGMO_ACCEPT_TRUNCATED_MSG)
    assert (warned.value.comp, warned.value.reason) == (c.MQCC_WARNING, 2079)
    with pytest.raises(ibmmq.MQMIError) as empty:
        browse(100)
    assert empty.value.reason == c.MQRC_NO_MSG_AVAILABLE
    assert q.inquire(c.MQIA_CURRENT_Q_DEPTH) == 3
    q.close()
