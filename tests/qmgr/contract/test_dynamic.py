"""Model queues through the port: ``open`` of a model's name creates a dynamic queue (IBM's
default DynamicQName, ``AMQ.*``) and the handle is that queue's; on both back ends."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)


def _gone(adapter: Adapter, queue: str) -> bool:
    """Whether ``queue`` no longer exists, asked on a new connection (2085)."""
    with pytest.raises(MQIError) as exc:
        adapter.connect().inquire_queue(queue)
    return exc.value.reason == 2085


def test_a_model_opened_through_the_port_is_a_temporary_dynamic_queue(adapter: Adapter) -> None:
    """``open`` of a TEMPDYN model returns a handle whose name is a new 'AMQ.' queue with
    the model's attributes; a persistent message is MQRC_PERSISTENT_NOT_ALLOWED (2048) and
    is not put, a non-persistent one is (a second connection counts it); closing the handle
    deletes the queue with its message.

    IBM, MQOPEN (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101870_.htm):
    "Subsequent operations using the Hobj returned by the MQOPEN call are performed on the
    new dynamic queue, and not on the model queue"; DynamicQName
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm):
    "On other platforms, the value is 'AMQ.*'"; 2048
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041190_.html): "Persistent
    messages cannot be placed on temporary dynamic queues"; DefinitionType
    (https://www.ibm.com/docs/zh-tw/SSFKSJ_9.2.0/refdev/q103160_.html): MQQDT_TEMPORARY_DYNAMIC
    "The queue is a temporary queue that was created by an application issuing an MQOPEN
    call with the name of a model queue", MQQDT_PREDEFINED for one DEFINE made."""
    adapter.mqsc("DEFINE QMODEL(APP.MODEL) MAXDEPTH(9)")
    adapter.define_queue("APP.Q")
    qm = adapter.connect()
    q = qm.open("APP.MODEL", output=True)
    name = q.name
    assert name.startswith("AMQ.")
    assert name != "AMQ."
    other = adapter.connect()
    assert other.inquire_queue(name).maxdepth == 9
    kinds = [s.MQIA_DEFINITION_TYPE]
    assert other.inquire_object("queue", name, kinds) == {
        s.MQIA_DEFINITION_TYPE: s.MQQDT_TEMPORARY_DYNAMIC
    }
    assert other.inquire_object("queue", "APP.Q", kinds) == {
        s.MQIA_DEFINITION_TYPE: s.MQQDT_PREDEFINED
    }
    with pytest.raises(MQIError) as exc:
        q.put(text("kept", persistence=1), NOW)
    assert exc.value.reason == 2048
    assert other.inquire_queue(name).curdepth == 0
    q.put(text("np", persistence=0), NOW)
    assert other.inquire_queue(name).curdepth == 1
    assert q.get(GET).body == b"np"
    q.put(text("left", persistence=0), NOW)
    q.close()
    assert _gone(adapter, name)


def test_a_permanent_dynamic_queue_outlives_its_handle(adapter: Adapter) -> None:
    """A PERMDYN model's dynamic queue stays after its handle closes, with its persistent
    message, and opens by its own name like any local queue; MQPUT1 naming the model is
    MQRC_Q_TYPE_ERROR (2057) and puts nothing.

    IBM, Dynamic and Model queues (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm):
    "Depending on the value of the DefinitionType field of the model queue, the queue
    manager creates either a temporary or permanent dynamic queue"; 2057
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041270_.html): "On an MQPUT1 call,
    the object descriptor MQOD or object record MQOR specifies the name of a model queue"."""
    adapter.mqsc("DEFINE QMODEL(APP.PERM) DEFTYPE(PERMDYN)")
    qm = adapter.connect()
    q = qm.open("APP.PERM", output=True)
    name = q.name
    q.put(text("kept", persistence=1), NOW)
    q.close()
    other = adapter.connect()
    assert other.inquire_queue(name).curdepth == 1
    assert other.open(name).get(GET).body == b"kept"
    with pytest.raises(MQIError) as exc:
        other.put1("APP.PERM", text("x"), NOW)
    assert exc.value.reason == 2057
    assert other.inquire_queue(name).curdepth == 0
