"""``dlqhandler run --backend ibmmq`` end to end through IBM's ibmmq package on the stand-in.

A 2,000-message backlog (retries, forwards with HEADER(NO), discards, ignores,
retries that run out and fall through, messages without an MQDLH) plus a
PUTAUT(CTX) forward, a message group and expired messages is worked by the real
command line through ``ibmmq.ibmmqc`` and the MQI stand-in; then the same with
faults injected at random MQI calls (2009 inside units of work, with
reconnections, and puts refused with MQRC_Q_FULL). Conservation is checked by
MsgId and payload hash on the embedded queue manager behind the stand-in.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.mq.message import Message
from dlqhandler.qmgr import EmbeddedQueueManager
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from tests.reliability.scenario import (
    DISCARDED,
    RULES,
    TARGETS,
    Backlog,
    load_backlog,
)
from tests.worker.helpers import DLQ, Ledger, browse, dead_letter, define, depth
from tests.worker.helpers import load as put_all

EXTRA_RULES = """\
DESTQ(CTX.*) ACTION(FWD) FWDQ(CTX.OUT) HEADER(NO) PUTAUT(CTX)
DESTQ(APP.GRP) ACTION(RETRY)
DESTQ(SHORT.*) ACTION(FWD) FWDQ(CATCH) HEADER(YES)
"""
BACKLOG = 2000
QUEUES = (*TARGETS, "CTX.OUT", "APP.GRP")


def _extras(qm: EmbeddedQueueManager, backlog: Backlog) -> list[Message]:
    """A PUTAUT(CTX) forward, a group of three and two messages that expire."""
    define(qm, "CTX.OUT", "APP.GRP")
    qm.admin().set_authrec("CTX.OUT", "app1", add=["PUT"])
    gid = b"GROUP IBMMQ RUN".ljust(24, b"\0")
    group = [
        dead_letter(
            f"member {n}",
            destq="APP.GRP",
            tag=f"GRP{n}",
            group_id=gid,
            msg_seq_number=n,
            msg_flags=MQMF_LAST_MSG_IN_GROUP if n == 3 else MQMF_MSG_IN_GROUP,
        )
        for n in (1, 2, 3)
    ]
    ctx = [dead_letter(f"context {n}", destq="CTX.Q", reason=2035, tag=f"CTX{n}") for n in range(3)]
    short = [
        dead_letter(f"short {n}", destq="SHORT.Q", reason=2085, expiry=5, tag=f"SHORT{n}")
        for n in range(2)
    ]
    extras = put_all(qm, [*group, *ctx, *short])
    for m in group:
        backlog.expected[m.md.msg_id] = "APP.GRP"
    for m in ctx:
        backlog.expected[m.md.msg_id] = "CTX.OUT"
    for m in short:
        backlog.expected[m.md.msg_id] = DISCARDED
    backlog.messages += extras
    return group


def _run(path: Path, events: list[dict[str, Any]] | None = None) -> int:
    """``dlqhandler run --backend ibmmq`` in-process with the scenario's table; its log
    events go to ``events``."""
    rules = path / "rules.rul"
    rules.write_text(RULES + EXTRA_RULES, encoding="utf-8")
    return _run_table(rules, events)


def _run_table(rules: Path, events: list[dict[str, Any]] | None = None) -> int:
    """``dlqhandler run --backend ibmmq`` in-process on DLQ at QM1 with the table ``rules``;
    its log events go to ``events``."""
    argv = ["run", "--rules", str(rules), "--no-watch", "--backend", "ibmmq"]
    with capture_logs() as logs:
        rc = main([*argv, "--status-queue", DEFAULT_STATUS_QUEUE, DLQ, "QM1"])
    if events is not None:
        events += logs
    return rc


def _check(
    book: Ledger, backlog: Backlog, refused: frozenset[bytes] | set[bytes] = frozenset()
) -> dict[str, int]:
    """Conservation (MsgId, payload hash), then every message at its own rule's place
    (``refused``: at its place or still on the DLQ)."""
    discarded = [k for k, v in backlog.expected.items() if v == DISCARDED]
    book.check(QUEUES, discarded=discarded)
    wrong = {
        k: (book.where(m), where)
        for m in backlog.messages
        if (where := backlog.expected[k := m.md.msg_id]) != DISCARDED
        and book.where(m) != where
        and not (k in refused and book.where(m) == DLQ)
    }
    assert not wrong, f"{len(wrong)} misplaced (found, expected): {list(wrong.items())[:5]}"
    return dict(Counter(backlog.expected.values()))


def _prepare(standin_world: dict[str, Any]) -> tuple[Backlog, list[Message], Ledger]:
    qm = standin_world["qm"]
    backlog = load_backlog(qm, BACKLOG)
    group = _extras(qm, backlog)
    define(qm, DEFAULT_STATUS_QUEUE)
    book = Ledger.of(qm, DLQ)
    standin_world["clock"].advance(1)  # the short-lived ones (0.5 s) are now expired
    return backlog, group, book


def test_run_through_ibmmq_places_every_message_by_its_rule(standin_world: dict[str, Any]) -> None:
    """The whole backlog through IBM's library: every message where its rule sends it,
    none lost or duplicated (MsgId + payload hash), context kept for PUTAUT(CTX), the
    group in order, expired messages gone; repeated until the retries run out."""
    backlog, group, book = _prepare(standin_world)
    assert _run(standin_world["path"]) == 0
    placed = _check(book, backlog)
    assert (placed["CTX.OUT"], placed["APP.GRP"]) == (3, 3)
    assert placed["CATCH"] > 0
    on_grp = browse(standin_world["qm"], "APP.GRP")
    assert [m.md.msg_seq_number for m in on_grp] == [1, 2, 3]
    assert {m.md.msg_id for m in on_grp} == {m.md.msg_id for m in group}
    assert {m.md.user_identifier for m in browse(standin_world["qm"], "CTX.OUT")} == {"app1"}
    assert depth(standin_world["qm"], DLQ) == backlog.count(DLQ)
    calls = standin_world["standin"].calls
    assert min(calls["MQGET"] - BACKLOG, calls["MQPUT1"], calls["MQCMIT"]) > 0


def test_run_through_ibmmq_with_faults_at_random_mqi_calls(standin_world: dict[str, Any]) -> None:
    """Faults at random MQI calls: 2009 inside units of work (MQGET, MQPUT1, MQCMIT:
    the connection breaks, the unit of work is backed out or, for MQCMIT, maybe
    committed; the run ends with the connection-broken exit code and is started again,
    as a service manager would), 2009 between units of work (the adapter reconnects,
    once through a failing MQCONNX) and puts refused with 2053. In the end every
    message is where its rule sends it: none lost, none duplicated."""
    backlog, _group, book = _prepare(standin_world)
    standin = standin_world["standin"]
    rng = random.Random(16)
    faults = standin.faults
    faults.fail("MQINQ", 2009)  # at start-up, between units of work: reconnect...
    faults.fail("MQCONNX", 2009, after=1)  # ...whose first MQCONNX fails too
    for verb, reason, times, within in (
        ("MQGET", 2009, 3, 400),
        ("MQPUT1", 2009, 2, 300),
        ("MQCMIT", 2009, 3, 8),
        ("MQPUT1", 2053, 3, 300),
    ):
        for _ in range(times):
            faults.fail(verb, reason, after=rng.randrange(within))
    codes: list[int] = []
    events: list[dict[str, Any]] = []
    while faults.pending() and len(codes) < 15:
        codes.append(_run(standin_world["path"], events))
    injected = list(faults.injected)
    faults.clear()
    codes.append(_run(standin_world["path"]))
    assert codes[-1] == 0, codes
    assert ExitCode.CONNECTION_ERROR in codes, codes
    assert {(f.verb, f.reason) for f in injected} == {
        ("MQINQ", 2009),
        ("MQCONNX", 2009),
        ("MQGET", 2009),
        ("MQPUT1", 2009),
        ("MQCMIT", 2009),
        ("MQPUT1", 2053),
    }
    names = {e["event"] for e in events}
    assert {"mq_reconnected", "mq_connection_broken"} <= names
    # A forward refused with 2053 used up its one attempt (RETRY defaults to 1): it
    # stays on the DLQ, as runmqdlq leaves it.
    refused = {
        bytes.fromhex(e["msgid"])
        for e in events
        if e["event"] == "put_failed" and e.get("reason_code") == 2053
    }
    assert refused
    _check(book, backlog, refused=refused)


def test_run_through_ibmmq_keeps_message_properties(standin_world: dict[str, Any]) -> None:
    """Through IBM's library, as runmqdlq does it (a get into a message handle, the
    queue's PROPCTL(COMPAT) putting them there, a put with MQPMO.OriginalMsgHandle and
    MQACTP_FORWARD): forwarded with and without the MQDLH and retried, each message
    reaches its target with the same properties (name, type, value) on the queue manager
    behind the stand-in."""
    from dlqhandler.mq.properties import Property, PropertyType

    qm = standin_world["qm"]
    define(qm, "RETRY.OK", "TARGET.YES", "TARGET.NO", DEFAULT_STATUS_QUEUE)
    props = (
        Property("mcd.Msd", PropertyType.STRING, "jms_text"),
        Property("jms.Cid", PropertyType.STRING, "ID:1"),
        Property("Items", PropertyType.INT32, 7),
        Property("Weight", PropertyType.FLOAT64, 2.5),
        Property("Checksum", PropertyType.BYTE_STRING, b"\x00\xff"),
        Property("Coupon", PropertyType.NULL, None),
    )
    messages = put_all(
        qm,
        [
            dead_letter("retry", destq="RETRY.OK", tag="P1", properties=props),
            dead_letter("whole", destq="FWD.YES", tag="P2", properties=props[:3]),
            dead_letter("stripped", destq="FWD.NO", tag="P3", properties=props[3:]),
            dead_letter("none", destq="FWD.NO", tag="P4"),
        ],
    )
    book = Ledger.of(qm, DLQ)
    rules = standin_world["path"] / "props.rul"
    rules.write_text(
        "RETRYINT(0) WAIT(NO)\nDESTQ(RETRY.OK) ACTION(RETRY)\n"
        "DESTQ(FWD.YES) ACTION(FWD) FWDQ(TARGET.YES) HEADER(YES)\n"
        "DESTQ(FWD.NO) ACTION(FWD) FWDQ(TARGET.NO) HEADER(NO)\n",
        encoding="utf-8",
    )
    rc = _run_table(rules)
    assert rc == 0
    book.check(["RETRY.OK", "TARGET.YES", "TARGET.NO"])  # (properties compared too)
    assert [book.where(m) for m in messages] == ["RETRY.OK", "TARGET.YES", "TARGET.NO", "TARGET.NO"]
    assert browse(qm, "RETRY.OK")[0].properties == props
    assert [m.properties for m in browse(qm, "TARGET.NO")] == [props[3:], ()]


def test_properties_set_through_ibms_library_survive_a_forward(
    standin_world: dict[str, Any],
) -> None:
    """Dead letters put through IBM's ``ibmmq`` package with properties set on an
    ``ibmmq.MessageHandle`` (MQSETMP of every IBM type) and MQPMO.NewMsgHandle: after
    ``dlqhandler run --backend ibmmq`` forwards them (HEADER(YES) and HEADER(NO)), each
    target message has the same properties, name, type and value, read back both on
    the embedded queue manager and through IBM's library (MQGET into a handle, MQINQMP);
    the unchanged forward passed the got handle on (MQPMO.OriginalMsgHandle) without
    setting a property again (no MQSETMP beyond the test's own)."""
    import ibmmq

    from dlqhandler.mq.properties import Property, PropertyType
    from dlqhandler.qmgr.ibmmq.mapping import md_to_ibmmq

    t, c, qm, standin = PropertyType, ibmmq.CMQC, standin_world["qm"], standin_world["standin"]
    define(qm, "TARGET.YES", "TARGET.NO", DEFAULT_STATUS_QUEUE)
    expected = (
        Property("Color", t.STRING, "rouge é"),
        Property("Items", t.INT32, -7),
        Property("Small", t.INT8, 5),
        Property("Short", t.INT16, 300),
        Property("Big", t.INT64, 2**40),
        Property("Ratio", t.FLOAT32, 0.25),
        Property("Weight", t.FLOAT64, 1e-300),
        Property("Urgent", t.BOOLEAN, True),
        Property("Checksum", t.BYTE_STRING, b"\x00\xff"),
        Property("Coupon", t.NULL, None),
        Property("jms.Cid", t.STRING, "ID:42"),
        Property("Note", t.STRING, "n" * 3000),
    )
    app = ibmmq.QueueManager(None)
    app.connect_with_options("QM1")
    dlq = ibmmq.Queue(app, DLQ, c.MQOO_OUTPUT | c.MQOO_SET_ALL_CONTEXT)
    sent = []
    for tag, destq in (("IBM1", "FWD.YES"), ("IBM2", "FWD.NO")):
        handle = ibmmq.MessageHandle(app)
        for p in expected:
            length = (
                len(p.value)
                if isinstance(p.value, bytes)
                else len(p.value.encode())
                if isinstance(p.value, str)
                else 0
            )
            handle.properties.set(p.name, p.value, property_type=int(p.type), value_length=length)
        msg = dead_letter(f"payload {tag}", destq=destq, tag=tag)
        pmo = ibmmq.PMO(
            Version=c.MQPMO_VERSION_3, Options=c.MQPMO_NO_SYNCPOINT | c.MQPMO_SET_ALL_CONTEXT
        )
        pmo.NewMsgHandle = handle.get_handle()
        dlq.put(msg.body, md_to_ibmmq(ibmmq, msg.md), pmo)
        handle.dlt()
        sent.append(msg)
    dlq.close()
    setmp_by_the_test = standin.calls["MQSETMP"]
    rules = standin_world["path"] / "props.rul"
    rules.write_text(
        "WAIT(NO)\nDESTQ(FWD.YES) ACTION(FWD) FWDQ(TARGET.YES) HEADER(YES)\n"
        "DESTQ(FWD.NO) ACTION(FWD) FWDQ(TARGET.NO) HEADER(NO)\n",
        encoding="utf-8",
    )
    rc = _run_table(rules)
    assert rc == 0
    assert standin.calls["MQSETMP"] == setmp_by_the_test
    for queue in ("TARGET.YES", "TARGET.NO"):
        [got] = browse(qm, queue)
        assert {p.name: (p.type, p.value) for p in got.properties} == {
            p.name: (p.type, p.value) for p in expected
        }, queue
        assert len(got.properties) == len(expected)
        into = ibmmq.MessageHandle(app)
        gmo = ibmmq.GMO(
            Version=c.MQGMO_VERSION_4, Options=c.MQGMO_NO_SYNCPOINT | c.MQGMO_PROPERTIES_IN_HANDLE
        )
        gmo.MsgHandle = into.get_handle()
        ibmmq.Queue(app, queue, c.MQOO_INPUT_AS_Q_DEF).get(None, ibmmq.MD(), gmo)
        assert into.properties.get("Color") == "rouge é"
        assert into.properties.get("Big") == 2**40
        assert into.properties.get("Note", max_value_length=4000) == "n" * 3000
        assert into.properties.get("Checksum") == b"\x00\xff"
        into.dlt()
    assert depth(qm, DLQ) == 0
    app.disconnect()
