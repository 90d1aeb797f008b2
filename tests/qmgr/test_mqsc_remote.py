"""runmqsc's QREMOTE commands and the queue manager's DEFXMITQ on the embedded queue manager,
with IBM's attribute names and messages.

IBM, DEFINE QREMOTE (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085730_.html):
"Use DEFINE QREMOTE to define a new local definition of a remote queue, a queue manager
alias, or a reply-to queue alias"; "Synonym: DEF QR". RemoteQName
(https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=queues-remoteqname-mqchar48): "No validation
is performed on the value specified for this attribute when the queue definition is created
or modified".
"""

from __future__ import annotations

import io

from dlqhandler.qmgr import EmbeddedQueueManager
from dlqhandler.qmgr.embedded.runmqsc import MQSCResult, run_mqsc


def mqsc(qm: EmbeddedQueueManager, source: str) -> tuple[MQSCResult, str]:
    out = io.StringIO()
    result = run_mqsc(source, qm.admin(), out, qmgr_name=qm.name)
    return result, out.getvalue()


def test_define_alter_display_delete_qremote(qm: EmbeddedQueueManager) -> None:
    """DEFINE QREMOTE (and its synonym QR) keeps RNAME, RQMNAME, XMITQ, PUT, DEFPRTY,
    DEFPSIST and DESCR without resolving them (the transmission queue need not exist yet);
    ALTER changes one; DISPLAY QREMOTE and DISPLAY QUEUE TYPE(QREMOTE) show them with
    TYPE(QREMOTE); LIKE copies; DELETE removes, AMQ8147E when it is not there.

    IBM, DEFINE QREMOTE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085730_.html): "Use
    DEFINE QREMOTE to define a new local definition of a remote queue, a queue manager
    alias, or a reply-to queue alias"; "Synonym: DEF QR"."""
    result, out = mqsc(
        qm,
        "DEFINE QREMOTE(CENTRAL) RNAME(APP.IN) RQMNAME(QM2) XMITQ(NOT.YET) DESCR('to qm2')\n"
        "DEF QR(HUB) RQMNAME(QM3) DEFPRTY(5) DEFPSIST(YES)\n"
        "ALTER QREMOTE(CENTRAL) PUT(DISABLED)\n"
        "DEFINE QREMOTE(COPY) LIKE(CENTRAL)\n",
    )
    assert result.ok, out
    assert out.count("AMQ8006I: IBM MQ queue created.") == 3
    assert "AMQ8008I: IBM MQ queue changed." in out
    _, shown = mqsc(qm, "DISPLAY QREMOTE(C*)")
    for item in (
        "QUEUE(CENTRAL)",
        "TYPE(QREMOTE)",
        "RNAME(APP.IN)",
        "RQMNAME(QM2)",
        "XMITQ(NOT.YET)",
        "PUT(DISABLED)",
        "DESCR(to qm2)",
        "QUEUE(COPY)",
    ):
        assert item in shown, item
    _, one = mqsc(qm, "DISPLAY QUEUE(HUB) TYPE(QREMOTE) DEFPRTY DEFPSIST")
    assert "DEFPRTY(5)" in one
    assert "DEFPSIST(YES)" in one
    assert "RNAME" not in one
    result, out = mqsc(qm, "DELETE QREMOTE(COPY)\nDELETE QREMOTE(COPY)")
    assert "AMQ8007I: IBM MQ queue deleted." in out
    assert "AMQ8147E: IBM MQ object COPY not found." in out
    assert [f.syntax for f in result.failures] == [False]


def test_what_is_not_kept_is_refused_and_names_are_shared(qm: EmbeddedQueueManager) -> None:
    """IBM's remote-queue attributes this queue manager does not keep (CLUSTER, DEFBIND,
    SCOPE) are syntax errors naming the keyword, never accepted and ignored; a QREMOTE
    cannot take the name of a local or alias queue, nor they its name (AMQ8150E).

    IBM, DEFINE QREMOTE
    (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q085730_.html): "Use
    DEFINE QREMOTE to define a new local definition of a remote queue, a queue manager
    alias, or a reply-to queue alias"; "Synonym: DEF QR"."""
    result, out = mqsc(
        qm,
        "DEFINE QREMOTE(R) RNAME(A) RQMNAME(QM2) CLUSTER(C)\n"
        "DEFINE QREMOTE(R) DEFBIND(OPEN)\n"
        "DEFINE QREMOTE(R) SCOPE(QMGR)\n",
    )
    assert result.syntax_errors == 3
    for keyword in ("CLUSTER", "DEFBIND", "SCOPE"):
        assert f"({keyword} is not an attribute of QREMOTE)" in out
    result, out = mqsc(
        qm,
        "DEFINE QLOCAL(L)\nDEFINE QALIAS(A) TARGET(L)\nDEFINE QREMOTE(R) RQMNAME(QM2)\n"
        "DEFINE QREMOTE(L) RQMNAME(QM2)\nDEFINE QREMOTE(A) RQMNAME(QM2)\n"
        "DEFINE QLOCAL(R)\nDEFINE QALIAS(R) TARGET(L)\n",
    )
    assert result.failed == 4
    assert out.count("AMQ8150E: IBM MQ object already exists.") == 4


def test_defxmitq_is_altered_and_displayed(qm: EmbeddedQueueManager) -> None:
    """ALTER QMGR DEFXMITQ sets the default transmission queue (blank by default) and
    DISPLAY QMGR shows it.
    IBM, Local queues (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=queues-local): "The
    transmission queue named on the DEFXMITQ attribute of the local queue manager"."""
    _, before = mqsc(qm, "DISPLAY QMGR DEFXMITQ")
    assert "DEFXMITQ( )" in before
    result, out = mqsc(qm, "ALTER QMGR DEFXMITQ(TO.HUB)\nDISPLAY QMGR DEFXMITQ")
    assert result.ok, out
    assert "DEFXMITQ(TO.HUB)" in out
    assert qm.inquire().extra["DEFXMITQ"] == "TO.HUB"
