"""Alias queues (QALIAS): defined with IBM's MQSC attribute names, resolved to their base
queue on MQOPEN and MQPUT1, with the alias's own PUT and GET inhibits. Both back ends.

IBM, Working with alias queues
(https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=objects-working-alias-queues): "When an
application makes an MQOPEN call to an alias queue, the queue manager resolves the alias to
the target queue name"; "An alias queue cannot resolve to another locally defined alias
queue". DEFINE QALIAS
(https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queues-define-qalias-define-new-alias-queue):
TARGET, and "PUT(ENABLED) PUT(DISABLED)", "GET(ENABLED) GET(DISABLED)" among the alias's
own attributes. 2001 MQRC_ALIAS_BASE_Q_TYPE_ERROR
(https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040750_.html): "the BaseQName in the
alias queue definition resolves to a queue that is not a local queue, a local definition of
a remote queue, or a cluster queue"; a TARGET that names no queue at all is IBM's
MQRC_UNKNOWN_ALIAS_BASE_Q (2082).
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.qmgr import GetOptions, PutOptions
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)


def _reason(call: object) -> int:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    return exc.value.reason


def test_an_alias_resolves_to_its_target_on_open_and_put1(adapter: Adapter) -> None:
    """MQPUT1 and MQPUT through QALIAS(APP.A) TARGET(APP.T) land on APP.T; MQGET through
    the alias takes them from APP.T.
    IBM (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=objects-working-alias-queues): "the queue
    manager resolves the alias to the target queue name"."""
    adapter.define_queue("APP.T")
    adapter.mqsc("DEFINE QALIAS(APP.A) TARGET(APP.T)")
    qm = adapter.connect()
    qm.put1("APP.A", text("one"), NOW)
    out = qm.open("APP.A", input=False, browse=False, output=True)
    out.put(text("two"), NOW)
    assert qm.inquire_queue("APP.T").curdepth == 2
    q = qm.open("APP.A")
    assert [q.get(GET).body, q.get(GET).body] == [b"one", b"two"]
    assert qm.inquire_queue("APP.T").curdepth == 0


def test_the_aliases_own_inhibits_count_and_the_target_is_untouched(adapter: Adapter) -> None:
    """ALTER QALIAS PUT(DISABLED): a put through the alias is MQRC_PUT_INHIBITED (2051)
    and nothing lands; a put to APP.T itself works. GET(DISABLED) on the alias: a get
    through it is MQRC_GET_INHIBITED (2016) and the message stays; from APP.T it comes.
    IBM, DEFINE QALIAS
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queues-define-qalias-define-new-alias-queue):
    "PUT(ENABLED) PUT(DISABLED)", "GET(ENABLED) GET(DISABLED)"."""
    adapter.define_queue("APP.T")
    adapter.mqsc("DEFINE QALIAS(APP.A) TARGET(APP.T) PUT(DISABLED)")
    qm = adapter.connect()
    assert _reason(lambda: qm.put1("APP.A", text("x"), NOW)) == 2051
    assert qm.inquire_queue("APP.T").curdepth == 0
    qm.put1("APP.T", text("direct"), NOW)
    adapter.mqsc("ALTER QALIAS(APP.A) PUT(ENABLED) GET(DISABLED)")
    assert _reason(lambda: qm.open("APP.A").get(GET)) == 2016
    assert qm.inquire_queue("APP.T").curdepth == 1
    assert qm.open("APP.T").get(GET).body == b"direct"


def test_an_alias_of_nothing_or_of_an_alias_is_refused(adapter: Adapter) -> None:
    """TARGET naming no queue: MQOPEN and MQPUT1 fail with MQRC_UNKNOWN_ALIAS_BASE_Q (2082);
    TARGET naming another alias: MQRC_ALIAS_BASE_Q_TYPE_ERROR (2001). Nothing is put.
    IBM (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=objects-working-alias-queues): "An alias
    queue cannot resolve to another locally defined alias queue"."""
    adapter.define_queue("APP.T")
    adapter.mqsc("DEFINE QALIAS(APP.NONE) TARGET(NO.SUCH.Q)")
    adapter.mqsc("DEFINE QALIAS(APP.A) TARGET(APP.T)")
    adapter.mqsc("DEFINE QALIAS(APP.AA) TARGET(APP.A)")
    qm = adapter.connect()
    assert _reason(lambda: qm.put1("APP.NONE", text("x"), NOW)) == 2082
    assert _reason(lambda: qm.open("APP.NONE")) == 2082
    assert _reason(lambda: qm.put1("APP.AA", text("x"), NOW)) == 2001
    assert qm.inquire_queue("APP.T").curdepth == 0


def test_inquire_of_an_alias_answers_its_own_attributes(adapter: Adapter) -> None:
    """MQINQ of an alias: MQIA_Q_TYPE MQQT_ALIAS, MQCA_BASE_Q_NAME its TARGET, its own
    MQIA_INHIBIT_PUT.
    IBM, DEFINE QALIAS
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=queues-define-qalias-define-new-alias-queue):
    TARGET and the alias's own PUT and GET."""
    adapter.define_queue("APP.T")
    adapter.mqsc("DEFINE QALIAS(APP.A) TARGET(APP.T) PUT(DISABLED)")
    got = adapter.connect().inquire_object(
        "queue", "APP.A", [s.MQIA_Q_TYPE, s.MQCA_BASE_Q_NAME, s.MQIA_INHIBIT_PUT]
    )
    assert got == {
        s.MQIA_Q_TYPE: s.MQQT_ALIAS,
        s.MQCA_BASE_Q_NAME: "APP.T",
        s.MQIA_INHIBIT_PUT: s.MQQA_PUT_INHIBITED,
    }
