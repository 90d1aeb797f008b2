"""A recording stand-in for IBM's ``ibmmq`` module (no MQ client needed).

:class:`FakeMQ` builds a module object with the parts of the ``ibmmq`` API the
adapter uses (``QueueManager``, ``Queue``, ``MessageHandle``, ``MD``, ``GMO``,
``PMO``, ``OD``, ``CD``, ``CNO``, ``CSP``, ``SCO``, ``MQMIError``,
``PYIFError``, ``CMQC``, ``CMQXC``); the constant values are IBM's (Linux
x64 ``CMQC``, shared with the MQI stand-in). Every MQI call is appended to
:attr:`FakeMQ.calls` with the option flags and a snapshot of its structures; results
are scripted:

* :meth:`FakeMQ.queue_message` - what the next MQGET on a queue returns (a
  message larger than the buffer raises MQRC_TRUNCATED_MSG_FAILED and stays);
* :meth:`FakeMQ.fail` - the next N calls of a verb raise MQMIError(reason).

With no scripted message an MQGET raises MQRC_NO_MSG_AVAILABLE.
"""

from __future__ import annotations

import itertools
import types
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dlqhandler.mq.mqmd import LAYOUT_V2, MQMD
from tests.mqi.cmqc import CMQC, CMQXC

MQCC_OK, MQCC_WARNING, MQCC_FAILED = 0, 1, 2


def flag_names(value: int, prefix: str) -> set[str]:
    """The CMQC names with ``prefix`` whose (non-zero, single-bit) value is set in ``value``."""
    names = set()
    for name, bit in vars(CMQC).items():
        if (
            name.startswith(prefix)
            and isinstance(bit, int)
            and bit > 0
            and bit & (bit - 1) == 0
            and value & bit
        ):
            names.add(name)
    return names


class MQMIError(Exception):
    """ibmmq.MQMIError: completion and reason code, extra keywords as attributes."""

    def __init__(self, comp: int, reason: int, **kw: Any) -> None:
        super().__init__(f"MQI Error. Comp {comp}, Reason {reason}")
        self.comp, self.reason = comp, reason
        for k, v in kw.items():
            setattr(self, k, v)


class PYIFError(Exception):
    """ibmmq.PYIFError: an error from the library itself."""


class _Struct:
    """An MQI structure: attributes with the MQI defaults; ``snapshot`` copies them."""

    DEFAULTS: ClassVar[dict[str, Any]] = {}

    def __init__(self, **kw: Any) -> None:
        for k, v in {**self.DEFAULTS, **kw}.items():
            setattr(self, k, v)

    def snapshot(self) -> dict[str, Any]:
        return dict(vars(self))

    def pack(self) -> Any:
        return self  # (the fake's MQPUT and MQPUT1 take the structure itself)

    def unpack(self, packed: Any) -> None:
        if packed is not self:
            vars(self).update(vars(packed))


def _md_defaults() -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in LAYOUT_V2.fields:
        if f.attr == "struc_id":
            continue
        values[f.ibm] = b"" if f.kind in ("char", "byte") else getattr(MQMD(), f.attr)
    values["Version"] = 2
    values["PutApplType"] = 0
    return values


class MD(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = _md_defaults()


class GMO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "Version": 4,
        "Options": 0,
        "WaitInterval": 0,
        "MatchOptions": 3,
        "MsgHandle": 0,
    }


class PMO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "Version": 3,
        "Options": 0,
        "Context": 0,
        "OriginalMsgHandle": 0,
        "NewMsgHandle": 0,
        "Action": 0,
    }


class IMPO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {"Options": 0}

    def pack(self) -> IMPO:
        return self  # (the fake MQINQMP reads the options)


class PD(_Struct):
    def pack(self) -> bytes:
        return b"PD  "


class OD(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "ObjectType": 1,
        "ObjectName": b"",
        "ObjectQMgrName": b"",
        "AlternateUserId": b"",
    }


class CD(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "ChannelName": b"",
        "ConnectionName": b"",
        "ChannelType": 0,
        "TransportType": 0,
        "SSLCipherSpec": b"",
    }


class CNO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {"Options": 0}


class CSP(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "AuthenticationType": 0,
        "CSPUserId": None,
        "CSPPassword": None,
    }


class SCO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {"KeyRepository": b"", "CertificateLabel": b""}


def ibm_md_fields(md: MQMD) -> dict[str, Any]:
    """MQMD fields as the MQI hands them back: text blank-padded, ids full length."""
    out: dict[str, Any] = {}
    for f in LAYOUT_V2.fields:
        if f.attr == "struc_id":
            continue
        value = getattr(md, f.attr)
        if f.kind == "char":
            value = value.encode("latin-1").ljust(f.length, b" ")
        out[f.ibm] = value
    return out


@dataclass
class Call:
    """One recorded MQI call."""

    verb: str
    target: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scripted:
    """A message an MQGET returns: descriptor fields and data."""

    md: MQMD
    body: bytes


class FakeMQ:
    """The recorder: builds the fake module and holds calls, scripts and handles."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.messages: dict[str, deque[Scripted]] = defaultdict(deque)
        self.failures: dict[str, deque[int]] = defaultdict(deque)
        self.qmgr_attrs: dict[int, Any] = {
            CMQC.MQCA_Q_MGR_NAME: b"QM1".ljust(48),
            CMQC.MQCA_DEAD_LETTER_Q_NAME: b"SYSTEM.DEAD.LETTER.QUEUE".ljust(48),
            CMQC.MQIA_CODED_CHAR_SET_ID: 1208,
        }
        self.queue_attrs: dict[str, dict[int, int]] = {}
        self._hconn = itertools.count(1)
        self._hobj = itertools.count(101)
        self._hmsg = itertools.count(9001)
        self._msgids = itertools.count(1)
        self.handle_properties: list[tuple[str, Any, int]] = []
        self._cursor: dict[int, int] = {}
        self.module = self._module()

    # -- scripting ---------------------------------------------------------------------
    def queue_message(self, queue: str, md: MQMD, body: bytes) -> None:
        self.messages[queue].append(Scripted(md, body))

    def fail(self, verb: str, reason: int, times: int = 1) -> None:
        self.failures[verb].extend([reason] * times)

    def verbs(self) -> list[str]:
        return [c.verb for c in self.calls]

    def of(self, verb: str) -> list[Call]:
        return [c for c in self.calls if c.verb == verb]

    def _record(self, verb: str, target: str = "", **detail: Any) -> None:
        self.calls.append(Call(verb, target, detail))
        pending = self.failures.get(verb)
        if pending:
            reason = pending.popleft()
            raise MQMIError(MQCC_FAILED, reason)

    # -- the module ----------------------------------------------------------------------
    def _module(self) -> types.ModuleType:
        fake = self
        connections: dict[int, Any] = {}
        queues: dict[int, Any] = {}

        def mqput(hconn: int, hobj: int, md: MD, pmo: PMO, body: bytes) -> tuple[Any, ...]:
            queues[hobj].put(body, md, pmo)  # (raises MQMIError for an injected failure)
            return md, pmo, 0, 0

        def mqput1(hconn: int, od: OD, md: MD, pmo: PMO, body: bytes) -> tuple[Any, ...]:
            connections[hconn].put1(od, body, md, pmo)
            return md, pmo, 0, 0

        class QueueManager:
            def __init__(self, name: object = "") -> None:
                assert name is None, "the adapter connects explicitly"
                self.hconn = 0

            def connect_with_options(self, name: bytes, **kw: Any) -> None:
                snap = {k: (v.snapshot() if isinstance(v, _Struct) else v) for k, v in kw.items()}
                fake._record("MQCONNX", name.decode(), **snap)
                self.hconn = next(fake._hconn)
                connections[self.hconn] = self

            def get_handle(self) -> int:
                return self.hconn

            def commit(self) -> None:
                fake._record("MQCMIT")

            def backout(self) -> None:
                fake._record("MQBACK")

            def disconnect(self) -> None:
                fake._record("MQDISC")

            def put1(self, od: OD, msg: bytes, md: MD, pmo: PMO) -> None:
                fake._record(
                    "MQPUT1",
                    od.ObjectName.decode(),
                    od=od.snapshot(),
                    md=md.snapshot(),
                    pmo=pmo.snapshot(),
                    body=msg,
                )
                fake._fill_put(md, pmo)

            def inquire(self, selectors: list[int]) -> dict[int, Any]:
                fake._record("MQINQ", "qmgr", selectors=list(selectors))
                return {s: fake.qmgr_attrs[s] for s in selectors}

        class Queue:
            def __init__(self, qm: QueueManager, od: OD, options: int) -> None:
                self.name = od.ObjectName.decode()
                fake._record("MQOPEN", self.name, options=options, hconn=qm.hconn)
                self.hobj = next(fake._hobj)
                queues[self.hobj] = self

            def get_handle(self) -> int:
                return self.hobj

            def get(self, max_length: int, md: MD, gmo: GMO) -> bytes:
                fake._record(
                    "MQGET",
                    self.name,
                    options=gmo.Options,
                    wait=gmo.WaitInterval,
                    match=gmo.MatchOptions,
                    msg_handle=gmo.MsgHandle,
                    length=max_length,
                    md=md.snapshot(),
                    hobj=self.hobj,
                )
                if gmo.Options & CMQC.MQGMO_UNLOCK:
                    return b""
                pending = fake.messages.get(self.name)
                if not pending:
                    raise MQMIError(MQCC_FAILED, 2033)
                msg = pending[0]
                for k, v in ibm_md_fields(msg.md).items():
                    setattr(md, k, v)
                if len(msg.body) > max_length:
                    raise MQMIError(
                        MQCC_WARNING,
                        2080,
                        original_length=len(msg.body),
                        message=msg.body[:max_length],
                    )
                pending.popleft()
                return msg.body

            def put(self, msg: bytes, md: MD, pmo: PMO) -> None:
                fake._record(
                    "MQPUT",
                    self.name,
                    md=md.snapshot(),
                    pmo=pmo.snapshot(),
                    body=msg,
                    hobj=self.hobj,
                )
                fake._fill_put(md, pmo)

            def inquire(self, selectors: list[int]) -> dict[int, Any]:
                fake._record("MQINQ", self.name, selectors=list(selectors))
                attrs = fake.queue_attrs.get(self.name, {})
                return {s: attrs.get(s, 0) for s in selectors}

            def close(self) -> None:
                fake._record("MQCLOSE", self.name, hobj=self.hobj)

        class Properties:
            def __init__(self, hmsg: int) -> None:
                self.hmsg = hmsg

            def set(
                self, name: str, value: Any, property_type: int = 1024, value_length: int = -1
            ) -> None:
                fake._record("MQSETMP", name, hmsg=self.hmsg, type=property_type, value=value)

            def dlt(self, name: str) -> None:
                fake._record("MQDLTMP", name, hmsg=self.hmsg)

        class MessageHandle:
            def __init__(self, qm: QueueManager) -> None:
                fake._record("MQCRTMH", hconn=qm.hconn)
                self.hconn = qm.hconn
                self.hmsg = next(fake._hmsg)
                self.properties = Properties(self.hmsg)

            def get_handle(self) -> int:
                return self.hmsg

            def get_queue_manager(self) -> int:
                return self.hconn

        def inqmp(
            hconn: int, hmsg: int, impo: IMPO, name: bytes, pd: bytes, kind: int, length: int
        ) -> tuple[Any, int, Any, int, int]:
            """Every handle holds ``fake.handle_properties`` ((name, value, DataLength)):
            ``%`` with INQ_FIRST/INQ_NEXT walks them; a name gives its value."""
            fake.calls.append(Call("MQINQMP", name.decode(), {"hmsg": hmsg}))
            props = fake.handle_properties
            if name != b"%":
                found = [p for p in props if p[0] == name.decode()]
                if not found:
                    return None, 0, None, MQCC_FAILED, 2471
                value = found[0][1]  # as a string (the type probe)
                text = ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value)
                return text, 0, None, 0, 0
            at = fake._cursor.get(hmsg, -1) + 1 if impo.Options & 0x8 else 0
            if at >= len(props):
                return None, 0, None, MQCC_FAILED, 2471
            fake._cursor[hmsg] = at
            n, v, size = props[at]
            return v, size, n, 0, 0

        module = types.ModuleType("ibmmq")
        for name, value in {
            "CMQC": CMQC,
            "CMQXC": CMQXC,
            "MQMIError": MQMIError,
            "PYIFError": PYIFError,
            "MD": MD,
            "GMO": GMO,
            "PMO": PMO,
            "OD": OD,
            "CD": CD,
            "CNO": CNO,
            "CSP": CSP,
            "SCO": SCO,
            "QueueManager": QueueManager,
            "Queue": Queue,
            "MessageHandle": MessageHandle,
            "IMPO": IMPO,
            "PD": PD,
            "ibmmqc": types.SimpleNamespace(MQINQMP=inqmp, MQPUT=mqput, MQPUT1=mqput1),
        }.items():
            setattr(module, name, value)
        return module

    def _fill_put(self, md: MD, pmo: PMO) -> None:
        """What a successful put returns: a MsgId when none was given (or a new one)."""
        if not md.MsgId.strip(b"\x00") or pmo.Options & CMQC.MQPMO_NEW_MSG_ID:
            md.MsgId = b"AMQ QM1         " + next(self._msgids).to_bytes(8, "big")
        if pmo.Options & CMQC.MQPMO_DEFAULT_CONTEXT:
            md.UserIdentifier = b"mqm".ljust(12)
            md.PutApplType = 6
