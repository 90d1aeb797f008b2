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


def test_open_takes_a_dynamic_queue_name(adapter: Adapter) -> None:
    """``open(model, dynamic_name=...)`` is MQOD.DynamicQName: a prefix ending in '*' gets
    a unique suffix, a full name is used as it is (and a second open with it is
    MQRC_OBJECT_ALREADY_EXISTS, 2100, creating nothing); the handle's name is the
    created queue's, and the queue is there for another connection.

    IBM, DynamicQName (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q098150_.htm):
    "This is the name of a dynamic queue that is to be created by the MQOPEN call";
    "If the last nonblank character in the name is an asterisk (*), the queue manager
    replaces the asterisk with a string of characters that guarantees that the name
    generated for the queue is unique"; MQOPEN
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q101870_.htm):
    "Subsequent operations using the Hobj returned by the MQOPEN call are performed on the
    new dynamic queue"."""
    adapter.mqsc("DEFINE QMODEL(APP.MODEL)")
    qm = adapter.connect()
    prefixed = qm.open("APP.MODEL", output=True, dynamic_name="APP.REPLY.*")
    assert prefixed.name.startswith("APP.REPLY.")
    assert len(prefixed.name) > len("APP.REPLY.")
    full = qm.open("APP.MODEL", output=True, dynamic_name="APP.MINE")
    assert full.name == "APP.MINE"
    full.put(text("np", persistence=0), NOW)
    other = adapter.connect()
    assert other.inquire_queue("APP.MINE").curdepth == 1
    assert other.inquire_queue(prefixed.name).curdepth == 0
    with pytest.raises(MQIError) as exc:
        other.open("APP.MODEL", output=True, dynamic_name="APP.MINE")
    assert exc.value.reason == 2100
    assert other.inquire_queue("APP.MINE").curdepth == 1


def test_a_handle_on_a_deleted_dynamic_queue_gets_2052(adapter: Adapter) -> None:
    """A second connection's output handle on a temporary dynamic queue, opened by the
    queue's name before the creating handle closes (which deletes the queue), gets
    MQRC_Q_DELETED (2052) on every put after: a plain put and one passing all context
    (which the IBM MQ adapter makes with MQPUT1), neither creating the queue again.

    IBM, Some cases where the put calls fail
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queue-some-cases-where-put-calls-fail):
    "If a dynamic queue (either temporary or permanent) has been deleted, MQPUT calls using
    a previously-acquired object handle fail and return the MQRC_Q_DELETED reason code";
    2052 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041230_.html): "An Hobj
    queue handle specified on a call refers to a dynamic queue that has been deleted since
    the queue was opened"."""
    adapter.mqsc("DEFINE QMODEL(APP.MODEL)")
    creator = adapter.connect().open("APP.MODEL", input=True, dynamic_name="APP.GONE")
    other = adapter.connect()
    handle = other.open("APP.GONE", input=False, browse=False, output=True)
    handle.put(text("before", persistence=0), NOW)
    creator.close()
    assert _gone(adapter, "APP.GONE")
    for options in (NOW, PutOptions(syncpoint=False, context="pass_all")):
        with pytest.raises(MQIError) as exc:
            handle.put(text("after", persistence=0), options)
        assert exc.value.reason == 2052
    assert _gone(adapter, "APP.GONE")
    handle.close()


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_closing_a_temporary_dynamic_queue_with_uncommitted_work(
    adapter: Adapter, end: str
) -> None:
    """The creating handle closes a temporary dynamic queue while its unit of work holds an
    uncommitted get from it, an uncommitted put to it and an uncommitted put to another
    queue: the dynamic queue is gone at once for every application (2085 by name), with its
    messages; ending the unit of work then succeeds, commits or backs out only the other
    queue's put, and brings nothing back on the dynamic queue's name.

    IBM, Closing objects using the MQCLOSE call
    (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/develop/q026120_.html): "When you close a
    temporary dynamic queue, the queue is deleted, along with any messages that might still
    be on it. This is true even if there are uncommitted MQGET, MQPUT, or MQPUT1 calls
    outstanding against the queue"; Dynamic and Model queues
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm):
    with such calls outstanding "the queue is marked as being logically deleted, and is only
    physically deleted (after these calls have been committed)", and MQCLOSE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q101740_.html): the
    deleted queue "cannot be accessed by applications" meanwhile."""
    adapter.mqsc("DEFINE QMODEL(APP.MODEL)")
    adapter.define_queue("APP.Q")
    qm = adapter.connect()
    temp = qm.open("APP.MODEL", output=True, dynamic_name="APP.TEMP")
    temp.put(text("committed", persistence=0), NOW)
    in_uow = PutOptions(syncpoint=True)
    assert temp.get(GetOptions(syncpoint=True)).body == b"committed"
    temp.put(text("uncommitted", persistence=0), in_uow)
    qm.put1("APP.Q", text("other", persistence=0), in_uow)
    temp.close()
    assert _gone(adapter, "APP.TEMP")
    other = adapter.connect()
    with pytest.raises(MQIError) as exc:
        other.open("APP.Q").get(GET)  # (CURDEPTH counts uncommitted puts; a get does not)
    assert exc.value.reason == 2033
    qm.commit() if end == "commit" else qm.backout()
    assert _gone(adapter, "APP.TEMP")
    assert other.inquire_queue("APP.Q").curdepth == (1 if end == "commit" else 0)
    if end == "commit":
        assert other.open("APP.Q").get(GET).body == b"other"
    again = qm.open("APP.MODEL", output=True, dynamic_name="APP.TEMP")
    assert other.inquire_queue("APP.TEMP").curdepth == 0
    again.close()
