"""Input sharing through the port: SHARE/NOSHARE and DEFSOPT(SHARED|EXCL) of a local queue.

``open(exclusive=None)`` is MQOO_INPUT_AS_Q_DEF (the adapter and the embedded queue
manager both), ``exclusive=False`` MQOO_INPUT_SHARED, ``exclusive=True``
MQOO_INPUT_EXCLUSIVE.
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)
_IN_USE = 2042  # MQRC_OBJECT_IN_USE


def _refused(adapter: Adapter, queue: str, **kwargs: object) -> None:
    """An input open of ``queue`` on a new connection fails with 2042."""
    with pytest.raises(MQIError) as exc:
        adapter.connect().open(queue, **kwargs)  # type: ignore[arg-type]
    assert exc.value.reason == _IN_USE


def test_defsopt_and_share_are_answered_by_mqinq(adapter: Adapter) -> None:
    """MQINQ MQIA_DEF_INPUT_OPEN_OPTION and MQIA_SHAREABILITY answer what DEFINE and ALTER
    set: IBM's defaults DEFSOPT(SHARED) and SHARE, then DEFSOPT(EXCL) NOSHARE.

    IBM, Shareability (MQLONG)
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103540_.html):
    "To determine the value of this attribute, use the MQIA_SHAREABILITY selector with the
    MQINQ call"; DefInputOpenOption
    (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=queues-definputopenoption-10-digit-signed-integer-i):
    "This is the default way in which the queue should be opened for input"."""
    adapter.define_queue("APP.SH")
    qm = adapter.connect()
    wanted = [s.MQIA_DEF_INPUT_OPEN_OPTION, s.MQIA_SHAREABILITY]
    assert qm.inquire_object("queue", "APP.SH", wanted) == {
        s.MQIA_DEF_INPUT_OPEN_OPTION: s.MQOO_INPUT_SHARED,
        s.MQIA_SHAREABILITY: s.MQQA_SHAREABLE,
    }
    adapter.mqsc("ALTER QLOCAL(APP.SH) DEFSOPT(EXCL) NOSHARE")
    assert adapter.connect().inquire_object("queue", "APP.SH", wanted) == {
        s.MQIA_DEF_INPUT_OPEN_OPTION: s.MQOO_INPUT_EXCLUSIVE,
        s.MQIA_SHAREABILITY: s.MQQA_NOT_SHAREABLE,
    }


def test_input_as_q_def_on_defsopt_excl_is_exclusive(adapter: Adapter) -> None:
    """On a DEFSOPT(EXCL) queue an MQOO_INPUT_AS_Q_DEF open is exclusive: a second input
    open of any kind gets 2042 and takes nothing (the message is still there on another
    connection); browse and output opens still work. Explicit MQOO_INPUT_SHARED opens share
    the queue, DEFSOPT notwithstanding (it is the default only).

    IBM, 2042 MQRC_OBJECT_IN_USE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041130_.html): "IBM MQ
    opens a queue for shared input if the application uses the MQOO_INPUT_SHARED open
    option or, if the application uses MQOO_INPUT_AS_Q_DEF and the default sharing option
    queue attribute is set to DEFSOPT(SHARED)"; "it also arises if the request is for
    exclusive input, but the object is already open for input (of any sort)"."""
    adapter.define_queue("APP.EX", defsopt="EXCL")
    holder = adapter.connect()
    holder.put1("APP.EX", text("m1"), NOW)
    mine = holder.open("APP.EX")
    for kwargs in ({}, {"exclusive": False}, {"exclusive": True}):
        _refused(adapter, "APP.EX", **kwargs)
    other = adapter.connect()
    other.open("APP.EX", input=False, browse=True).close()
    other.put1("APP.EX", text("m2"), NOW)
    assert other.inquire_queue("APP.EX").curdepth == 2
    mine.close()
    one, two = other.open("APP.EX", exclusive=False), holder.open("APP.EX", exclusive=False)
    assert [one.get(GET).body, two.get(GET).body] == [b"m1", b"m2"]


def test_noshare_makes_every_input_open_exclusive(adapter: Adapter) -> None:
    """On a NOSHARE queue, MQOO_INPUT_SHARED and MQOO_INPUT_AS_Q_DEF opens are exclusive
    (DEFSOPT(SHARED) notwithstanding): while one is open, other input opens get 2042 and
    take nothing; browse works; after ALTER ... SHARE two shared opens work side by side.

    IBM, Shareability (MQLONG)
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103540_.html),
    MQQA_NOT_SHAREABLE: "An MQOPEN call with the MQOO_INPUT_SHARED option is treated as
    MQOO_INPUT_EXCLUSIVE"; 2042 MQRC_OBJECT_IN_USE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q041130_.html): "If the
    queue definition shows NOSHARE, then IBM MQ will make the input handle exclusive
    regardless of the options set by the application"."""
    adapter.define_queue("APP.NS", noshare=True, defsopt="SHARED")
    first = adapter.connect()
    first.put1("APP.NS", text("m1"), NOW)
    for kwargs in ({"exclusive": False}, {}):
        held = first.open("APP.NS", **kwargs)  # type: ignore[arg-type]
        for other in ({}, {"exclusive": False}, {"exclusive": True}):
            _refused(adapter, "APP.NS", **other)
        browse = adapter.connect().open("APP.NS", input=False, browse=True)
        assert browse.get(GetOptions(browse="first", syncpoint=False)).body == b"m1"
        held.close()
    assert adapter.connect().inquire_queue("APP.NS").curdepth == 1
    adapter.mqsc("ALTER QLOCAL(APP.NS) SHARE")
    one, two = adapter.connect().open("APP.NS"), adapter.connect().open("APP.NS")
    assert one.get(GET).body == b"m1"
    two.close()
