"""The IBM MQ adapter through IBM's own ``ibmmq`` package, on the MQI stand-in.

These run the unmodified compiled extension ``ibmmq.ibmmqc`` against the
stand-in ``libmqm_r.so`` (:mod:`tests.mqi`): what reaches the MQI structures
(MQCNO, MQCD, MQSCO, MQCSP) is read back from the caller's memory, and faults
are injected at the MQI, below IBM's library.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.machinery
import importlib.metadata
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from dlqhandler.errors import MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_MSG_IN_GROUP
from dlqhandler.qmgr import EmbeddedQueueManager, GetOptions, PutOptions, connect, create_qmgr
from dlqhandler.qmgr.ibmmq.adapter import IBMMQQueueManager
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings, ibmmq_settings_from_env
from dlqhandler.qmgr.port import browse_all
from tests.mqi.build import load
from tests.mqi.cmqc import CMQC
from tests.mqi.standin import StandIn
from tests.qmgr.conftest import FakeClock

SECRET = "s3cr3t-Pa55w0rd!"
PACKAGE = Path(__file__).resolve().parents[2] / "dlqhandler" / "qmgr" / "ibmmq"


@pytest.fixture
def standin(tmp_path: Path) -> Iterator[StandIn]:
    """The stand-in on a fresh QM1 (queue Q1 defined), with a fake clock."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    clock = FakeClock()
    s: StandIn = load()  # type: ignore[assignment]
    s.reset(home=home, clock=clock, passwords={"app": SECRET})
    admin = connect("QM1", home=home, clock=clock)
    admin.admin().define_queue("Q1", {"MAXDEPTH": 100})
    s.admin = admin  # type: ignore[attr-defined]
    yield s
    admin.disconnect()
    assert not s.errors, s.errors
    s.reset()


def admin(s: StandIn) -> EmbeddedQueueManager:
    return s.admin  # type: ignore[attr-defined,no-any-return]


def open_qm(**settings: Any) -> IBMMQQueueManager:
    return IBMMQQueueManager(IBMMQSettings(qmgr="QM1", reconnect_delay=0, **settings))


def text(body: str, **md: Any) -> Message:
    return Message(MQMD(format="MQSTR", **md), body.encode())


# -- the real package ------------------------------------------------------------------------
def test_ibmmqc_is_ibms_compiled_extension_from_the_wheel(standin: StandIn) -> None:
    """ibmmq.ibmmqc is the shared object the ibmmq wheel installed (its RECORD hash
    matches), loaded as a C extension and linked against libmqm_r.so; its MQI calls
    arrive in the stand-in."""
    import ibmmq

    ext = ibmmq.ibmmqc
    assert isinstance(ext.__loader__, importlib.machinery.ExtensionFileLoader)
    path = Path(ext.__file__)
    assert path.suffix == ".so"
    assert path.parent == Path(ibmmq.__file__).parent
    record = {str(f): f for f in importlib.metadata.files("ibmmq") or []}
    entry = record[f"ibmmq/{path.name}"]
    assert entry.hash is not None
    digest = base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=")
    assert digest.decode() == entry.hash.value
    needed = subprocess.run(
        ["readelf", "-d", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "[libmqm_r.so]" in needed
    assert ext.__version__ == importlib.metadata.version("ibmmq")
    before = standin.calls.get("MQCONNX", 0)
    open_qm().disconnect()
    assert standin.calls["MQCONNX"] == before + 1


def test_handle_does_not_import_the_adapter() -> None:
    """qmgr/ibmmq: the adapter imports the handle, mapping and config; none of them
    imports the adapter (no import cycle, not even under TYPE_CHECKING)."""
    for name in ("handle.py", "mapping.py", "config.py"):
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "dlqhandler.qmgr.ibmmq.adapter" not in imported, name


# -- connecting ------------------------------------------------------------------------------
def test_client_channel_tls_and_credentials_reach_the_mqi_structures_exactly(
    standin: StandIn,
) -> None:
    """conn name, channel, CipherSpec, key repository, certificate label, user and
    password arrive in MQCNO -> MQCD / MQSCO / MQCSP as configured; the password is in no
    log event."""
    env = {
        "DLQHANDLER_MQ_CONN_NAME": "mq1.example(1414),mq2.example(1415)",
        "DLQHANDLER_MQ_CHANNEL": "DLQ.SVRCONN",
        "DLQHANDLER_MQ_CIPHER_SPEC": "TLS_AES_256_GCM_SHA384",
        "DLQHANDLER_MQ_KEY_REPOSITORY": "/var/mqm/ssl/key",
        "DLQHANDLER_MQ_CERT_LABEL": "ibmwebspheremqdlq",
        "DLQHANDLER_MQ_USER": "app",
        "DLQHANDLER_MQ_PASSWORD": SECRET,
    }
    with capture_logs() as logs:
        qm = IBMMQQueueManager(ibmmq_settings_from_env("QM1", env))
        qm.inquire()
        qm.disconnect()
    (sent,) = standin.connects
    assert sent.qmgr == "QM1"
    assert sent.options & CMQC.MQCNO_CLIENT_BINDING
    assert sent.options & CMQC.MQCNO_RECONNECT_DISABLED
    assert sent.channel is not None
    assert {
        k: sent.channel[k]
        for k in ("ChannelName", "ConnectionName", "SSLCipherSpec", "ChannelType", "TransportType")
    } == {
        "ChannelName": "DLQ.SVRCONN",
        "ConnectionName": "mq1.example(1414),mq2.example(1415)",
        "SSLCipherSpec": "TLS_AES_256_GCM_SHA384",
        "ChannelType": 6,
        "TransportType": 2,
    }
    assert sent.channel["Version"] >= 7  # TLS fields exist only from MQCD version 7
    assert sent.sco == {
        "Version": 5,
        "KeyRepository": "/var/mqm/ssl/key",
        "CertificateLabel": "ibmwebspheremqdlq",
    }
    assert (sent.auth_type, sent.user, sent.password) == (
        CMQC.MQCSP_AUTH_USER_ID_AND_PWD,
        "app",
        SECRET,
    )
    assert SECRET not in repr(logs)
    assert SECRET not in repr(sent)


def test_bindings_connection_sends_no_channel_and_no_credentials(standin: StandIn) -> None:
    """transport=bindings: MQCNO_LOCAL_BINDING, no MQCD, no MQSCO, no user in the MQCSP."""
    open_qm(transport="bindings").disconnect()
    (sent,) = standin.connects
    assert sent.options & CMQC.MQCNO_LOCAL_BINDING
    assert (sent.channel, sent.sco, sent.user) == (None, None, None)


def test_a_wrong_password_is_mqrc_not_authorized_and_not_logged(standin: StandIn) -> None:
    """The queue manager refuses the MQCSP: MQCONNX 2035; the error names no password."""
    with capture_logs() as logs, pytest.raises(MQIError) as caught:
        open_qm(user="app", password="wrong-" + SECRET)
    assert caught.value.reason == 2035
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(logs)


# -- MQGET ------------------------------------------------------------------------------------
def test_a_message_longer_than_the_buffer_is_got_whole_after_2080(standin: StandIn) -> None:
    """MQRC_TRUNCATED_MSG_FAILED leaves the message on the queue with its length in
    DataLength; the adapter gets it again with a buffer that fits: data intact."""
    qm = open_qm(buffer_size=16)
    q = qm.open("Q1", output=True)
    body = bytes(range(256)) * 40
    q.put(Message(MQMD(), body), PutOptions(syncpoint=False, context="default"))
    got = q.get(GetOptions(syncpoint=True))
    qm.commit()
    assert got.body == body
    assert standin.calls["MQGET"] == 2  # 2080 with the length, then the whole message
    assert admin(standin).inquire_queue("Q1").curdepth == 0
    qm.disconnect()


@pytest.mark.parametrize("browse", [None, "first"])
def test_injected_truncation_is_retried_and_nothing_is_lost(
    standin: StandIn, browse: str | None
) -> None:
    """An MQGET that fails with 2080 (gets and browses alike) is repeated with a bigger
    buffer; the message arrives once."""
    qm = open_qm()
    qm.put1("Q1", text("payload"), PutOptions(syncpoint=False, context="default"))
    standin.faults.fail("MQGET", 2080)
    got = qm.open("Q1").get(GetOptions(browse=browse, syncpoint=False))  # type: ignore[arg-type]
    assert got.body == b"payload"
    assert [f.reason for f in standin.faults.injected] == [2080]
    assert admin(standin).inquire_queue("Q1").curdepth == (1 if browse else 0)
    qm.disconnect()


def test_a_no_msg_available_race_is_mqrc_2033(standin: StandIn) -> None:
    """2033 injected although a message is there (another getter won the race): MQIError
    2033; the message is still there for the next get."""
    qm = open_qm()
    qm.put1("Q1", text("x"), PutOptions(syncpoint=False, context="default"))
    q = qm.open("Q1")
    standin.faults.fail("MQGET", 2033)
    with pytest.raises(MQIError) as caught:
        q.get(GetOptions(syncpoint=False))
    assert caught.value.reason == 2033
    assert q.get(GetOptions(syncpoint=False)).body == b"x"
    qm.disconnect()


# -- MQPUT ------------------------------------------------------------------------------------
@pytest.mark.parametrize("reason", [2053, 2051, 2035])
def test_injected_put_failures_keep_their_reason(standin: StandIn, reason: int) -> None:
    """MQRC_Q_FULL, MQRC_PUT_INHIBITED, MQRC_NOT_AUTHORIZED from MQPUT1: MQIError with that
    reason; nothing was put."""
    qm = open_qm()
    standin.faults.fail("MQPUT1", reason)
    with pytest.raises(MQIError) as caught:
        qm.put1("Q1", text("x"), PutOptions(syncpoint=True))
    assert caught.value.reason == reason
    qm.commit()
    assert admin(standin).inquire_queue("Q1").curdepth == 0
    qm.disconnect()


def test_putaut_ctx_is_refused_when_the_alternate_user_may_not_put(standin: StandIn) -> None:
    """MQPMO_ALTERNATE_USER_AUTHORITY with an alternate user the authority records deny:
    MQRC_NOT_AUTHORIZED from the queue manager (not injected)."""
    admin(standin).admin().set_authrec("Q1", "mallory", remove=["PUT"])
    qm = open_qm()
    with pytest.raises(MQIError) as caught:
        qm.put1(
            "Q1",
            text("x", user_identifier="mallory"),
            PutOptions(syncpoint=False, alternate_user="mallory"),
        )
    assert caught.value.reason == 2035
    qm.disconnect()


# -- broken connections ------------------------------------------------------------------------
def test_connection_broken_mid_unit_of_work_backs_it_out(standin: StandIn) -> None:
    """2009 on the MQPUT1 after a get under syncpoint: MQIError 2009 at once; the queue
    manager backed the get out (the message is back, BackoutCount 1); commit says 2003;
    the next call reconnects."""
    qm = open_qm()
    qm.put1("Q1", text("m"), PutOptions(syncpoint=False, context="default"))
    q = qm.open("Q1")
    q.get(GetOptions(syncpoint=True))
    standin.faults.fail("MQPUT1", 2009)
    with pytest.raises(MQIError) as caught:
        qm.put1("Q1", text("copy"), PutOptions(syncpoint=True))
    assert caught.value.reason == 2009
    with pytest.raises(MQIError) as later:
        qm.commit()
    assert later.value.reason == 2003
    again = q.get(GetOptions(syncpoint=False))
    assert (again.body, again.md.backout_count) == (b"m", 1)
    assert len(standin.connects) == 2
    qm.disconnect()


def test_connection_broken_between_units_of_work_reconnects(standin: StandIn) -> None:
    """2009 on MQINQ outside a unit of work, then again on the first MQCONNX: the adapter
    connects anew (twice) and the inquiry succeeds."""
    qm = open_qm()
    standin.faults.fail("MQINQ", 2009)
    standin.faults.fail("MQCONNX", 2009)
    assert qm.inquire().name == "QM1"
    assert standin.calls["MQCONNX"] == 3  # the first, a failed one, the good one
    assert len(standin.connects) == 2  # a failed MQCONNX reached no queue manager
    qm.disconnect()
    assert standin.connections == 0


def test_after_a_reconnect_a_temporary_dynamic_queue_handle_is_2052(standin: StandIn) -> None:
    """A broken connection ends the temporary dynamic queue its handle created; after the
    adapter reconnects, that handle is not reopened by the gone name nor by its model's (no
    new queue appears): its put and get are MQRC_Q_DELETED (2052), and closing it works.
    A permanent dynamic queue's handle is reopened by the queue's name and keeps working.

    IBM, Dynamic and Model queues
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_8.0.0/com.ibm.mq.pro.doc/q003140_.htm):
    temporary dynamic queues "are deleted when the application that issued the MQOPEN call
    that created the queue closes the queue or terminates"; 2052
    (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041230_.html): "An Hobj queue
    handle specified on a call refers to a dynamic queue that has been deleted since the
    queue was opened"."""
    adm = admin(standin)
    adm.admin().define_model("TEMP.MODEL", {})
    adm.admin().define_model("PERM.MODEL", {"DEFTYPE": "PERMDYN"})
    qm = open_qm()
    temp = qm.open("TEMP.MODEL", output=True, dynamic_name="APP.TEMP.*")
    perm = qm.open("PERM.MODEL", output=True, dynamic_name="APP.PERM")
    temp.put(text("np", persistence=0), PutOptions(syncpoint=False, context="default"))
    assert [r.name for r in adm.admin().queues("APP.*")] == ["APP.PERM", temp.name]
    standin.faults.fail("MQINQ", 2009)
    assert qm.inquire().name == "QM1"
    assert len(standin.connects) == 2
    assert [r.name for r in adm.admin().queues("APP.*")] == ["APP.PERM"]
    for call in (
        lambda: temp.put(text("x", persistence=0), PutOptions(syncpoint=False)),
        lambda: temp.put(text("x", persistence=0), PutOptions(syncpoint=False, context="pass_all")),
        lambda: temp.get(GetOptions(syncpoint=False)),
    ):
        with pytest.raises(MQIError) as caught:
            call()
        assert caught.value.reason == 2052
    temp.close()
    perm.put(text("kept"), PutOptions(syncpoint=False))
    assert perm.get(GetOptions(syncpoint=False)).body == b"kept"
    assert [r.name for r in adm.admin().queues("APP.*")] == ["APP.PERM"]
    perm.close()
    qm.disconnect()


def test_a_put_that_ibm_answers_with_a_warning_is_a_put(standin: StandIn) -> None:
    """Through the port, a put without logical order right after a logical-order put that
    left a group unfinished is MQCC_WARNING 2241 at the MQI (the message is put): the
    adapter returns the MQMD as put (the MsgId the queue manager gave it) instead of an
    error, and the next puts are plain MQPUTs again; closing the handle, which IBM answers
    with the same warning (the handle is closed), is no error either.

    IBM, 2241 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q042740_.html): "On the
    MQPUT call, when the application does not specify MQPMO_LOGICAL_ORDER, but the previous
    MQPUT call for the queue handle did specify MQPMO_LOGICAL_ORDER. The completion code is
    MQCC_WARNING in this case"."""
    qm = open_qm()
    q = qm.open("Q1", input=False, browse=False, output=True)
    first = q.put(
        text("part", msg_flags=MQMF_MSG_IN_GROUP),
        PutOptions(syncpoint=False, context="default", logical_order=True),
    )
    aside = q.put(text("aside"), PutOptions(syncpoint=False, context="default"))
    assert aside.msg_id != bytes(24)
    assert aside.msg_id != first.msg_id
    again = q.put(text("again"), PutOptions(syncpoint=False, context="default"))
    assert again.msg_id not in (bytes(24), aside.msg_id)
    reader = admin(standin).open("Q1", input=False)
    got = [m.md.msg_id for m in browse_all(reader)]
    reader.close()
    assert got == [first.msg_id, aside.msg_id, again.msg_id]
    q.close()
    with pytest.raises(MQIError) as closed:
        q.put(text("late"), PutOptions(syncpoint=False, context="default"))
    assert closed.value.reason == 2019  # MQRC_HOBJ_ERROR: the handle is closed
    qm.disconnect()


def test_calls_the_product_never_makes_are_not_supported(standin: StandIn) -> None:
    """MQSTAT through IBM's package reaches the stand-in: MQRC_FUNCTION_NOT_SUPPORTED."""
    import ibmmq

    qmgr = ibmmq.QueueManager(None)
    qmgr.connect_with_options("QM1")
    with pytest.raises(ibmmq.MQMIError) as caught:
        qmgr.stat(ibmmq.CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert caught.value.reason == 2298
    qmgr.disconnect()
