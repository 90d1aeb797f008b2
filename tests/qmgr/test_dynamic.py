"""Dynamic queues on the embedded queue manager: what the port does not show (the
DynamicQName the embedded ``open`` takes, a killed creator, the queue list)."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.qmgr import EmbeddedQueueManager, run_mqsc

ROOT = Path(__file__).resolve().parents[2]


def _mqsc(qm: EmbeddedQueueManager, text: str) -> str:
    out = io.StringIO()
    assert run_mqsc(text, qm.admin(), out, qmgr_name=qm.name).ok, out.getvalue()
    return out.getvalue()


def _queues(qm: EmbeddedQueueManager) -> list[str]:
    return [rec.name for rec in qm.admin().queues("*")]


@pytest.mark.parametrize(
    "requested", ["", "   ", "APP.*.X", "A" * 33 + "*", "APP Q", "APP.Q!", "A" * 49]
)
def test_a_bad_dynamic_queue_name_is_2011_and_creates_nothing(
    qm: EmbeddedQueueManager, requested: str
) -> None:
    """A DynamicQName that is blank, has a '*' that is not last or past position 33, a
    character MQ names do not allow, or more than 48 characters: MQRC_DYNAMIC_Q_NAME_ERROR
    (2011), and no queue is created.

    IBM, DynamicQName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm):
    "the asterisk is valid only in positions 1 through 33. There must be no characters other
    than blanks or a null character following the asterisk"; "A name that is blank ... is
    not valid if ObjectName is the name of a model queue"."""
    _mqsc(qm, "DEFINE QMODEL(APP.MODEL)")
    before = _queues(qm)
    with pytest.raises(MQIError) as exc:
        qm.open("APP.MODEL", dynamic_name=requested)
    assert exc.value.reason == 2011
    assert _queues(qm) == before


def test_a_prefix_of_32_characters_and_a_full_name_are_taken(qm: EmbeddedQueueManager) -> None:
    """A 32-character prefix and '*' makes a 48-character name; a full name is used as it
    is, and a second open of it is MQRC_OBJECT_ALREADY_EXISTS (2100) creating nothing.

    IBM, Creating dynamic queues (https://ibm.com/docs/SSFKSJ_7.5.0/com.ibm.mq.dev.doc/q026100_.html):
    "Give the full name that you want in the DynamicQName field of the MQOD structure"."""
    _mqsc(qm, "DEFINE QMODEL(APP.MODEL) DEFTYPE(PERMDYN)")
    prefix = "P" * 32
    q = qm.open("APP.MODEL", dynamic_name=prefix + "*")
    assert q.name.startswith(prefix)
    assert len(q.name) == 48
    full = qm.open("APP.MODEL", dynamic_name="APP.FULL")
    assert full.name == "APP.FULL"
    before = _queues(qm)
    with pytest.raises(MQIError) as exc:
        qm.open("APP.MODEL", dynamic_name="APP.FULL")
    assert exc.value.reason == 2100
    assert _queues(qm) == before


def test_a_killed_creator_s_temporary_dynamic_queue_is_deleted_by_recovery(
    qm: EmbeddedQueueManager, home: Path
) -> None:
    """A process that created a TEMPDYN queue and put a message on it is killed (SIGKILL,
    no MQCLOSE, no MQDISC): the next recovery deletes its queue with the message, as IBM
    deletes it when "the application ... terminates".

    IBM, Dynamic and Model queues (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm):
    temporary dynamic queues "are deleted when the application that issued the MQOPEN call
    that created the queue closes the queue or terminates"."""
    _mqsc(qm, "DEFINE QMODEL(APP.MODEL)")
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from dlqhandler.mq import MQMD, Message\n"
        "from dlqhandler.qmgr import PutOptions, connect\n"
        "qm = connect('QM1', home=Path(sys.argv[1]))\n"
        "q = qm.open('APP.MODEL', output=True, dynamic_name='APP.TEMP.*')\n"
        "q.put(Message(MQMD(persistence=0), b'm'), PutOptions(syncpoint=False))\n"
        "print(q.name, flush=True)\n"
        "time.sleep(120)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(home)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        name = child.stdout.readline().strip()
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    assert name.startswith("APP.TEMP.")
    assert name in _queues(qm)
    assert qm.inquire_queue(name).curdepth == 1
    qm.recover()
    assert name not in _queues(qm)
