"""Building dead letters, reading queues, and the conservation ledger.

Conservation: every message that was on the DLQ at the start is, at the end,
exactly once on the DLQ, or exactly once at one target, or deliberately
discarded; never twice, never lost. Checked by MsgId, by a hash of the
payload, and by what each action must do to the message:

* left on the DLQ: data and descriptor unchanged;
* FWD HEADER(YES): data byte-identical (MQDLH included), Format ``MQDEAD``;
* a message without an MQDLH moved (the drain's catch-all): byte-identical;
* RETRY / FWD HEADER(NO): the MQDLH stripped, the rest byte-identical, and
  Format, Encoding and CodedCharSetId restored from the MQDLH;
* always: identity and origin context passed (UserIdentifier, AccountingToken,
  ApplIdentityData, PutApplType/Name, PutDate/Time, ApplOriginData), MsgId and
  CorrelId kept, and a remaining Expiry no larger than the original's.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlqhandler.errors import DecodeError, MalformedMessageError, MQIError
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.mq.properties import ALL_PROPERTY_FOLDERS, Property, PropertyType
from dlqhandler.mq.rfh2 import decode_rfh2, properties_of
from dlqhandler.qmgr import GetOptions, PutOptions, QueueManager, connect, run_mqsc
from dlqhandler.qmgr.embedded.xqh import MQFMT_XMIT_Q_HEADER, decode_xqh

_MQMT_REPORT, _MQAT_QMGR = 4, 7

ROOT = Path(__file__).resolve().parents[2]
DLQHANDLER = Path(sys.executable).parent / "dlqhandler"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
STATUS = "DLQHANDLER.STATUS"
_ids = itertools.count(1)
CONTEXT = (
    "user_identifier",
    "accounting_token",
    "appl_identity_data",
    "put_appl_type",
    "put_appl_name",
    "put_date",
    "put_time",
    "appl_origin_data",
)


# IBM MQ connection settings a test must not inherit from the environment.
MQ_ENV = (
    "DLQHANDLER_IBMMQ_QMGR",
    "DLQHANDLER_MQ_TRANSPORT",
    "DLQHANDLER_MQ_CONN_NAME",
    "DLQHANDLER_MQ_CHANNEL",
    "DLQHANDLER_MQ_CIPHER_SPEC",
    "DLQHANDLER_MQ_USER",
    "DLQHANDLER_MQ_PASSWORD",
    "DLQHANDLER_MQ_PASSWORD_FILE",
    "MQSERVER",
    "MQCHLLIB",
    "MQCHLTAB",
    "DLQHANDLER_MQ_KEY_REPOSITORY",
    "DLQHANDLER_MQ_CERT_LABEL",
)


def mqsc(home: Path, text: str) -> None:
    """Run MQSC on the embedded QM1 under ``home`` (runmqsc's own); every command must
    succeed."""
    import io

    qm = connect("QM1", home=home)
    try:
        out = io.StringIO()
        assert run_mqsc(text, qm.admin(), out, qmgr_name="QM1").ok, out.getvalue()
    finally:
        qm.disconnect()


def msg_id(tag: str = "T") -> bytes:
    """A unique, recognisable 24-byte MsgId."""
    return f"TEST {tag:<10.10}{next(_ids):09d}".encode("ascii")


def dead_letter(
    payload: bytes | str = b"hello",
    *,
    reason: int = 2053,
    destq: str = "APP.Q",
    destqm: str = "QM1",
    user: str = "app1",
    reply_to_q: str = "",
    reply_to_q_mgr: str = "",
    expiry: int = -1,
    persistence: int = 1,
    msg_type: int = 8,
    fmt: str = "MQSTR",
    encoding: int = 546,
    ccsid: int = 1208,
    tag: str = "T",
    properties: tuple[Property, ...] = (),
    **md: Any,
) -> Message:
    """A message as a queue manager dead-letters it (MQDLH in front, Format MQDEAD),
    with its message properties."""
    data = payload.encode() if isinstance(payload, str) else payload
    original = MQMD(
        format=fmt,
        encoding=encoding,
        coded_char_set_id=ccsid,
        persistence=persistence,
        msg_type=msg_type,
        msg_id=msg_id(tag),
        correl_id=b"CORREL".ljust(24, b"\x00"),
        user_identifier=user,
        accounting_token=b"\x05acct1".ljust(32, b"\x00"),
        appl_identity_data="identity",
        put_appl_type=6,
        put_appl_name="OrderService",
        put_date="20241121",
        put_time="06000000",
        appl_origin_data="orig",
        reply_to_q=reply_to_q,
        reply_to_q_mgr=reply_to_q_mgr,
        expiry=expiry,
        **md,
    )
    return Message.dead_letter(
        original,
        data,
        reason=reason,
        dest_q_name=destq,
        dest_q_mgr_name=destqm,
        put_appl_type=7,
        put_appl_name="amqrmppa",
        put_date="20241121",
        put_time="06000100",
        properties=properties,
    )


def plain(payload: bytes = b'{"type": "orphan"}', tag: str = "PLAIN") -> Message:
    """A message without an MQDLH, put straight onto the DLQ by some application."""
    return Message(
        MQMD(
            format="MQSTR",
            coded_char_set_id=1208,
            persistence=1,
            msg_id=msg_id(tag),
            user_identifier="rogue",
        ),
        payload,
    )


def load(qm: QueueManager, messages: Iterable[Message], queue: str = DLQ) -> list[Message]:
    """Put messages onto a queue keeping their context (dmpmqmsg -C A), in one unit."""
    out = list(messages)
    for m in out:
        qm.put1(queue, m, PutOptions(syncpoint=True, context="set_all"))
    qm.commit()
    return out


def define(qm: QueueManager, *names: str, **attrs: Any) -> None:
    admin = qm.admin()  # type: ignore[attr-defined]
    for name in names:
        admin.define_queue(name, {k.upper(): v for k, v in attrs.items()}, replace=True)


def alter(qm: QueueManager, name: str, **attrs: Any) -> None:
    qm.admin().alter_queue(name, {k.upper(): v for k, v in attrs.items()})  # type: ignore[attr-defined]


def browse(qm: QueueManager, queue: str) -> list[Message]:
    """Every message on ``queue`` (non-destructive), in queue order."""
    q = qm.open(queue, input=False, browse=True)
    out: list[Message] = []
    options = GetOptions(browse="first", syncpoint=False)
    try:
        while True:
            try:
                out.append(q.get(options))
            except MQIError as exc:
                if exc.reason == 2033:
                    return out
                raise
            options = GetOptions(browse="next", syncpoint=False)
    finally:
        q.close()


def identity(message: Message) -> tuple[bytes, str]:
    """A message's MsgId and the SHA-256 of its payload: what conservation compares."""
    return message.md.msg_id, hashlib.sha256(message.body).hexdigest()


def depth(qm: QueueManager, queue: str) -> int:
    return qm.inquire_queue(queue).curdepth


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class Placed:
    """Where one original message ended up."""

    queue: str
    message: Message
    remote: str | None = None  # "queue@qmgr" for a message on a transmission queue


@dataclass
class Ledger:
    """The DLQ's content at the start, to check conservation at the end."""

    qmgr: QueueManager
    dlq: str
    original: dict[bytes, Message]
    outcome: dict[bytes, list[Placed]] = field(default_factory=dict)
    # Reports the queue manager generated about the originals during the run (a COA when
    # a retry placed a message on its destination, a COD...; IBM's Report field): found
    # wherever they went, never mistaken for an original.
    generated: list[Placed] = field(default_factory=list)

    @classmethod
    def of(cls, qm: QueueManager, dlq: str = DLQ) -> Ledger:
        messages = browse(qm, dlq)
        ids = [m.md.msg_id for m in messages]
        assert len(set(ids)) == len(ids), "test data must have unique MsgIds"
        return cls(qm, dlq, {m.md.msg_id: m for m in messages})

    def check(
        self,
        targets: Iterable[str],
        *,
        discarded: Iterable[bytes] = (),
        may_discard: Iterable[bytes] = (),
        discard_count: int | None = None,
    ) -> dict[str, list[Message]]:
        """Assert conservation; returns the messages found per queue (DLQ included).

        ``discarded``: must be gone. ``may_discard`` with ``discard_count``:
        exactly that many of them are gone (when the table, not the test, says
        which). Every other original must be found exactly once.
        """
        must_go = set(discarded)
        allowed = must_go | set(may_discard)
        found: dict[bytes, list[Placed]] = {}
        per_queue: dict[str, list[Message]] = {}
        self.generated = []
        for queue in dict.fromkeys([self.dlq, *targets]):
            for m in browse(self.qmgr, queue):
                placed = _unwrap(queue, m)
                if self._generated_report(placed.message):
                    self.generated.append(placed)
                    continue
                per_queue.setdefault(queue, []).append(placed.message)
                found.setdefault(placed.message.md.msg_id, []).append(placed)
        unknown = set(found) - set(self.original)
        assert not unknown, f"messages from nowhere: {sorted(unknown)}"
        dupes = {
            k.decode(errors="replace"): [p.queue for p in v] for k, v in found.items() if len(v) > 1
        }
        assert not dupes, f"duplicated: {dupes}"
        gone = {k for k in self.original if k not in found}
        lost = sorted(k.decode(errors="replace") for k in gone - allowed)
        assert not lost, f"lost: {lost}"
        assert must_go <= gone, f"should have been discarded: {sorted(must_go - gone)}"
        if discard_count is not None:
            assert len(gone) == discard_count, (len(gone), discard_count)
        for key, (placed,) in found.items():
            self._same(self.original[key], placed)
        self.outcome = found
        return per_queue

    def _generated_report(self, m: Message) -> bool:
        return generated_report(m, self.original)

    def where(self, message: Message) -> str | None:
        placed = self.outcome.get(message.md.msg_id)
        return None if placed is None else placed[0].remote or placed[0].queue

    def _same(self, before: Message, after: Placed) -> None:
        got = after.message
        b, a = before.md, got.md
        name = b.msg_id.decode(errors="replace")
        for attr in (
            *CONTEXT,
            "msg_id",
            "correl_id",
            "msg_type",
            "persistence",
            "report",
            "reply_to_q",
            "reply_to_q_mgr",
            "group_id",
            "msg_seq_number",
            "msg_flags",
            "offset",
            "priority",
            "feedback",
        ):
            assert getattr(a, attr) == getattr(b, attr), (name, after.queue, attr)
        if b.expiry == -1:
            assert a.expiry == -1, (name, "expiry")
        else:
            assert 0 < a.expiry <= b.expiry, (name, "expiry", a.expiry, b.expiry)
        if after.queue == self.dlq or a.format == "MQDEAD" or not has_dlh(before):
            # left, forwarded with its MQDLH, or (the drain's catch-all) moved without one
            assert props_by_name(got) == props_by_name(before), (name, after.queue, "properties")
            assert digest(got.body) == digest(before.body), (name, after.queue, "body")
            assert (a.format, a.encoding, a.coded_char_set_id) == (
                b.format,
                b.encoding,
                b.coded_char_set_id,
            ), (name, after.queue)
            return
        dlh = decode_dead_letter(b, before.body).dlh
        assert dlh is not None
        restored = b.replace(
            format=dlh.format, encoding=dlh.encoding, coded_char_set_id=dlh.coded_char_set_id
        )
        want = as_put(Message(restored, before.body[MQDLH_LENGTH_1:], None, before.properties))
        assert props_by_name(got) == props_by_name(want), (name, after.queue, "properties")
        assert digest(got.body) == digest(want.body), (name, "stripped body")
        assert (a.format, a.encoding, a.coded_char_set_id) == (
            want.md.format,
            want.md.encoding,
            want.md.coded_char_set_id,
        ), (name, "restored MQMD")


def as_put(m: Message) -> Message:
    """``m`` as a queue manager keeps a put of it: an MQRFH2 at the start of the data that
    holds only property folders is properties (IBM: properties in the message data are
    removed from it), its Format, Encoding and CCSID the MQMD's. Written here from IBM's
    text with the codec alone, as the test's own account of it."""
    if m.md.format != "MQHRF2":
        return m
    ccsid = m.md.coded_char_set_id or 819
    try:
        rfh2, end = decode_rfh2(m.body, encoding=m.md.encoding, ccsid=ccsid)
    except DecodeError:
        return m
    if not rfh2.folders or any(
        f.name not in ALL_PROPERTY_FOLDERS or f.attributes for f in rfh2.folders
    ):
        return m
    own = {p.name for p in m.properties}
    carried = (*(p for p in properties_of(rfh2.folders) if p.name not in own), *m.properties)
    md = m.md.replace(
        format=rfh2.format,
        encoding=rfh2.encoding,
        coded_char_set_id=ccsid if rfh2.coded_char_set_id == -2 else rfh2.coded_char_set_id,
    )
    return Message(md, m.body[end:], None, carried)


# What JMS and .NET applications put (the jms, mcd and usr folders, and trace.span in a
# <trace> folder of its own, as IBM maps folder.name), every IBM type but NaN (a NaN float
# never equals itself: tests that add one compare with same_properties). In the order a
# get returns them: by folder (mcd, jms, the application's own, usr), as set within each.
JMS_PROPERTIES = (
    Property("mcd.Msd", PropertyType.STRING, "jms_text"),
    Property("jms.Dst", PropertyType.STRING, "queue:///APP.IN"),
    Property("jms.Cid", PropertyType.STRING, "ID:414d5120"),
    Property("trace.span", PropertyType.STRING, "abc"),
    Property("OrderType", PropertyType.STRING, "express <&>"),
    Property("Urgent", PropertyType.BOOLEAN, True),
    Property("Checksum", PropertyType.BYTE_STRING, b"\x00\x10\xff"),
    Property("Tries", PropertyType.INT8, 3),
    Property("Region", PropertyType.INT16, -2),
    Property("Items", PropertyType.INT32, 70000),
    Property("OrderNo", PropertyType.INT64, 2**40 + 1),
    Property("Weight", PropertyType.FLOAT32, 2.5),
    Property("Price", PropertyType.FLOAT64, math.pi),
    Property("Coupon", PropertyType.NULL, None),
)


def same_properties(a: tuple[Property, ...], b: tuple[Property, ...]) -> bool:
    """Equal by name, type and value (a NaN equal to a NaN), in any order."""
    mine = {p.name: p for p in b}
    return len(a) == len(b) and all(p.name in mine and p.same_as(mine[p.name]) for p in a)


def props_by_name(m: Message) -> dict[str, tuple[int, object]]:
    """A message's properties by name: (type, value), what must survive every move (a
    NaN float as the text ``NaN``, so that a NaN equals a NaN)."""
    return {
        p.name: (p.type, "NaN" if isinstance(p.value, float) and math.isnan(p.value) else p.value)
        for p in m.properties
    }


def _unwrap(queue: str, m: Message) -> Placed:
    """A message on a transmission queue is judged by what is inside its MQXQH. The
    MQXQH holds a version-1 MQMD: the version-2 fields (GroupId, MsgSeqNumber, Offset,
    MsgFlags, OriginalLength) are those of the message on the transmission queue (IBM
    carries them in an MQMDE after the MQXQH)."""
    if m.md.format != MQFMT_XMIT_Q_HEADER:
        return Placed(queue, m)
    xqh, data = decode_xqh(m.body)
    outer = m.md
    md = xqh.md.replace(
        version=2,
        group_id=outer.group_id,
        msg_seq_number=outer.msg_seq_number,
        offset=outer.offset,
        msg_flags=outer.msg_flags,
        original_length=outer.original_length,
    )
    return Placed(
        queue,
        Message(md, data, None, m.properties),
        remote=f"{xqh.remote_q_name}@{xqh.remote_q_mgr_name}",
    )


def generated_report(m: Message, originals: Container[bytes]) -> bool:
    """Whether ``m`` is a report the queue manager (PutApplType MQAT_QMGR) made about one of
    the ``originals`` (by MsgId: its CorrelId is the original's MsgId, IBM's default
    MQRO_COPY_MSG_ID_TO_CORREL_ID) and not an original itself."""
    md = m.md
    return (
        md.msg_type == _MQMT_REPORT
        and md.put_appl_type == _MQAT_QMGR
        and md.msg_id not in originals
        and md.correl_id in originals
    )


def has_dlh(m: Message) -> bool:
    try:
        decode_dead_letter(m.md, m.body)
    except MalformedMessageError:
        return False
    return True


def json_events(path: Path) -> list[dict[str, Any]]:
    """The JSON log lines a child handler wrote (other lines ignored)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def failures_per_message(events: Iterable[dict[str, Any]]) -> Counter[str]:
    return Counter(e["msgid"] for e in events if e.get("event") == "put_failed")


def terminate(child: subprocess.Popen[str], timeout: float = 60) -> str:
    """SIGTERM (a clean stop between units of work); SIGKILL if it does not end.
    Returns what the child printed on stdout."""
    try:
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    return out or ""


def until(condition: Callable[[], object], message: str, timeout: float = 20) -> None:
    """Wait until ``condition()`` is true, polling every 50 ms; fail with ``message`` after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


@dataclass
class Run:
    """One ``dlqhandler run``: exit code, stdout, stderr, captured log events."""

    rc: int
    out: str
    err: str
    logs: list[dict[str, Any]] = field(default_factory=list)

    def events(self, name: str, **match: Any) -> list[dict[str, Any]]:
        return [
            e
            for e in self.logs
            if e.get("event") == name and all(e.get(k) == v for k, v in match.items())
        ]

    def summary(self, label: str) -> int:
        """A count from the printed summary (``label`` as printed, e.g. 'forwarded')."""
        for line in self.out.splitlines():
            if line.strip().startswith(label + " ") or line.strip() == label:
                return int(line.split()[-1])
        raise AssertionError(f"no {label!r} in summary:\n{self.out}")


RunCli = Callable[..., Run]


def start_handler(
    home: Path, rules: Path, *args: str, log: Path | None = None
) -> subprocess.Popen[str]:
    """``dlqhandler run`` as a child process (JSON logs to ``log``)."""
    env = {**os.environ, "DLQHANDLER_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    env.pop("DLQHANDLER_QMGR", None)
    stderr = log.open("w") if log is not None else subprocess.DEVNULL
    try:
        return subprocess.Popen(
            [str(DLQHANDLER), "run", "--rules", str(rules), "--log-format", "json", *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    finally:
        if log is not None:
            stderr.close()  # type: ignore[union-attr]
