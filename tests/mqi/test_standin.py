"""The MQI stand-in itself, driven through IBM's ``ibmmq`` package directly.

What the adapter never asks for but IBM documents (MQMD version 1 with an MQMDE,
group status in the MQGMO, option checks), the shell route (``make mqi-standin``
variables in a fresh process) and the calls that are refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.qmgr import PutOptions, connect, create_qmgr
from tests.mqi.build import ROOT, child_env, load
from tests.mqi.standin import StandIn


@pytest.fixture
def mq(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """(ibmmq module, a connected ibmmq.QueueManager) on a fresh QM1 with queue Q1."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    admin = connect("QM1", home=home)
    admin.admin().define_queue("Q1", {})
    admin.disconnect()
    standin: StandIn = load()  # type: ignore[assignment]
    standin.reset(home=home)
    import ibmmq

    qmgr = ibmmq.QueueManager(None)
    qmgr.connect_with_options("QM1")
    yield ibmmq, qmgr
    qmgr.disconnect()
    assert not standin.errors, standin.errors
    standin.reset()


def test_a_version_1_mqmd_receives_the_group_fields_in_an_mqmde(mq: tuple[Any, Any]) -> None:
    """A grouped message got with an MQMD version 1: Format MQHMDE and an MQMDE (72
    bytes, GroupId, MsgSeqNumber, MsgFlags, the real Format) in front of the data;
    MQGMO.GroupStatus says 'L' for the last message of the group."""
    ibmmq, qmgr = mq
    gid = b"G1".ljust(24, b"\0")
    md = ibmmq.MD(Format=b"MQSTR   ", GroupId=gid, MsgSeqNumber=2,
                  MsgFlags=MQMF_LAST_MSG_IN_GROUP)
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
    q.put(b"first", ibmmq.MD(Format=b"MQSTR   ", GroupId=b"G2".ljust(24, b"\0"),
                             MsgFlags=MQMF_MSG_IN_GROUP))
    first = ibmmq.MD(Version=1)
    data = q.get(None, first, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT))
    q.put(data, first)  # the MQMDE goes back in front of the data
    again = ibmmq.MD()
    assert q.get(None, again, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_SYNCPOINT)) == b"first"
    assert (again.GroupId, again.MsgFlags) == (b"G2".ljust(24, b"\0"), MQMF_MSG_IN_GROUP)
    q.close()


@pytest.mark.parametrize("options", ["MQGMO_SYNCPOINT|MQGMO_NO_SYNCPOINT",
                                     "MQGMO_LOCK", "MQGMO_BROWSE_FIRST|MQGMO_SYNCPOINT"])
def test_contradictory_get_options_are_mqrc_options_error(mq: tuple[Any, Any],
                                                          options: str) -> None:
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
    other.put1(ibmmq.OD(ObjectName=b"Q1"), b"kept", ibmmq.MD(),
               ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT))
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
    qm.put1("SYSTEM.DEAD.LETTER.QUEUE", Message(MQMD(), b"hello"),
            PutOptions(syncpoint=False, context="default"))
    qm.disconnect()
    printed = subprocess.run([sys.executable, "-m", "tests.mqi.build"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
    exports = dict(line.removeprefix("export ").split("=", 1) for line in printed.splitlines())
    assert exports.keys() == child_env().keys()
    script = ("import ibmmq\n"
              "qm = ibmmq.connect('QM7')\n"
              "q = ibmmq.Queue(qm, 'SYSTEM.DEAD.LETTER.QUEUE')\n"
              "print(q.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))\n")
    env = {**os.environ, **child_env(), "DLQHANDLER_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "1"), done.stderr
