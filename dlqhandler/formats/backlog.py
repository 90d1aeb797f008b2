"""Realistic dead-letter backlogs, seeded and of any size, as Messages or dmpmqmsg files.

What a DLQ on a busy hub queue manager holds: messages that arrived over
channels for full, put-inhibited, missing or forbidden queues; messages for
queue managers nobody routes to; report messages (COA, COD, expiry, exception)
whose reply queue is gone; trigger messages the trigger monitor could not act
on; message groups; JMS messages with an MQRFH2; a few messages dead-lettered on
z/OS (EBCDIC, Encoding 785) or AIX (big-endian); and a few messages some
application put straight onto the DLQ without an MQDLH.

Scenarios are dealt from a shuffled deck, so every category appears in every
~100 messages and the same seed always gives the same messages.
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, BinaryIO

from dlqhandler.formats.dump_writer import DumpWriter
from dlqhandler.mq import constants as c
from dlqhandler.mq.ccsid import codec_for, int_order
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD

__all__ = ["DEFAULT_START", "SCENARIOS", "generate_backlog", "write_backlog"]

DEFAULT_START = datetime(2024, 11, 21, 6, 0, 0, tzinfo=UTC)

# Scenario -> cards per deck. Groups yield 2-5 messages per card.
SCENARIOS: dict[str, int] = {
    "q_full": 22,
    "put_inhibited": 10,
    "unknown_object": 12,
    "not_authorized": 8,
    "too_big": 4,
    "unknown_remote_qmgr": 8,
    "report": 8,
    "trigger": 2,
    "group": 5,
    "ebcdic": 5,
    "big_endian": 4,
    "no_dlh": 4,
}

_REMOTE_QMGRS = ("AAAA.QM1", "BBBB.1", "CCCC.QM2")
_UNROUTABLE_QMGRS = ("DDDD.QM9", "EEEE.QM1", "AAAA.QM7", "OLD.HUB")
_LOCAL_QUEUES = (
    "APP.ORDERS",
    "APP.BILLING",
    "APP.INVENTORY",
    "APP.SHIPPING",
    "APP.NOTIFY",
    "PAYROLL.IN",
    "PAYROLL.AUDIT",
)
_MISSING_QUEUES = ("APP.ORDRES", "APP.LEGACY.IN", "PAYROLL.OLD", "APP.ORDERS.V1", "APP.TEST.TMP")
_PAYROLL = ("PAYROLL.IN", "PAYROLL.AUDIT", "PAYROLL.REPORTS")
_BIG_QUEUES = ("APP.DOCUMENTS", "APP.IMAGES")
_USERS = ("app1", "ordersvc", "billing", "mqm", "batch01", "svc_ship", "guest")
_APPS = (
    (c.MQAT_UNIX, "OrderService"),
    (c.MQAT_UNIX, "/opt/billing/bin/billd"),
    (c.MQAT_JAVA, "com.acme.shipping.Main"),
    (c.MQAT_WINDOWS_NT, "PayrollBatch.exe"),
    (c.MQAT_UNIX, "amqsput"),
    (c.MQAT_JAVA, "inventory-sync"),
)
_DLQ_PUTTERS = ((c.MQAT_QMGR, "amqrmppa"), (c.MQAT_UNIX, "amqrmppa"))
_MQ_TEXT = ((546, 1208),) * 6 + ((546, 819),) * 2 + ((546, 437), (546, 850))


@dataclass(frozen=True, slots=True)
class _Original:
    md: MQMD
    payload: bytes


class _Generator:
    def __init__(self, seed: int, qmgr: str, start: datetime) -> None:
        self.rng = random.Random(seed)  # noqa: S311 - sample data, not secrets
        self.qmgr = qmgr
        self.clock = start
        self.counter = self.rng.randrange(1 << 20)

    # --- identifiers, times ------------------------------------------------------------

    def _id(self, qmgr: str, *, ebcdic: bool = False) -> bytes:
        """A queue-manager style id: 'AMQ ' (or EBCDIC 'CSQ ') + name + 8 unique bytes."""
        self.counter += 1
        head = ("CSQ " + qmgr.ljust(4)[:4]).ljust(16) if ebcdic else "AMQ " + qmgr.ljust(12)[:12]
        stamp = struct.pack("<II", zlib.crc32(qmgr.encode()), self.counter)
        return head.encode("cp500" if ebcdic else "ascii") + stamp

    def _tick(self) -> datetime:
        self.clock += timedelta(seconds=self.rng.expovariate(1 / 20))
        return self.clock

    @staticmethod
    def _date_time(when: datetime) -> tuple[str, str]:
        return f"{when:%Y%m%d}", f"{when:%H%M%S}{when.microsecond // 10000:02d}"

    # --- payloads ----------------------------------------------------------------------

    def _json(self, dest: str, size: int = 0) -> str:
        rng = self.rng
        doc: dict[str, object] = {
            "type": dest.rsplit(".", 1)[-1].lower(),
            "id": f"{dest[:3]}-{rng.randrange(10**6):06d}",
            "customer": f"C-{rng.randrange(10**4):04d}",
            "amount": round(rng.uniform(1, 5000), 2),
            "currency": rng.choice(("EUR", "USD", "GBP")),
            "lines": [
                {"sku": f"SKU{rng.randrange(10**5):05d}", "qty": rng.randint(1, 9)}
                for _ in range(rng.randint(1, 4))
            ],
        }
        if size:
            doc["attachment"] = "".join(
                rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/", k=size)
            )
        return json.dumps(doc, separators=(",", ":"))

    def _payload(self, dest: str, fmt: str, enc: int, ccsid: int, size: int = 0) -> bytes:
        if fmt == c.MQFMT_NONE.rstrip():
            return self.rng.randbytes(self.rng.randint(16, 256))
        if fmt == c.MQFMT_RF_HEADER_2.rstrip():
            return self._rfh2(dest, self._json(dest).encode("utf-8"), enc)
        if fmt == c.MQFMT_TRIGGER.rstrip():
            return self._trigger_message(dest, ccsid)
        if dest.startswith("PAYROLL"):
            emp = self.rng.randrange(10**5)
            text = (
                f"<PayrollRecord><EmpId>{emp:05d}</EmpId><Period>2024-11</Period>"
                f"<Gross>{self.rng.uniform(1500, 9000):.2f}</Gross></PayrollRecord>"
            )
        else:
            text = self._json(dest, size)
        return text.encode(codec_for(ccsid), "replace")

    def _rfh2(self, dest: str, data: bytes, enc: int) -> bytes:
        """An MQRFH2 (JMS) header in the message's integer encoding (the MQMD's Encoding
        describes it), folders in UTF-8, then the data."""
        order = int_order(enc)
        folders = [
            b"<mcd><Msd>jms_text</Msd></mcd>",
            f"<jms><Dst>queue:///{dest}</Dst><Dlv>2</Dlv></jms>".encode(),
            b"<usr><source>web</source></usr>",
        ]
        blob = b""
        for folder in folders:
            folder += b" " * (-len(folder) % 4)
            blob += struct.pack(f"{order}i", len(folder)) + folder
        head = struct.pack(
            f"{order}4siiii8sii", b"RFH ", 2, 36 + len(blob), enc, 1208, b"MQSTR   ", 0, 1208
        )
        return head + blob + data

    def _trigger_message(self, queue: str, ccsid: int) -> bytes:
        """An MQTM (684 bytes) naming the application queue and its process."""
        codec = codec_for(ccsid)

        def text(value: str, n: int) -> bytes:
            return value.encode(codec).ljust(n, " ".encode(codec))

        return (
            text("TM  ", 4)
            + struct.pack("<i", 1)
            + text(queue, 48)
            + text(queue.replace("APP.", "PROC.")[:48], 48)
            + text("", 64)
            + struct.pack("<i", c.MQAT_UNIX)
            + text("/opt/app/bin/start_consumer", 256)
            + text("", 128)
            + text("", 128)
        )

    # --- the original message ----------------------------------------------------------

    def _original(
        self,
        dest: str,
        *,
        origin: str,
        fmt: str | None = None,
        enc_ccsid: tuple[int, int] | None = None,
        size: int = 0,
        ebcdic: bool = False,
        **md: Any,
    ) -> _Original:
        rng = self.rng
        enc, ccsid = enc_ccsid or rng.choice(_MQ_TEXT)
        if fmt is None:
            fmt = rng.choices(("MQSTR", "MQHRF2", ""), weights=(75, 10, 15))[0]
        msg_type = rng.choices(
            (c.MQMT_DATAGRAM, c.MQMT_REQUEST, c.MQMT_REPLY), weights=(60, 28, 12)
        )[0]
        reply_q = reply_qm = ""
        correl = bytes(24)
        report = 0
        if msg_type == c.MQMT_REQUEST:
            reply_q, reply_qm = f"{dest}.REPLY", rng.choice((origin, ""))
            report = rng.choice((0, c.MQRO_COA, c.MQRO_EXCEPTION_WITH_DATA))
        elif msg_type == c.MQMT_REPLY:
            correl = self._id(origin)
        elif rng.random() < 0.15:
            report = c.MQRO_EXPIRATION
        appl_type, appl_name = rng.choice(_APPS)
        put = self.clock - timedelta(seconds=rng.uniform(0.05, 900))
        put_date, put_time = self._date_time(put)
        windows_sid = (b"\x16\x01\x05\x15" + rng.randbytes(12)).ljust(32, b"\0")
        values: dict[str, Any] = {
            "msg_type": msg_type,
            "report": report,
            "encoding": enc,
            "coded_char_set_id": ccsid,
            "format": fmt,
            "priority": rng.choice((0, 0, 4, 4, 5, 9)),
            "persistence": rng.choices(
                (c.MQPER_PERSISTENT, c.MQPER_NOT_PERSISTENT), weights=(65, 35)
            )[0],
            "expiry": -1 if rng.random() < 0.8 else rng.randint(300, 864_000),
            "msg_id": self._id(origin, ebcdic=ebcdic),
            "correl_id": correl,
            "backout_count": rng.choices((0, 1, 2, 3), weights=(85, 8, 4, 3))[0],
            "reply_to_q": reply_q,
            "reply_to_q_mgr": reply_qm,
            "user_identifier": rng.choice(_USERS),
            "accounting_token": windows_sid if appl_type == c.MQAT_WINDOWS_NT else bytes(32),
            "put_appl_type": appl_type,
            "put_appl_name": appl_name,
            "put_date": put_date,
            "put_time": put_time,
        }
        values.update(md)
        return _Original(MQMD(**values), self._payload(dest, fmt, enc, ccsid, size))

    def _dead_letter(
        self,
        orig: _Original,
        reason: int,
        dest: str,
        dest_qm: str,
        *,
        putter: tuple[int, str] | None = None,
        enc_ccsid: tuple[int, int] | None = None,
    ) -> Message:
        appl_type, appl_name = putter or self.rng.choice(_DLQ_PUTTERS)
        put_date, put_time = self._date_time(self.clock)
        enc, ccsid = enc_ccsid or (546, orig.md.coded_char_set_id)
        return Message.dead_letter(
            orig.md,
            orig.payload,
            reason=reason,
            dest_q_name=dest,
            dest_q_mgr_name=dest_qm,
            put_appl_type=appl_type,
            put_appl_name=appl_name,
            put_date=put_date,
            put_time=put_time,
            encoding=enc,
            ccsid=ccsid,
        )

    # --- scenarios ---------------------------------------------------------------------

    def scenario(self, name: str) -> list[Message]:
        rng = self.rng
        self._tick()
        remote = rng.choice(_REMOTE_QMGRS)
        if name in ("q_full", "put_inhibited"):
            dest = rng.choice(_LOCAL_QUEUES)
            reason = c.MQRC_Q_FULL if name == "q_full" else c.MQRC_PUT_INHIBITED
            return [self._dead_letter(self._original(dest, origin=remote), reason, dest, self.qmgr)]
        if name == "unknown_object":
            dest = rng.choice(_MISSING_QUEUES)
            return [
                self._dead_letter(
                    self._original(dest, origin=remote), c.MQRC_UNKNOWN_OBJECT_NAME, dest, self.qmgr
                )
            ]
        if name == "not_authorized":
            dest = rng.choice(_PAYROLL)
            orig = self._original(dest, origin=remote, user_identifier="guest")
            return [self._dead_letter(orig, c.MQRC_NOT_AUTHORIZED, dest, self.qmgr)]
        if name == "too_big":
            dest = rng.choice(_BIG_QUEUES)
            orig = self._original(dest, origin=remote, fmt="MQSTR", size=rng.randint(2500, 5000))
            return [self._dead_letter(orig, c.MQRC_MSG_TOO_BIG_FOR_Q, dest, self.qmgr)]
        if name == "unknown_remote_qmgr":
            dest = rng.choice(_LOCAL_QUEUES)
            return [
                self._dead_letter(
                    self._original(dest, origin=self.qmgr),
                    c.MQRC_UNKNOWN_REMOTE_Q_MGR,
                    dest,
                    rng.choice(_UNROUTABLE_QMGRS),
                )
            ]
        if name == "report":
            return [self._report(remote)]
        if name == "trigger":
            return self._trigger()
        if name == "group":
            return self._group(remote)
        if name == "ebcdic":
            return self._ebcdic()
        if name == "big_endian":
            return self._big_endian()
        if name == "no_dlh":
            orig = self._original(
                "APP.MISROUTED", origin=self.qmgr, fmt="MQSTR", enc_ccsid=(546, 1208)
            )
            return [Message(orig.md, orig.payload)]
        raise ValueError(f"unknown scenario {name!r}")

    def _trigger(self) -> list[Message]:
        """A trigger message the trigger monitor could not act on (MQFB_APPL_CANNOT_BE_STARTED)."""
        rng = self.rng
        dest = "SYSTEM.DEFAULT.INITIATION.QUEUE"
        orig = self._original(
            rng.choice(_LOCAL_QUEUES),
            origin=self.qmgr,
            fmt="MQTRIG",
            msg_type=c.MQMT_DATAGRAM,
            report=0,
            persistence=c.MQPER_NOT_PERSISTENT,
            put_appl_type=c.MQAT_QMGR,
            put_appl_name="amqzlaa0",
        )
        return [
            self._dead_letter(
                orig,
                c.MQFB_APPL_CANNOT_BE_STARTED,
                dest,
                self.qmgr,
                putter=(c.MQAT_UNIX, "runmqtrm"),
            )
        ]

    def _ebcdic(self) -> list[Message]:
        """From a z/OS queue manager over a channel: EBCDIC text, z/OS encoding."""
        rng = self.rng
        ccsid = rng.choice((500, 1047, 37))
        dest = rng.choice(_LOCAL_QUEUES + _MISSING_QUEUES)
        orig = self._original(
            dest,
            origin="QMZ1",
            fmt="MQSTR",
            enc_ccsid=(785, ccsid),
            ebcdic=True,
            put_appl_type=c.MQAT_CICS,
            put_appl_name="CICSPRD1ORD1",
        )
        reason = rng.choice((c.MQRC_Q_FULL, c.MQRC_UNKNOWN_OBJECT_NAME, c.MQRC_PUT_INHIBITED))
        return [
            self._dead_letter(
                orig,
                reason,
                dest,
                self.qmgr,
                enc_ccsid=(785, ccsid),
                putter=(c.MQAT_CHANNEL_INITIATOR, "QMZ1CHIN"),
            )
        ]

    def _big_endian(self) -> list[Message]:
        """From a big-endian (AIX-like) queue manager: encoding 273, ISO 8859-1."""
        rng = self.rng
        dest = rng.choice(_LOCAL_QUEUES)
        orig = self._original(dest, origin="BBBB.1", enc_ccsid=(273, 819))
        reason = rng.choice((c.MQRC_Q_FULL, c.MQRC_UNKNOWN_OBJECT_NAME, c.MQRC_NOT_AUTHORIZED))
        return [
            self._dead_letter(
                orig,
                reason,
                dest,
                self.qmgr,
                enc_ccsid=(273, 819),
                putter=(c.MQAT_UNIX, "amqrmppa"),
            )
        ]

    def _report(self, remote: str) -> Message:
        """A COA/COD/expiry/exception report for a reply queue that no longer exists."""
        rng = self.rng
        feedback = rng.choice((c.MQFB_COA, c.MQFB_COD, c.MQFB_EXPIRATION, c.MQRC_Q_FULL))
        with_data = feedback in (c.MQFB_EXPIRATION, c.MQRC_Q_FULL)
        reply_q = rng.choice(_LOCAL_QUEUES) + ".REPLY"
        orig = self._original(
            reply_q,
            origin=self.qmgr,
            fmt="MQSTR" if with_data else "",
            msg_type=c.MQMT_REPORT,
            feedback=feedback,
            report=0,
            correl_id=self._id(remote),
            reply_to_q="",
            reply_to_q_mgr="",
            put_appl_type=c.MQAT_QMGR,
            put_appl_name="amqzlaa0",
            expiry=-1,
        )
        if not with_data:
            orig = _Original(orig.md, b"")
        reason = c.MQRC_UNKNOWN_OBJECT_NAME if rng.random() < 0.6 else c.MQRC_UNKNOWN_REMOTE_Q_MGR
        dest_qm = self.qmgr if reason == c.MQRC_UNKNOWN_OBJECT_NAME else remote
        return self._dead_letter(orig, reason, reply_q, dest_qm)

    def _group(self, remote: str) -> list[Message]:
        """A message group (GroupId, MsgSeqNumber 1..n, MSG_IN_GROUP / LAST_MSG_IN_GROUP)."""
        rng = self.rng
        size = rng.randint(2, 5)
        group_id = self._id(remote)
        dest = rng.choice(_LOCAL_QUEUES)
        reason = rng.choice((c.MQRC_Q_FULL, c.MQRC_PUT_INHIBITED))
        persistence = rng.choice((c.MQPER_PERSISTENT, c.MQPER_NOT_PERSISTENT))
        out = []
        for seq in range(1, size + 1):
            flags = c.MQMF_LAST_MSG_IN_GROUP if seq == size else c.MQMF_MSG_IN_GROUP
            orig = self._original(
                dest,
                origin=remote,
                fmt="MQSTR",
                msg_type=c.MQMT_DATAGRAM,
                report=0,
                reply_to_q="",
                reply_to_q_mgr="",
                group_id=group_id,
                msg_seq_number=seq,
                msg_flags=flags,
                persistence=persistence,
            )
            out.append(self._dead_letter(orig, reason, dest, self.qmgr))
            self.clock += timedelta(milliseconds=rng.randint(1, 40))
        return out


def generate_backlog(
    count: int, *, seed: int = 1, qmgr: str = "QM1", start: datetime = DEFAULT_START
) -> Iterator[Message]:
    """``count`` dead-letter-queue messages, the same for the same arguments."""
    if count < 0:
        raise ValueError("count must be >= 0")
    gen = _Generator(seed, qmgr, start)
    deck = [name for name, cards in SCENARIOS.items() for _ in range(cards)]
    made = 0
    while made < count:
        gen.rng.shuffle(deck)
        for name in deck:
            for message in gen.scenario(name)[: count - made]:
                yield message
                made += 1
            if made >= count:
                return


def write_backlog(
    stream: BinaryIO,
    count: int,
    *,
    seed: int = 1,
    qmgr: str = "QM1",
    queue: str = "SYSTEM.DEAD.LETTER.QUEUE",
    created: datetime | None = None,
    start: datetime = DEFAULT_START,
) -> int:
    """Write a generated backlog to ``stream`` as a dmpmqmsg dump; returns the count."""
    with DumpWriter(stream, qmgr=qmgr, queue=queue, created=created) as writer:
        for message in generate_backlog(count, seed=seed, qmgr=qmgr, start=start):
            writer.write(message)
        return writer.count
