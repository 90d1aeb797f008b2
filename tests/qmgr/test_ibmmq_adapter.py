"""The IBM MQ adapter's MQI call sequence and option flags, against a recorder.

Here :mod:`tests.qmgr.ibmmq_fake` stands in for the ``ibmmq`` module itself,
records every call with its flags and returns scripted results: the exact call
sequence and option flags, and failure orders that are awkward to produce any
other way. The adapter through IBM's real package, on the MQI stand-in, is
tested in ``test_ibmmq_package.py``, ``test_ibmmq_run.py``, ``test_ibmmq_drain.py``
and the contract suite.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import GetOptions, PutOptions, Queue, QueueManager
from dlqhandler.qmgr.ibmmq.adapter import IBMMQQueueManager, connect
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings, ibmmq_settings_from_env
from dlqhandler.qmgr.ibmmq.mapping import md_from_ibmmq, md_to_ibmmq
from tests.qmgr.ibmmq_fake import CMQC, FakeMQ, flag_names

SECRET = "s3cr3t-Pa55w0rd!"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeMQ:
    """A recorder installed as the ``ibmmq`` module for one test."""
    recorder = FakeMQ()
    monkeypatch.setitem(sys.modules, "ibmmq", recorder.module)
    return recorder


@pytest.fixture
def sleeps() -> list[float]:
    """The backoff delays the adapter asked for (it never really sleeps here)."""
    return []


def make(sleeps: list[float], **settings: Any) -> IBMMQQueueManager:
    return IBMMQQueueManager(IBMMQSettings(qmgr="QM1", **settings), sleep=sleeps.append)


def dead_letter(body: bytes = b"payload", **md: Any) -> Message:
    fields = {
        "format": "MQDEAD",
        "msg_id": b"M1".ljust(24, b"\0"),
        "correl_id": b"C1".ljust(24, b"\0"),
        "user_identifier": "app1",
        "put_appl_name": "orders",
        "put_date": "20240102",
        "put_time": "03040506",
        "persistence": 1,
        **md,
    }
    return Message(MQMD(**fields), body)


def gmo(call: Any) -> set[str]:
    return flag_names(call.detail["options"], "MQGMO_")


def pmo(call: Any) -> set[str]:
    return flag_names(call.detail["pmo"]["Options"], "MQPMO_")


def cno(call: Any) -> set[str]:
    return flag_names(call.detail["cno"]["Options"], "MQCNO_")


# -- connecting --------------------------------------------------------------------------------
def test_bindings_connection_uses_local_binding_and_no_channel(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """transport=bindings: MQCONNX with MQCNO_LOCAL_BINDING, no MQCD, no MQCSP."""
    make(sleeps, transport="bindings")
    (call,) = fake.calls
    assert (call.verb, call.target) == ("MQCONNX", "QM1")
    assert cno(call) == {
        "MQCNO_LOCAL_BINDING",
        "MQCNO_HANDLE_SHARE_BLOCK",
        "MQCNO_RECONNECT_DISABLED",
    }
    assert set(call.detail) == {"cno"}


def test_auto_transport_leaves_the_binding_to_the_mq_library(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """The default: MQCNO_STANDARD_BINDING (neither local nor client forced)."""
    make(sleeps)
    assert cno(fake.calls[0]) == {"MQCNO_HANDLE_SHARE_BLOCK", "MQCNO_RECONNECT_DISABLED"}


def test_client_connection_from_mqserver_builds_the_channel(fake: FakeMQ) -> None:
    """MQSERVER=CHANNEL/TCP/host(port): MQCNO_CLIENT_BINDING and an MQCD (CLNTCONN, TCP)."""
    settings = ibmmq_settings_from_env("QM1", {"MQSERVER": "DEV.APP.SVRCONN/TCP/mq1(1414)"})
    connect(settings=settings)
    call = fake.calls[0]
    assert "MQCNO_CLIENT_BINDING" in cno(call)
    cd = call.detail["cd"]
    assert (cd["ChannelName"], cd["ConnectionName"]) == (b"DEV.APP.SVRCONN", b"mq1(1414)")
    assert (cd["ChannelType"], cd["TransportType"]) == (6, 2)
    assert cd["SSLCipherSpec"] == b""


def test_client_connection_through_a_ccdt_leaves_the_channel_to_the_client(fake: FakeMQ) -> None:
    """MQCHLLIB/MQCHLTAB: client binding with no MQCD (the MQ client reads the CCDT)."""
    env = {"MQCHLLIB": "/var/mqm/ccdt", "MQCHLTAB": "AMQCLCHL.TAB"}
    connect("QM1", settings=ibmmq_settings_from_env("QM1", env))
    call = fake.calls[0]
    assert "MQCNO_CLIENT_BINDING" in cno(call)
    assert "cd" not in call.detail


def test_explicit_conn_name_and_channel_win_over_mqserver(fake: FakeMQ) -> None:
    """DLQHANDLER_MQ_CONN_NAME + _CHANNEL make the MQCD even when MQSERVER is set."""
    env = {
        "MQSERVER": "OTHER/TCP/elsewhere(1)",
        "DLQHANDLER_MQ_CONN_NAME": "a(1414),b(1414)",
        "DLQHANDLER_MQ_CHANNEL": "DLQ.SVRCONN",
    }
    connect(settings=ibmmq_settings_from_env("QM1", env))
    cd = fake.calls[0].detail["cd"]
    assert (cd["ChannelName"], cd["ConnectionName"]) == (b"DLQ.SVRCONN", b"a(1414),b(1414)")


def test_tls_cipher_spec_and_key_repository(fake: FakeMQ) -> None:
    """The CipherSpec goes in MQCD.SSLCipherSpec; key repository and label in the MQSCO."""
    env = {
        "DLQHANDLER_MQ_CONN_NAME": "mq1(1414)",
        "DLQHANDLER_MQ_CHANNEL": "TLS.SVRCONN",
        "DLQHANDLER_MQ_CIPHER_SPEC": "ANY_TLS13_OR_HIGHER",
        "DLQHANDLER_MQ_KEY_REPOSITORY": "/etc/dlqhandler/tls/key",
        "DLQHANDLER_MQ_CERT_LABEL": "dlqhandler",
    }
    connect(settings=ibmmq_settings_from_env("QM1", env))
    call = fake.calls[0]
    assert call.detail["cd"]["SSLCipherSpec"] == b"ANY_TLS13_OR_HIGHER"
    assert call.detail["sco"]["KeyRepository"] == b"/etc/dlqhandler/tls/key"
    assert call.detail["sco"]["CertificateLabel"] == b"dlqhandler"


def test_credentials_from_the_environment_go_in_the_mqcsp(fake: FakeMQ) -> None:
    """DLQHANDLER_MQ_USER/_PASSWORD: MQCSP with MQCSP_AUTH_USER_ID_AND_PWD."""
    env = {
        "DLQHANDLER_MQ_USER": "dlqsvc",
        "DLQHANDLER_MQ_PASSWORD": SECRET,
        "MQSERVER": "DEV.APP.SVRCONN/TCP/mq1(1414)",
    }
    connect(settings=ibmmq_settings_from_env("QM1", env))
    csp = fake.calls[0].detail["csp"]
    assert csp["AuthenticationType"] == CMQC.MQCSP_AUTH_USER_ID_AND_PWD
    assert (csp["CSPUserId"], csp["CSPPassword"]) == (b"dlqsvc", SECRET.encode())


def test_password_file_gives_its_first_line(fake: FakeMQ, tmp_path: Path) -> None:
    """DLQHANDLER_MQ_PASSWORD_FILE: the first line (no newline) is the password."""
    secret_file = tmp_path / "mq.password"
    secret_file.write_text(SECRET + "\n", encoding="utf-8")
    secret_file.chmod(0o600)
    env = {"DLQHANDLER_MQ_USER": "dlqsvc", "DLQHANDLER_MQ_PASSWORD_FILE": str(secret_file)}
    with capture_logs() as logs:
        connect(settings=ibmmq_settings_from_env("QM1", env))
    assert fake.calls[0].detail["csp"]["CSPPassword"] == SECRET.encode()
    assert not [e for e in logs if e["event"] == "mq_password_file_not_private"]


def test_password_file_readable_by_others_is_warned_about(fake: FakeMQ, tmp_path: Path) -> None:
    """A group/world-readable password file still works but logs a warning (no content)."""
    secret_file = tmp_path / "mq.password"
    secret_file.write_text(SECRET, encoding="utf-8")
    secret_file.chmod(0o644)
    env = {"DLQHANDLER_MQ_USER": "dlqsvc", "DLQHANDLER_MQ_PASSWORD_FILE": str(secret_file)}
    with capture_logs() as logs:
        ibmmq_settings_from_env("QM1", env)
    warned = [e for e in logs if e["event"] == "mq_password_file_not_private"]
    assert len(warned) == 1
    assert SECRET not in repr(logs)


def test_password_never_appears_in_logs_errors_or_other_arguments(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """The password is only ever in MQCSP.CSPPassword: not in logs, reprs or error text."""
    env = {
        "DLQHANDLER_MQ_USER": "dlqsvc",
        "DLQHANDLER_MQ_PASSWORD": SECRET,
        "DLQHANDLER_MQ_CONN_NAME": "mq1(1414)",
        "DLQHANDLER_MQ_CHANNEL": "DEV.APP.SVRCONN",
    }
    settings = ibmmq_settings_from_env("QM1", env)
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings.model_dump())
    fake.fail("MQCONNX", 2035)
    with capture_logs() as logs, pytest.raises(MQIError) as exc:
        IBMMQQueueManager(settings, sleep=sleeps.append)
    assert exc.value.reason == 2035
    texts = [str(exc.value), repr(exc.value), exc.value.detail, repr(logs)]
    texts += [str(e) for e in (exc.value.__cause__, exc.value.__context__) if e is not None]
    assert not [t for t in texts if SECRET in t]
    with capture_logs() as logs:
        qm = IBMMQQueueManager(settings, sleep=sleeps.append)
        qm.disconnect()
    assert SECRET not in repr(logs)
    for call in fake.calls:
        detail = {k: v for k, v in call.detail.items() if k != "csp"}
        assert SECRET not in repr(detail)
        assert SECRET not in call.target
        if "csp" in call.detail:
            others = {k: v for k, v in call.detail["csp"].items() if k != "CSPPassword"}
            assert SECRET not in repr(others)
    assert SECRET not in " ".join(sys.argv)


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        (
            {
                "DLQHANDLER_MQ_USER": "u",
                "DLQHANDLER_MQ_PASSWORD": SECRET,
                "DLQHANDLER_MQ_PASSWORD_FILE": "/nonexistent",
            },
            "not both",
        ),
        ({"DLQHANDLER_MQ_PASSWORD": SECRET}, "needs a user"),
        ({"DLQHANDLER_MQ_USER": "u"}, "needs DLQHANDLER_MQ_PASSWORD"),
        (
            {"DLQHANDLER_MQ_USER": "u", "DLQHANDLER_MQ_PASSWORD_FILE": "/nonexistent/pw"},
            "cannot read",
        ),
        ({"MQSERVER": "JUSTACHANNEL"}, "CHANNEL/TCP/host(port)"),
        ({"MQSERVER": "CH/LU62/x"}, "not supported"),
        ({"DLQHANDLER_MQ_CONN_NAME": "h(1)"}, "go together"),
        ({"MQCHLLIB": "/var/mqm", "DLQHANDLER_MQ_CIPHER_SPEC": "X"}, "channel definition"),
        ({"DLQHANDLER_MQ_CIPHER_SPEC": "X"}, "needs a client channel"),
        (
            {
                "DLQHANDLER_MQ_TRANSPORT": "bindings",
                "DLQHANDLER_MQ_CONN_NAME": "h(1)",
                "DLQHANDLER_MQ_CHANNEL": "C",
            },
            "takes no conn_name",
        ),
        ({"DLQHANDLER_MQ_RECONNECT_ATTEMPTS": "-1"}, "reconnect_attempts"),
    ],
)
def test_inconsistent_settings_are_config_errors(env: dict[str, str], problem: str) -> None:
    """Every contradictory or malformed setting is a ConfigError naming it (never the password)."""
    with pytest.raises(ConfigError) as exc:
        ibmmq_settings_from_env("QM1", env)
    assert problem in str(exc.value)
    assert SECRET not in str(exc.value)


def test_missing_ibmmq_package_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ibmmq (or its C client) connecting says what to install."""
    monkeypatch.setitem(sys.modules, "ibmmq", None)
    with pytest.raises(ConfigError, match=r"dlqhandler\[ibmmq\]"):
        connect("QM1", settings=IBMMQSettings(qmgr="QM1"))


# -- opening and getting ---------------------------------------------------------------------
def test_open_options_follow_runmqdlq(fake: FakeMQ, sleeps: list[float]) -> None:
    """Input handles: INPUT_AS_Q_DEF + BROWSE + SAVE_ALL_CONTEXT + FAIL_IF_QUIESCING (+OUTPUT)."""
    qm = make(sleeps)
    qm.open(DLQ)
    qm.open("APP.OUT", input=False, browse=False, output=True)
    qm.open("APP.PEEK", input=False)
    opens = fake.of("MQOPEN")
    assert flag_names(opens[0].detail["options"], "MQOO_") == {
        "MQOO_INPUT_AS_Q_DEF",
        "MQOO_BROWSE",
        "MQOO_SAVE_ALL_CONTEXT",
        "MQOO_FAIL_IF_QUIESCING",
    }
    assert flag_names(opens[1].detail["options"], "MQOO_") == {
        "MQOO_OUTPUT",
        "MQOO_FAIL_IF_QUIESCING",
    }
    assert flag_names(opens[2].detail["options"], "MQOO_") == {
        "MQOO_BROWSE",
        "MQOO_FAIL_IF_QUIESCING",
    }


def test_browse_with_lock_then_get_under_cursor_under_syncpoint(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """runmqdlq's per-message flow: locked browse, destructive get under the cursor, MQCMIT."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    fake.queue_message(DLQ, msg.md, msg.body)
    browsed = dlq.get(GetOptions(browse="first", lock=True, syncpoint=False, wait_ms=5000))
    got = dlq.get(GetOptions(under_cursor=True, syncpoint=True))
    qm.commit()
    assert fake.verbs() == [
        "MQCONNX",
        "MQOPEN",
        "MQCRTMH",
        "MQGET",
        "MQINQMP",
        "MQCRTMH",
        "MQGET",
        "MQINQMP",
        "MQCMIT",
    ]  # (MQINQMP: the handle's properties)
    browse, take = fake.of("MQGET")
    # MQGMO_PROPERTIES_AS_Q_DEF (0) with a handle: the queue's PROPCTL decides.
    assert gmo(browse) == {
        "MQGMO_BROWSE_FIRST",
        "MQGMO_LOCK",
        "MQGMO_NO_SYNCPOINT",
        "MQGMO_WAIT",
        "MQGMO_FAIL_IF_QUIESCING",
    }
    assert browse.detail["wait"] == 5000
    assert gmo(take) == {"MQGMO_MSG_UNDER_CURSOR", "MQGMO_SYNCPOINT", "MQGMO_FAIL_IF_QUIESCING"}
    assert take.detail["match"] == CMQC.MQMO_NONE
    assert browse.detail["msg_handle"] != take.detail["msg_handle"] != 0
    assert browsed.md.msg_id == got.md.msg_id == msg.md.msg_id
    assert got.body == msg.body


@pytest.mark.parametrize(
    ("options", "flags", "wait", "match"),
    [
        (GetOptions(syncpoint=False), {"MQGMO_NO_SYNCPOINT"}, 0, set()),
        (GetOptions(wait_ms=250), {"MQGMO_SYNCPOINT", "MQGMO_WAIT"}, 250, set()),
        (GetOptions(wait_ms=-1), {"MQGMO_SYNCPOINT", "MQGMO_WAIT"}, -1, set()),
        (
            GetOptions(browse="next", syncpoint=True),
            {"MQGMO_BROWSE_NEXT", "MQGMO_NO_SYNCPOINT"},
            0,
            set(),
        ),
        (
            GetOptions(msg_id=b"M1", correl_id=b"C1"),
            {"MQGMO_SYNCPOINT"},
            0,
            {"MQMO_MATCH_MSG_ID", "MQMO_MATCH_CORREL_ID"},
        ),
        (
            GetOptions(browse="first", group_id=b"G1", logical_order=True, all_msgs_available=True),
            {
                "MQGMO_BROWSE_FIRST",
                "MQGMO_NO_SYNCPOINT",
                "MQGMO_LOGICAL_ORDER",
                "MQGMO_ALL_MSGS_AVAILABLE",
            },
            0,
            {"MQMO_MATCH_GROUP_ID"},
        ),
    ],
)
def test_get_options_map_to_gmo_flags(
    fake: FakeMQ,
    sleeps: list[float],
    options: GetOptions,
    flags: set[str],
    wait: int,
    match: set[str],
) -> None:
    """Each GetOptions field becomes its MQGMO/MQMO flag; browses never join a UOW."""
    qm = make(sleeps)
    q = qm.open("APP.IN")
    msg = dead_letter()
    fake.queue_message("APP.IN", msg.md, msg.body)
    q.get(options)
    (call,) = fake.of("MQGET")
    assert gmo(call) == flags | {"MQGMO_FAIL_IF_QUIESCING"}  # (PROPERTIES_AS_Q_DEF is 0)
    assert call.detail["wait"] == wait
    assert flag_names(call.detail["match"], "MQMO_") == match
    if options.msg_id:
        assert call.detail["md"]["MsgId"] == b"M1".ljust(24, b"\0")
    if options.group_id:
        assert call.detail["md"]["GroupId"] == b"G1".ljust(24, b"\0")


def test_nothing_to_get_is_mqrc_no_msg_available(fake: FakeMQ, sleeps: list[float]) -> None:
    """MQMIError 2033 becomes our MQIError 2033 with its symbolic name."""
    q = make(sleeps).open(DLQ)
    with pytest.raises(MQIError) as exc:
        q.get(GetOptions(syncpoint=False))
    assert (exc.value.reason, exc.value.reason_name) == (2033, "MQRC_NO_MSG_AVAILABLE")


def test_unlock_is_mqgmo_unlock_and_nothing_locked_is_fine(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """unlock(): MQGET with MQGMO_UNLOCK alone and no buffer; MQRC_NO_MSG_LOCKED is ignored."""
    q = make(sleeps).open(DLQ)
    q.unlock()
    fake.fail("MQGET", 2209)
    q.unlock()
    first, second = fake.of("MQGET")
    assert gmo(first) == gmo(second) == {"MQGMO_UNLOCK"}
    assert first.detail["length"] == 0


def test_truncated_message_is_got_again_with_its_exact_length(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """MQRC_TRUNCATED_MSG_FAILED: retry with the reported length, matching that message;
    the handle's buffer stays big enough for the next get."""
    qm = make(sleeps, buffer_size=16)
    q = qm.open(DLQ)
    big = dead_letter(b"x" * 100)
    fake.queue_message(DLQ, big.md, big.body)
    fake.queue_message(DLQ, big.md, big.body)
    got = q.get(GetOptions(syncpoint=True))
    assert got.body == big.body
    first, second = fake.of("MQGET")
    assert (first.detail["length"], second.detail["length"]) == (16, 100)
    assert first.detail["match"] == CMQC.MQMO_NONE
    assert flag_names(second.detail["match"], "MQMO_") == {
        "MQMO_MATCH_MSG_ID",
        "MQMO_MATCH_CORREL_ID",
    }
    assert second.detail["md"]["MsgId"] == big.md.msg_id
    assert first.detail["options"] == second.detail["options"]
    q.get(GetOptions(syncpoint=True))
    assert fake.of("MQGET")[2].detail["length"] == 100


def test_truncated_get_under_cursor_repeats_the_same_options(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """Under the cursor (and for browses) the retry is the same call with a bigger buffer."""
    q = make(sleeps, buffer_size=8).open(DLQ)
    big = dead_letter(b"y" * 40)
    fake.queue_message(DLQ, big.md, big.body)
    q.get(GetOptions(under_cursor=True))
    first, second = fake.of("MQGET")
    assert (first.detail["options"], first.detail["match"]) == (
        second.detail["options"],
        second.detail["match"],
    )
    assert second.detail["md"]["MsgId"] == b""
    assert second.detail["length"] == 40


# -- putting ------------------------------------------------------------------------------------
def test_put1_after_the_get_passes_all_context_from_the_dlq_handle(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """Get then MQPUT1 (runmqdlq's order): SYNCPOINT + PASS_ALL_CONTEXT, Context = the DLQ
    handle, and the get's message handle forwarded (OriginalMsgHandle, MQACTP_FORWARD)."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    fake.handle_properties = [("Color", "red", 3)]  # (a message without any: no handle)
    got = dlq.get(GetOptions(syncpoint=True))
    retried = got.with_md(got.md.replace(format="MQSTR"))
    qm.put1("APP.IN", retried, PutOptions(syncpoint=True, context="pass_all"), qmgr="QM2")
    get, put = fake.of("MQGET")[0], fake.of("MQPUT1")[0]
    assert pmo(put) == {"MQPMO_SYNCPOINT", "MQPMO_PASS_ALL_CONTEXT", "MQPMO_FAIL_IF_QUIESCING"}
    assert put.detail["pmo"]["Context"] == dlq.hobj == get.detail["hobj"]
    assert put.detail["pmo"]["OriginalMsgHandle"] == get.detail["msg_handle"]
    assert put.detail["pmo"]["Action"] == CMQC.MQACTP_FORWARD
    assert (put.detail["od"]["ObjectName"], put.detail["od"]["ObjectQMgrName"]) == (
        b"APP.IN",
        b"QM2",
    )
    assert put.detail["md"]["Format"] == b"MQSTR   "
    assert put.detail["md"]["MsgId"] == msg.md.msg_id
    assert put.detail["body"] == msg.body


def test_put1_after_a_browse_sets_context_from_the_descriptor(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """A browse saves no context in MQ, so a pass_all put of a browsed message is
    SET_ALL_CONTEXT from its MQMD (still byte for byte) with its properties forwarded."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    fake.handle_properties = [("Color", "red", 3)]  # (a message without any: no handle)
    browsed = dlq.get(GetOptions(browse="first", lock=True))
    qm.put1("APP.IN", browsed, PutOptions(syncpoint=True))
    browse, put = fake.of("MQGET")[0], fake.of("MQPUT1")[0]
    assert pmo(put) == {"MQPMO_SYNCPOINT", "MQPMO_SET_ALL_CONTEXT", "MQPMO_FAIL_IF_QUIESCING"}
    assert put.detail["pmo"]["Context"] == 0
    assert put.detail["pmo"]["OriginalMsgHandle"] == browse.detail["msg_handle"]
    assert put.detail["md"]["UserIdentifier"] == b"app1".ljust(12)
    assert put.detail["md"]["PutDate"] == b"20240102"


def test_pass_all_of_a_changed_context_is_set_all(fake: FakeMQ, sleeps: list[float]) -> None:
    """If the MQMD's context is not what MQ saved (changed by the caller), MQ's saved
    context would be wrong: the adapter sets the MQMD's instead."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    got = dlq.get(GetOptions(syncpoint=True))
    qm.put1("APP.IN", got.with_md(got.md.replace(user_identifier="other")), PutOptions())
    assert "MQPMO_SET_ALL_CONTEXT" in pmo(fake.of("MQPUT1")[0])


def test_putaut_ctx_puts_with_the_alternate_user(fake: FakeMQ, sleeps: list[float]) -> None:
    """PUTAUT(CTX): MQPMO_ALTERNATE_USER_AUTHORITY and MQOD.AlternateUserId = the user."""
    qm = make(sleeps)
    msg = dead_letter()
    qm.put1("APP.IN", msg, PutOptions(syncpoint=True, alternate_user="app1"))
    (put,) = fake.of("MQPUT1")
    assert "MQPMO_ALTERNATE_USER_AUTHORITY" in pmo(put)
    assert put.detail["od"]["AlternateUserId"] == b"app1"


def test_put_option_flags(fake: FakeMQ, sleeps: list[float]) -> None:
    """set_all, default context, no syncpoint and new_msg_id map to their MQPMO flags."""
    qm = make(sleeps)
    msg = dead_letter()
    qm.put1("A", msg, PutOptions(syncpoint=False, context="set_all"))
    qm.put1("A", msg, PutOptions(syncpoint=False, context="default", new_msg_id=True))
    first, second = fake.of("MQPUT1")
    assert pmo(first) == {"MQPMO_NO_SYNCPOINT", "MQPMO_SET_ALL_CONTEXT", "MQPMO_FAIL_IF_QUIESCING"}
    assert pmo(second) == {
        "MQPMO_NO_SYNCPOINT",
        "MQPMO_DEFAULT_CONTEXT",
        "MQPMO_NEW_MSG_ID",
        "MQPMO_FAIL_IF_QUIESCING",
    }


def test_put_returns_the_descriptor_as_put(fake: FakeMQ, sleeps: list[float]) -> None:
    """The MQMD the put returns carries the MsgId the queue manager generated."""
    qm = make(sleeps)
    put = qm.put1("A", Message(MQMD(format="MQSTR"), b"x"), PutOptions(context="default"))
    assert put.msg_id.startswith(b"AMQ QM1")
    assert put.user_identifier == "mqm"


def test_handle_put_uses_mqput_for_default_context_and_mqput1_otherwise(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """Queue.put: MQPUT on the handle for default context; context or alternate-user puts
    go through MQPUT1 (the handle was not opened with context options); 2039 without
    MQOO_OUTPUT."""
    qm = make(sleeps)
    out = qm.open("APP.OUT", input=False, browse=False, output=True)
    out.put(dead_letter(), PutOptions(syncpoint=False, context="default"))
    out.put(dead_letter(), PutOptions(syncpoint=False, context="set_all"))
    assert [c.verb for c in fake.calls if c.verb.startswith("MQPUT")] == ["MQPUT", "MQPUT1"]
    assert fake.of("MQPUT")[0].detail["hobj"] == out.hobj
    with pytest.raises(MQIError) as exc:
        qm.open("APP.IN").put(dead_letter())
    assert exc.value.reason == 2039


# -- units of work and disconnecting ---------------------------------------------------------------
def test_disconnect_backs_out_before_mqdisc(fake: FakeMQ, sleeps: list[float]) -> None:
    """disconnect(): MQBACK, MQCLOSE of every handle, MQDISC; later calls are 2018, a get
    on a handle of the connection too (the connection is checked first, as the embedded
    queue manager does: tests/qmgr/contract/test_failed_calls.py)."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    dlq.get(GetOptions(syncpoint=True))
    qm.inquire_queue(DLQ)
    qm.disconnect()
    qm.disconnect()
    assert fake.verbs()[-5:] == ["MQINQ", "MQBACK", "MQCLOSE", "MQCLOSE", "MQDISC"]
    with pytest.raises(MQIError) as exc:
        qm.commit()
    assert exc.value.reason == 2018
    with pytest.raises(MQIError) as exc:
        dlq.get()
    assert exc.value.reason == 2018


def test_commit_and_backout_are_mqcmit_and_mqback(fake: FakeMQ, sleeps: list[float]) -> None:
    """commit() is MQCMIT and backout() is MQBACK, on the connection."""
    qm = make(sleeps)
    qm.commit()
    qm.backout()
    assert fake.verbs()[1:] == ["MQCMIT", "MQBACK"]


def test_close_is_mqclose_once(fake: FakeMQ, sleeps: list[float]) -> None:
    """Closing a handle twice issues one MQCLOSE; the closed handle is 2019."""
    q = make(sleeps).open(DLQ)
    q.close()
    q.close()
    assert fake.verbs().count("MQCLOSE") == 1
    with pytest.raises(MQIError) as exc:
        q.get()
    assert exc.value.reason == 2019


# -- reconnecting ----------------------------------------------------------------------------------
def test_broken_connection_between_units_of_work_reconnects_with_backoff(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """2009 outside a UOW: MQCONNX again (first at once, then 0.5 s, 1 s...), reopen the
    handles, repeat the browse."""
    qm = make(sleeps, reconnect_delay=0.5)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    fake.fail("MQGET", 2009)
    fake.fail("MQCONNX", 2059, times=2)
    with capture_logs() as logs:
        browsed = dlq.get(GetOptions(browse="first", lock=True))
    assert browsed.md.msg_id == msg.md.msg_id
    assert sleeps == [0.5, 1.0]
    assert fake.verbs()[2:] == [
        "MQCRTMH",
        "MQGET",
        "MQDISC",
        "MQCONNX",
        "MQCONNX",
        "MQCONNX",
        "MQOPEN",
        "MQCRTMH",
        "MQGET",
        "MQINQMP",
    ]
    old, new = fake.of("MQGET")
    assert new.detail["hobj"] == dlq.hobj != old.detail["hobj"]
    assert fake.of("MQOPEN")[1].detail["options"] == fake.of("MQOPEN")[0].detail["options"]
    assert gmo(new) == gmo(old)
    events = [e["event"] for e in logs]
    assert events.count("mq_reconnect_attempt") == 3
    assert "mq_connection_broken" in events
    assert "mq_reconnected" in events


def test_broken_connection_inside_a_unit_of_work_raises(fake: FakeMQ, sleeps: list[float]) -> None:
    """2009 mid-UOW: raise 2009 at once (no reconnect, no repeat); commit then says 2003
    MQRC_BACKED_OUT; the next call reconnects."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    dlq.get(GetOptions(syncpoint=True))
    fake.fail("MQPUT1", 2009)
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.IN", msg, PutOptions(syncpoint=True))
    assert exc.value.reason == 2009
    assert "backed the unit of work out" in exc.value.detail
    assert fake.verbs().count("MQPUT1") == 1
    assert fake.verbs().count("MQCONNX") == 1
    with pytest.raises(MQIError) as exc:
        qm.commit()
    assert exc.value.reason == 2003
    assert fake.verbs().count("MQCMIT") == 0
    qm.inquire_queue(DLQ)
    assert fake.verbs().count("MQCONNX") == 2
    assert sleeps == []


def test_backout_after_a_break_acknowledges_it(fake: FakeMQ, sleeps: list[float]) -> None:
    """After a mid-UOW break, backout() succeeds without an MQBACK (the queue manager
    already backed out) and the next unit of work commits normally after reconnecting."""
    qm = make(sleeps)
    dlq = qm.open(DLQ)
    msg = dead_letter()
    fake.queue_message(DLQ, msg.md, msg.body)
    dlq.get(GetOptions(syncpoint=True))
    fake.fail("MQPUT1", 2009)
    with pytest.raises(MQIError):
        qm.put1("APP.IN", msg, PutOptions(syncpoint=True))
    qm.backout()
    assert "MQBACK" not in fake.verbs()
    qm.put1("APP.IN", msg, PutOptions(syncpoint=True))
    qm.commit()
    assert fake.verbs()[-3:] == ["MQOPEN", "MQPUT1", "MQCMIT"]


def test_a_put_outside_syncpoint_is_not_repeated(fake: FakeMQ, sleeps: list[float]) -> None:
    """It may have happened: reconnect, then raise 2009 saying it was not repeated."""
    qm = make(sleeps)
    fake.fail("MQPUT1", 2009)
    with pytest.raises(MQIError) as exc:
        qm.put1("APP.IN", dead_letter(), PutOptions(syncpoint=False))
    assert exc.value.reason == 2009
    assert "not repeated" in exc.value.detail
    assert fake.verbs() == ["MQCONNX", "MQPUT1", "MQDISC", "MQCONNX"]


def test_reconnect_gives_up_after_the_configured_attempts(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """Bounded: N MQCONNX tries with doubling delays capped at the maximum, then 2009."""
    qm = make(sleeps, reconnect_attempts=4, reconnect_delay=1.0, reconnect_max_delay=1.5)
    fake.fail("MQINQ", 2009)
    fake.fail("MQCONNX", 2538, times=4)
    with pytest.raises(MQIError) as exc:
        qm.inquire()
    assert exc.value.reason == 2009
    assert "after 4 attempts" in exc.value.detail
    assert "MQRC_HOST_NOT_AVAILABLE" in exc.value.detail
    assert sleeps == [1.0, 1.5, 1.5]
    assert fake.verbs().count("MQCONNX") == 5


def test_a_permanent_connect_failure_stops_reconnecting(fake: FakeMQ, sleeps: list[float]) -> None:
    """MQRC_NOT_AUTHORIZED on a reconnect is raised at once: retrying cannot help."""
    qm = make(sleeps)
    fake.fail("MQINQ", 2009)
    fake.fail("MQCONNX", 2035)
    with pytest.raises(MQIError) as exc:
        qm.inquire()
    assert exc.value.reason == 2035
    assert fake.verbs().count("MQCONNX") == 2


def test_zero_reconnect_attempts_means_fail_fast(fake: FakeMQ, sleeps: list[float]) -> None:
    """reconnect_attempts=0: a broken connection is reported, never retried."""
    qm = make(sleeps, reconnect_attempts=0)
    fake.fail("MQINQ", 2009)
    with pytest.raises(MQIError) as exc:
        qm.inquire()
    assert exc.value.reason == 2009
    assert fake.verbs().count("MQCONNX") == 1


# -- descriptors and inquiries ---------------------------------------------------------------------
FULL_MD = MQMD(
    version=2,
    report=0x0700,
    msg_type=2,
    expiry=36000,
    feedback=291,
    encoding=273,
    coded_char_set_id=500,
    format="MQDEAD",
    priority=7,
    persistence=1,
    msg_id=bytes(range(24)),
    correl_id=bytes(range(100, 124)),
    backout_count=3,
    reply_to_q="REPLY.Q",
    reply_to_q_mgr="QM9",
    user_identifier="origuser",
    accounting_token=b"\x16acct".ljust(32, b"\xff"),
    appl_identity_data="identity data",
    put_appl_type=11,
    put_appl_name="C:\\apps\\orders.exe",
    put_date="20200229",
    put_time="23595999",
    appl_origin_data="ORIG",
    group_id=bytes(range(50, 74)),
    msg_seq_number=4,
    offset=8192,
    msg_flags=0x18,
    original_length=65536,
)


def test_md_mapping_round_trips_every_field(fake: FakeMQ) -> None:
    """All 29 MQMD fields (StrucId aside) survive our MQMD -> ibmmq.MD (v2) -> MQMD; text
    goes blank-padded to its full length, binary fields exactly."""
    out = md_to_ibmmq(fake.module, FULL_MD)
    assert out.Version == 2
    assert out.Format == b"MQDEAD  "
    assert out.ReplyToQ == b"REPLY.Q".ljust(48)
    assert out.UserIdentifier == b"origuser    "
    assert out.AccountingToken == FULL_MD.accounting_token
    assert (out.MsgSeqNumber, out.Offset, out.MsgFlags, out.OriginalLength) == (4, 8192, 24, 65536)
    assert md_from_ibmmq(out) == FULL_MD
    assert len(FULL_MD.as_dict()) == 28  # + StrucId = the 29 fields of an MQMD v2


def test_md_from_a_get_is_the_full_descriptor(fake: FakeMQ, sleeps: list[float]) -> None:
    """What a get returns is the message's MQMD, field for field, and its data."""
    q = make(sleeps).open(DLQ)
    fake.queue_message(DLQ, FULL_MD, b"\x00\x01data")
    got = q.get(GetOptions(syncpoint=False))
    assert got.md == FULL_MD
    assert got.body == b"\x00\x01data"
    assert got.dlh is None


def test_md_text_that_cannot_be_sent_is_mqrc_md_error(fake: FakeMQ) -> None:
    """Text outside ISO 8859-1 or longer than its field is MQRC_MD_ERROR (2026)."""
    for md in (MQMD(reply_to_q="Q\u20ac"), MQMD(user_identifier="x" * 13)):
        with pytest.raises(MQIError) as exc:
            md_to_ibmmq(fake.module, md)
        assert exc.value.reason == 2026


def test_inquire_reads_name_dead_letter_queue_and_ccsid(fake: FakeMQ, sleeps: list[float]) -> None:
    """inquire(): MQINQ of MQCA_Q_MGR_NAME, MQCA_DEAD_LETTER_Q_NAME, MQIA_CODED_CHAR_SET_ID."""
    qm = IBMMQQueueManager(IBMMQSettings(), sleep=sleeps.append)
    info = qm.inquire()
    assert (info.name, info.dead_letter_q_name, info.ccsid) == ("QM1", DLQ, 1208)
    assert fake.of("MQINQ")[0].detail["selectors"] == [2015, 2006, 2]
    assert qm.name == "QM1"


def test_inquire_queue_depth_limits_and_inhibits(fake: FakeMQ, sleeps: list[float]) -> None:
    """inquire_queue(): one MQOPEN(INQUIRE) kept for repeated MQINQ of depth and limits."""
    fake.queue_attrs[DLQ] = {3: 42, 15: 5000, 13: 4194304, 10: 1, 9: 0}
    qm = make(sleeps)
    info = qm.inquire_queue(DLQ)
    qm.inquire_queue(DLQ)
    assert (info.curdepth, info.maxdepth, info.maxmsgl) == (42, 5000, 4194304)
    assert (info.put_enabled, info.get_enabled) == (False, True)
    assert info.attributes["PUT"] == "DISABLED"
    assert fake.verbs().count("MQOPEN") == 1
    assert flag_names(fake.of("MQOPEN")[0].detail["options"], "MQOO_") == {
        "MQOO_INQUIRE",
        "MQOO_FAIL_IF_QUIESCING",
    }
    assert fake.of("MQINQ")[0].detail["selectors"] == [3, 15, 13, 10, 9]


def test_mqi_errors_become_mqierror_with_reason_and_name(fake: FakeMQ, sleeps: list[float]) -> None:
    """An MQMIError keeps its reason as our MQIError (2085 for an unknown queue)."""
    qm = make(sleeps)
    fake.fail("MQOPEN", 2085)
    with pytest.raises(MQIError) as exc:
        qm.open("NO.SUCH.QUEUE")
    assert (exc.value.reason, exc.value.reason_name) == (2085, "MQRC_UNKNOWN_OBJECT_NAME")
    assert "NO.SUCH.QUEUE" in exc.value.detail


def test_adapter_implements_the_port(fake: FakeMQ, sleeps: list[float]) -> None:
    """The adapter's objects satisfy the QueueManager and Queue protocols."""
    qm = make(sleeps)
    assert isinstance(qm, QueueManager)
    assert isinstance(qm.open(DLQ), Queue)
    with qm:
        pass
    assert fake.verbs()[-1] == "MQDISC"


def test_settings_from_env_default_to_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without an explicit mapping the settings come from os.environ (name included)."""
    monkeypatch.setenv("DLQHANDLER_IBMMQ_QMGR", "QMENV")
    monkeypatch.setenv("DLQHANDLER_MQ_TRANSPORT", "BINDINGS")
    monkeypatch.setenv("DLQHANDLER_MQ_RECONNECT_ATTEMPTS", "9")
    s = ibmmq_settings_from_env()
    assert (s.qmgr, s.transport, s.reconnect_attempts) == ("QMENV", "bindings", 9)
    assert os.environ["DLQHANDLER_IBMMQ_QMGR"] == "QMENV"


def test_a_reused_message_handle_is_emptied_before_its_next_get(
    fake: FakeMQ, sleeps: list[float]
) -> None:
    """A pooled message handle that held a message's properties is emptied (MQDLTMP of
    each) before another get uses it, so a get that leaves a handle as it was (a
    PROPCTL(FORCE) queue) never returns another message's properties; the properties
    read into the message are typed from IBM's value and length (a 4-byte integer
    probed as a string: "TRUE" makes it a boolean)."""
    from dlqhandler.mq.properties import Property, PropertyType

    qm = make(sleeps, property_handles=1)
    dlq = qm.open(DLQ)
    for n in (1, 2, 3):
        m = dead_letter(msg_id=f"M{n}".encode().ljust(24, b"\0"))
        fake.queue_message(DLQ, m.md, m.body)
    fake.handle_properties = [
        ("Color", "red", 3),
        ("Items", 1, 4),
        ("Urgent", True, 4),
        ("Big", 2**40, 8),
    ]
    first = dlq.get(GetOptions(syncpoint=False))
    assert first.properties == (
        Property("Color", PropertyType.STRING, "red"),
        Property("Items", PropertyType.INT32, 1),
        Property("Urgent", PropertyType.BOOLEAN, True),
        Property("Big", PropertyType.INT64, 2**40),
    )
    dlq.get(GetOptions(syncpoint=False))  # the first handle leaves the pool's memory
    assert fake.of("MQDLTMP") == []
    dlq.get(GetOptions(syncpoint=False))  # ... and is emptied before this get uses it
    assert [c.target for c in fake.of("MQDLTMP")] == ["Color", "Items", "Urgent", "Big"]
    assert fake.verbs().count("MQCRTMH") == 2
