"""Remote queues (QREMOTE), queue manager aliases and the default transmission queue
(DEFXMITQ): defined with IBM's MQSC attribute names, resolved on MQPUT1 and MQOPEN for
output to a transmission queue with an MQXQH naming the remote queue and queue manager.
Both back ends.

IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "when
you specify the name of an alias queue or a remote queue in your object descriptor (MQOD),
the call resolves the name either to a local queue or to a transmission queue"; "The name
that you supply in ObjectQMgrName is resolved before that in ObjectName"; "A Queue manager
alias is a remote queue definition without an RNAME field". XmitQName
(https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103620_.html): "If
XmitQName is blank, the local queue with a name that is the same as RemoteQMgrName is used
as the transmission queue. If there is no queue with the name RemoteQMgrName, the queue
identified by the DefXmitQName queue manager attribute is used."
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager
from dlqhandler.qmgr.embedded.xqh import MQXQH, decode_xqh
from tests.qmgr.contract.conftest import Adapter, text

NOW = PutOptions(syncpoint=False)
GET = GetOptions(syncpoint=False)


def _reason(call: object) -> int:
    with pytest.raises(MQIError) as exc:
        call()  # type: ignore[operator]
    return exc.value.reason


def _depths(qm: QueueManager, *queues: str) -> list[int]:
    return [qm.inquire_queue(q).curdepth for q in queues]


def _transmitted(qm: QueueManager, xmitq: str) -> list[tuple[str, str, bytes, MQXQH]]:
    """Every message on ``xmitq``, taken: (RemoteQName, RemoteQMgrName, data, header)."""
    q = qm.open(xmitq)
    out = []
    for _ in range(qm.inquire_queue(xmitq).curdepth):
        got = q.get(GET)
        assert got.md.format == "MQXMIT"
        header, data = decode_xqh(got.body)
        out.append((header.remote_q_name, header.remote_q_mgr_name, data, header))
    q.close()
    return out


def test_a_remote_queue_definition_puts_on_the_xmitq_named_like_rqmname(adapter: Adapter) -> None:
    """QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2), XMITQ blank: MQPUT1 and MQPUT through an
    output handle land on the transmission queue QM2 with an MQXQH naming APP.IN at QM2;
    the inner descriptor keeps the message's own fields (MsgId, CorrelId, Format, user).
    IBM, XmitQName (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103620_.html):
    "If XmitQName is blank, the local queue with a name that is the same as RemoteQMgrName
    is used as the transmission queue"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)")
    qm = adapter.connect()
    correl = b"corr".ljust(24, b"\0")
    put = qm.put1("CENTRAL", text("one", correl_id=correl), NOW)
    out = qm.open("CENTRAL", input=False, browse=False, output=True)
    out.put(text("two"), NOW)
    out.close()
    got = _transmitted(qm, "QM2")
    assert [(q, m, d) for q, m, d, _ in got] == [
        ("APP.IN", "QM2", b"one"),
        ("APP.IN", "QM2", b"two"),
    ]
    inner = got[0][3].md
    assert (inner.msg_id, inner.correl_id, inner.format) == (put.msg_id, correl, "MQSTR")
    assert inner.user_identifier == put.user_identifier


def test_xmitq_wins_and_defaults_are_the_definitions(adapter: Adapter) -> None:
    """XMITQ(TO.QM2) is used even when a queue named like RQMNAME exists; priority and
    persistence "as queue default" are the remote definition's DEFPRTY and DEFPSIST (the
    first definition in the path), not the transmission queue's.
    IBM, DefPriority (https://www.ibm.com/docs/zh/SSFKSJ_9.0.0/com.ibm.mq.ref.dev.doc/q103190_.html)
    and MQMD Priority (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097610_.html):
    "the default priority is taken from the value of this attribute in the first definition
    in the path", "A local definition of a remote queue"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.define_queue("TO.QM2", usage="XMITQ", defprty=1)
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(TO.QM2) DEFPRTY(7)")
    adapter.mqsc("ALTER QREMOTE(CENTRAL) DEFPSIST(YES)")
    qm = adapter.connect()
    qm.put1("CENTRAL", text("x", priority=-1, persistence=2), NOW)
    assert _depths(qm, "QM2", "TO.QM2") == [0, 1]
    ((_, _, _, header),) = _transmitted(qm, "TO.QM2")
    assert (header.md.priority, header.md.persistence) == (7, 1)


def test_a_queue_manager_alias_redirects_the_queue_manager_name(adapter: Adapter) -> None:
    """QREMOTE(HUB) RQMNAME(QM2) XMITQ(TO.QM2) with RNAME blank: a put to APP.IN at HUB goes
    on TO.QM2 naming APP.IN at QM2 (the header says QM2, not HUB). QREMOTE(OLD.NAME)
    RQMNAME(<this queue manager>): a put to APP.LOCAL at OLD.NAME lands on the local queue.
    IBM, Queue manager alias definitions
    (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=components-queue-manager-alias-definitions):
    "The queue manager changes the transmission header to say REALQM instead of YOURQM";
    "If the local queue manager is REALQM, it puts the messages to the queue THISQ"."""
    adapter.define_queue("TO.QM2", usage="XMITQ")
    adapter.define_queue("APP.LOCAL")
    adapter.mqsc("DEFINE QREMOTE(HUB) RQMNAME(QM2) XMITQ(TO.QM2)")
    adapter.mqsc(f"DEFINE QREMOTE(OLD.NAME) RQMNAME({adapter.qmgr_name})")
    qm = adapter.connect()
    qm.put1("APP.IN", text("via hub"), NOW, qmgr="HUB")
    qm.put1("APP.LOCAL", text("here"), NOW, qmgr="OLD.NAME")
    assert [(q, m, d) for q, m, d, _ in _transmitted(qm, "TO.QM2")] == [
        ("APP.IN", "QM2", b"via hub")
    ]
    assert qm.open("APP.LOCAL").get(GET).body == b"here"


def test_the_default_transmission_queue(adapter: Adapter) -> None:
    """With no queue named like the queue manager: a QREMOTE's put, and a put naming the
    queue manager outright, go on DEFXMITQ (its header naming the real destination);
    without DEFXMITQ both fail with MQRC_UNKNOWN_REMOTE_Q_MGR (2087) and nothing is put.
    MQINQ of the queue manager answers MQCA_DEF_XMIT_Q_NAME.
    IBM, Defining a transmission queue (https://www.ibm.com/docs/SSFKSJ_9.0.0/administer/q021220_.html):
    "The transmission queue named on the DEFXMITQ attribute of the local queue manager";
    Unknown Remote Queue Manager (https://ibm.com/docs/SSFKSJ_9.3.0/reference/q050110_.html):
    "there is no (transmission) queue defined with the name of RemoteQMgrName, and the
    DefXmitQName queue manager attribute is blank"."""
    adapter.define_queue("DEFAULT.XMITQ", usage="XMITQ")
    adapter.mqsc("DEFINE QREMOTE(FAR) RNAME(APP.IN) RQMNAME(QM9)")
    qm = adapter.connect()
    assert _reason(lambda: qm.put1("FAR", text("x"), NOW)) == 2087
    assert _reason(lambda: qm.put1("APP.IN", text("x"), NOW, qmgr="QM8")) == 2087
    assert _depths(qm, "DEFAULT.XMITQ") == [0]
    adapter.mqsc("ALTER QMGR DEFXMITQ(DEFAULT.XMITQ)")
    assert qm.inquire_object("qmgr", "", [s.MQCA_DEF_XMIT_Q_NAME]) == {
        s.MQCA_DEF_XMIT_Q_NAME: "DEFAULT.XMITQ"
    }
    qm.put1("FAR", text("one"), NOW)
    qm.put1("APP.OUT", text("two"), NOW, qmgr="QM8")
    assert [(q, m, d) for q, m, d, _ in _transmitted(qm, "DEFAULT.XMITQ")] == [
        ("APP.IN", "QM9", b"one"),
        ("APP.OUT", "QM8", b"two"),
    ]


def test_put_disabled_on_the_remote_definition_is_2051(adapter: Adapter) -> None:
    """ALTER QREMOTE PUT(DISABLED): MQPUT1 fails with MQRC_PUT_INHIBITED (2051), and so does
    MQPUT on a handle opened before the change; nothing reaches the transmission queue.
    IBM, 2051 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041220_.html): "MQPUT and
    MQPUT1 calls are currently inhibited for the queue, or for the queue to which this queue
    resolves"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)")
    qm = adapter.connect()
    out = qm.open("CENTRAL", input=False, browse=False, output=True)
    adapter.mqsc("ALTER QREMOTE(CENTRAL) PUT(DISABLED)")
    assert _reason(lambda: qm.put1("CENTRAL", text("x"), NOW)) == 2051
    assert _reason(lambda: out.put(text("x"), NOW)) == 2051
    assert _depths(qm, "QM2") == [0]
    adapter.mqsc("ALTER QREMOTE(CENTRAL) PUT(ENABLED)")
    out.put(text("x"), NOW)
    assert _depths(qm, "QM2") == [1]


def test_a_remote_queue_cannot_be_opened_for_input_or_browse(adapter: Adapter) -> None:
    """MQOPEN of a QREMOTE for input or browse fails with MQRC_OPTION_NOT_VALID_FOR_TYPE
    (2045); for output it works.
    IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "If a
    queue is opened for any type of input, browse, or set, it resolves to a local queue if
    there is one, and fails if there is not one"; 2045
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041160_.html): "An option that is
    unsupported for the queue type"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)")
    qm = adapter.connect()
    assert _reason(lambda: qm.open("CENTRAL")) == 2045
    assert _reason(lambda: qm.open("CENTRAL", input=False, browse=True)) == 2045
    qm.open("CENTRAL", input=False, browse=False, output=True).close()


@pytest.mark.parametrize(
    ("definitions", "reason"),
    [
        # XmitQName names no queue: MQRC_UNKNOWN_XMIT_Q
        (["DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2) XMITQ(NO.SUCH.Q)"], 2196),
        # XmitQName names a queue that is not a transmission queue: MQRC_XMIT_Q_USAGE_ERROR
        (["DEFINE QLOCAL(PLAIN)", "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2) XMITQ(PLAIN)"], 2092),
        # XmitQName names a queue that is not a local queue: MQRC_XMIT_Q_TYPE_ERROR
        (
            [
                "DEFINE QLOCAL(X) USAGE(XMITQ)",
                "DEFINE QALIAS(XA) TARGET(X)",
                "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2) XMITQ(XA)",
            ],
            2091,
        ),
        # DefXmitQName names no queue: MQRC_UNKNOWN_DEF_XMIT_Q
        (["ALTER QMGR DEFXMITQ(NO.SUCH.Q)", "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2)"], 2197),
        # DefXmitQName is not a local queue: MQRC_DEF_XMIT_Q_TYPE_ERROR
        (
            [
                "DEFINE QLOCAL(X) USAGE(XMITQ)",
                "DEFINE QALIAS(XA) TARGET(X)",
                "ALTER QMGR DEFXMITQ(XA)",
                "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2)",
            ],
            2198,
        ),
        # DefXmitQName is not a transmission queue: MQRC_DEF_XMIT_Q_USAGE_ERROR
        (
            [
                "DEFINE QLOCAL(PLAIN)",
                "ALTER QMGR DEFXMITQ(PLAIN)",
                "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2)",
            ],
            2199,
        ),
        # RemoteQName blank (a queue manager alias opened as a queue): MQRC_REMOTE_Q_NAME_ERROR
        (["DEFINE QLOCAL(QM2) USAGE(XMITQ)", "DEFINE QREMOTE(R) RQMNAME(QM2)"], 2184),
        # RemoteQMgrName blank: MQRC_UNKNOWN_REMOTE_Q_MGR, "even if the XmitQName is not blank"
        (["DEFINE QLOCAL(QM2) USAGE(XMITQ)", "DEFINE QREMOTE(R) RNAME(A) XMITQ(QM2)"], 2087),
    ],
)
def test_broken_definitions_fail_with_ibms_reason_and_put_nothing(
    adapter: Adapter, definitions: list[str], reason: int
) -> None:
    """Each way a remote definition cannot resolve fails MQPUT1 and MQOPEN for output with
    IBM's reason, and no queue gains a message.
    IBM: 2196 MQRC_UNKNOWN_XMIT_Q, 2092 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041530_.html)
    "XmitQName is not blank, but specifies a queue that does not have a Usage attribute of
    MQUS_TRANSMISSION"; 2091 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041520_.html)
    "XmitQName is not blank, but specifies a queue that is not a local queue"; 2198
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q042410_.html) "although there
    is a queue defined by the DefXmitQName queue manager attribute, it is not a local queue";
    2199 (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.tro.doc/q042420_.html) "the
    queue defined by the DefXmitQName queue manager attribute does not have a Usage attribute
    of MQUS_TRANSMISSION"; RemoteQName
    (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=queues-remoteqname-mqchar48) "If an
    application opens the local definition of a remote queue, when the open occurs RemoteQName
    must not be blank"; 2087 (https://ibm.com/docs/SSFKSJ_9.3.0/reference/q050110_.html)
    "RemoteQMgrName is either blank or is the name of the local queue manager. This error
    occurs even if the XmitQName is not blank"."""
    for command in definitions:
        adapter.mqsc(command)
    qm = adapter.connect()
    locals_ = [q for q in ("QM2", "PLAIN", "X") if _exists(qm, q)]
    assert _reason(lambda: qm.put1("R", text("x"), NOW)) == reason
    assert _reason(lambda: qm.open("R", input=False, browse=False, output=True)) == reason
    assert _depths(qm, *locals_) == [0] * len(locals_)


def _exists(qm: QueueManager, queue: str) -> bool:
    try:
        qm.inquire_queue(queue)
    except MQIError:
        return False
    return True


def test_mqinq_of_a_remote_definition_answers_its_own_attributes(adapter: Adapter) -> None:
    """MQINQ of a QREMOTE: MQIA_Q_TYPE is MQQT_REMOTE, MQCA_REMOTE_Q_NAME,
    MQCA_REMOTE_Q_MGR_NAME and MQCA_XMIT_Q_NAME are RNAME, RQMNAME and XMITQ, with its PUT,
    DEFPRTY and DEFPSIST; a queue manager alias answers a blank RemoteQName.
    IBM, XmitQName (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q103620_.html):
    "To determine the value of this attribute, use the MQCA_XMIT_Q_NAME selector with the
    MQINQ call"; RemoteQName (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=queues-remoteqname-mqchar48):
    "use the MQCA_REMOTE_Q_NAME selector"."""
    adapter.mqsc(
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(TO.QM2) DEFPRTY(6)"
        " DEFPSIST(YES) PUT(DISABLED) DESCR('to the centre')"
    )
    adapter.mqsc("DEFINE QREMOTE(HUB) RQMNAME(QM3)")
    qm = adapter.connect()
    wanted = [
        s.MQIA_Q_TYPE,
        s.MQCA_REMOTE_Q_NAME,
        s.MQCA_REMOTE_Q_MGR_NAME,
        s.MQCA_XMIT_Q_NAME,
        s.MQIA_INHIBIT_PUT,
        s.MQIA_DEF_PRIORITY,
        s.MQIA_DEF_PERSISTENCE,
        s.MQCA_Q_DESC,
    ]
    assert qm.inquire_object("queue", "CENTRAL", wanted) == {
        s.MQIA_Q_TYPE: s.MQQT_REMOTE,
        s.MQCA_REMOTE_Q_NAME: "APP.IN",
        s.MQCA_REMOTE_Q_MGR_NAME: "QM2",
        s.MQCA_XMIT_Q_NAME: "TO.QM2",
        s.MQIA_INHIBIT_PUT: s.MQQA_PUT_INHIBITED,
        s.MQIA_DEF_PRIORITY: 6,
        s.MQIA_DEF_PERSISTENCE: s.MQPER_PERSISTENT,
        s.MQCA_Q_DESC: "to the centre",
    }
    hub = qm.inquire_object("queue", "HUB", wanted[:4])
    assert hub == {
        s.MQIA_Q_TYPE: s.MQQT_REMOTE,
        s.MQCA_REMOTE_Q_NAME: "",
        s.MQCA_REMOTE_Q_MGR_NAME: "QM3",
        s.MQCA_XMIT_Q_NAME: "",
    }


def test_an_alias_of_a_remote_definition_puts_through_it(adapter: Adapter) -> None:
    """QALIAS(TO.CENTRAL) TARGET(CENTRAL), CENTRAL a QREMOTE: MQPUT1 and MQPUT through the
    alias land on the remote definition's transmission queue with its MQXQH; opening it for
    input is MQRC_OPTION_NOT_VALID_FOR_TYPE (2045); the alias's own PUT(DISABLED) is
    MQRC_PUT_INHIBITED (2051) with nothing put.
    IBM, 2001 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q040750_.html): the base
    may be "a local queue, a local definition of a remote queue, or a cluster queue";
    InhibitPut (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103260_.html):
    "put operations must be allowed for every definition in the path"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)")
    adapter.mqsc("DEFINE QALIAS(TO.CENTRAL) TARGET(CENTRAL)")
    qm = adapter.connect()
    qm.put1("TO.CENTRAL", text("one"), NOW)
    out = qm.open("TO.CENTRAL", input=False, browse=False, output=True)
    out.put(text("two"), NOW)
    assert _reason(lambda: qm.open("TO.CENTRAL")) == 2045  # (it resolves to no local queue)
    adapter.mqsc("ALTER QALIAS(TO.CENTRAL) PUT(DISABLED)")
    assert _reason(lambda: qm.put1("TO.CENTRAL", text("x"), NOW)) == 2051
    assert _reason(lambda: out.put(text("x"), NOW)) == 2051
    assert [(q, m, d) for q, m, d, _ in _transmitted(qm, "QM2")] == [
        ("APP.IN", "QM2", b"one"),
        ("APP.IN", "QM2", b"two"),
    ]


def test_a_put_inhibited_transmission_queue_is_2051(adapter: Adapter) -> None:
    """The transmission queue a remote definition resolves to is PUT(DISABLED): MQPUT1 of
    the definition, and of a queue at that queue manager, fail with MQRC_PUT_INHIBITED
    (2051) and nothing is put.
    IBM, InhibitPut (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103260_.html):
    "put operations must be allowed for every definition in the path (including any queue
    manager alias definitions) at the time of the put operation"."""
    adapter.define_queue("QM2", usage="XMITQ", put="DISABLED")
    adapter.mqsc("DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2)")
    qm = adapter.connect()
    assert _reason(lambda: qm.put1("CENTRAL", text("x"), NOW)) == 2051
    assert _reason(lambda: qm.put1("APP.IN", text("x"), NOW, qmgr="QM2")) == 2051
    assert _depths(qm, "QM2") == [0]


def test_a_queue_manager_alias_of_this_qmgr_keeps_its_inhibit_and_defaults(
    adapter: Adapter,
) -> None:
    """QREMOTE(OLD.NAME) RQMNAME(<this queue manager>) DEFPRTY(8): a put to APP.LOCAL at
    OLD.NAME lands on the local queue with priority 8 "as queue default" (the alias is the
    first definition in the path); ALTER QREMOTE(OLD.NAME) PUT(DISABLED) makes the put
    MQRC_PUT_INHIBITED (2051) and nothing is put.
    IBM, InhibitPut (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q103260_.html):
    "put operations must be allowed for every definition in the path (including any queue
    manager alias definitions)"; MQMD Priority
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097610_.html):
    the first definition in the path "can be ... A queue manager alias"."""
    adapter.define_queue("APP.LOCAL", defprty=2)
    adapter.mqsc(f"DEFINE QREMOTE(OLD.NAME) RQMNAME({adapter.qmgr_name}) DEFPRTY(8)")
    qm = adapter.connect()
    qm.put1("APP.LOCAL", text("x", priority=-1), NOW, qmgr="OLD.NAME")
    assert qm.open("APP.LOCAL").get(GET).md.priority == 8
    adapter.mqsc("ALTER QREMOTE(OLD.NAME) PUT(DISABLED)")
    assert _reason(lambda: qm.put1("APP.LOCAL", text("x"), NOW, qmgr="OLD.NAME")) == 2051
    assert _depths(qm, "APP.LOCAL") == [0]
    qm.put1("APP.LOCAL", text("direct"), NOW)
    assert _depths(qm, "APP.LOCAL") == [1]


def test_open_with_a_queue_manager_name_resolves_through_the_remote_path(adapter: Adapter) -> None:
    """``open(queue, output=True, qmgr="QM2")`` is MQOPEN with MQOD.ObjectQMgrName: the
    handle's puts (a plain one and one passing all context) land on the transmission queue
    QM2 with an MQXQH naming the queue at QM2, and nothing reaches the local queue of that
    name; the same open for input is MQRC_OPTION_NOT_VALID_FOR_TYPE (2045); this queue
    manager's own name opens the local queue.

    IBM, Name resolution (https://www.ibm.com/docs/SSFKSJ_9.4.0/develop/q025990_.html): "The
    name that you supply in ObjectQMgrName is resolved before that in ObjectName", "If a
    queue is opened for any type of input, browse, or set, it resolves to a local queue if
    there is one, and fails if there is not one"; 2045
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041160_.html): "An option that is
    unsupported for the queue type"."""
    adapter.define_queue("QM2", usage="XMITQ")
    adapter.define_queue("APP.IN")
    qm = adapter.connect()
    out = qm.open("APP.IN", input=False, browse=False, output=True, qmgr="QM2")
    out.put(text("one"), NOW)
    out.put(text("two"), PutOptions(syncpoint=False, context="pass_all"))
    out.close()
    assert _depths(qm, "APP.IN") == [0]
    got = _transmitted(qm, "QM2")
    assert [(q, m, d) for q, m, d, _ in got] == [
        ("APP.IN", "QM2", b"one"),
        ("APP.IN", "QM2", b"two"),
    ]
    assert _reason(lambda: qm.open("APP.IN", qmgr="QM2")) == 2045
    local = qm.open("APP.IN", input=False, browse=False, output=True, qmgr=adapter.qmgr_name)
    local.put(text("here"), NOW)
    assert _depths(qm, "APP.IN", "QM2") == [1, 0]
