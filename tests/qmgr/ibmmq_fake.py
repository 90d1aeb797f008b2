"""A recording stand-in for IBM's ``ibmmq`` module (no MQ client needed).

:class:`FakeMQ` builds a module object with the parts of the ``ibmmq`` API the
adapter uses (``QueueManager``, ``Queue``, ``MessageHandle``, ``MD``, ``GMO``,
``PMO``, ``OD``, ``CD``, ``CNO``, ``CSP``, ``SCO``, ``MQMIError``,
``PYIFError``, ``CMQC``, ``CMQXC``); the constant values are IBM's (Linux
x64 ``CMQC``). Every MQI call is appended to :attr:`FakeMQ.calls` with the
option flags and a snapshot of its structures; results are scripted:

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

MQCC_OK, MQCC_WARNING, MQCC_FAILED = 0, 1, 2

CMQC = types.SimpleNamespace(
    MQCC_OK=0, MQCC_WARNING=1, MQCC_FAILED=2,
    # open options
    MQOO_INPUT_AS_Q_DEF=0x1, MQOO_INPUT_SHARED=0x2, MQOO_INPUT_EXCLUSIVE=0x4, MQOO_BROWSE=0x8,
    MQOO_OUTPUT=0x10, MQOO_INQUIRE=0x20, MQOO_SET=0x40, MQOO_SAVE_ALL_CONTEXT=0x80,
    MQOO_PASS_IDENTITY_CONTEXT=0x100, MQOO_PASS_ALL_CONTEXT=0x200,
    MQOO_SET_IDENTITY_CONTEXT=0x400, MQOO_SET_ALL_CONTEXT=0x800,
    MQOO_ALTERNATE_USER_AUTHORITY=0x1000, MQOO_FAIL_IF_QUIESCING=0x2000,
    # get options
    MQGMO_NONE=0, MQGMO_NO_WAIT=0, MQGMO_WAIT=0x1, MQGMO_SYNCPOINT=0x2, MQGMO_NO_SYNCPOINT=0x4,
    MQGMO_BROWSE_FIRST=0x10, MQGMO_BROWSE_NEXT=0x20, MQGMO_ACCEPT_TRUNCATED_MSG=0x40,
    MQGMO_MARK_SKIP_BACKOUT=0x80, MQGMO_MSG_UNDER_CURSOR=0x100, MQGMO_LOCK=0x200,
    MQGMO_UNLOCK=0x400, MQGMO_BROWSE_MSG_UNDER_CURSOR=0x800,
    MQGMO_SYNCPOINT_IF_PERSISTENT=0x1000, MQGMO_FAIL_IF_QUIESCING=0x2000,
    MQGMO_CONVERT=0x4000, MQGMO_LOGICAL_ORDER=0x8000, MQGMO_COMPLETE_MSG=0x10000,
    MQGMO_ALL_MSGS_AVAILABLE=0x20000, MQGMO_ALL_SEGMENTS_AVAILABLE=0x40000,
    MQGMO_PROPERTIES_FORCE_MQRFH2=0x2000000, MQGMO_NO_PROPERTIES=0x4000000,
    MQGMO_PROPERTIES_IN_HANDLE=0x8000000, MQGMO_PROPERTIES_COMPATIBILITY=0x10000000,
    MQWI_UNLIMITED=-1,
    MQMO_NONE=0, MQMO_MATCH_MSG_ID=0x1, MQMO_MATCH_CORREL_ID=0x2, MQMO_MATCH_GROUP_ID=0x4,
    MQMO_MATCH_MSG_SEQ_NUMBER=0x8, MQMO_MATCH_OFFSET=0x10, MQMO_MATCH_MSG_TOKEN=0x20,
    # put options
    MQPMO_NONE=0, MQPMO_SYNCPOINT=0x2, MQPMO_NO_SYNCPOINT=0x4, MQPMO_DEFAULT_CONTEXT=0x20,
    MQPMO_NEW_MSG_ID=0x40, MQPMO_NEW_CORREL_ID=0x80, MQPMO_PASS_IDENTITY_CONTEXT=0x100,
    MQPMO_PASS_ALL_CONTEXT=0x200, MQPMO_SET_IDENTITY_CONTEXT=0x400,
    MQPMO_SET_ALL_CONTEXT=0x800, MQPMO_ALTERNATE_USER_AUTHORITY=0x1000,
    MQPMO_FAIL_IF_QUIESCING=0x2000, MQPMO_NO_CONTEXT=0x4000, MQPMO_LOGICAL_ORDER=0x8000,
    MQACTP_NEW=0, MQACTP_FORWARD=1, MQACTP_REPLY=2, MQACTP_REPORT=3,
    # connect options
    MQCNO_NONE=0, MQCNO_STANDARD_BINDING=0, MQCNO_FASTPATH_BINDING=0x1,
    MQCNO_HANDLE_SHARE_NONE=0x20, MQCNO_HANDLE_SHARE_BLOCK=0x40,
    MQCNO_HANDLE_SHARE_NO_BLOCK=0x80, MQCNO_SHARED_BINDING=0x100,
    MQCNO_ISOLATED_BINDING=0x200, MQCNO_LOCAL_BINDING=0x400, MQCNO_CLIENT_BINDING=0x800,
    MQCNO_RECONNECT_AS_DEF=0, MQCNO_RECONNECT=0x1000000, MQCNO_RECONNECT_DISABLED=0x2000000,
    MQCNO_RECONNECT_Q_MGR=0x4000000,
    MQCSP_AUTH_NONE=0, MQCSP_AUTH_USER_ID_AND_PWD=1,
    # inquiry
    MQCA_DEAD_LETTER_Q_NAME=2006, MQCA_Q_MGR_NAME=2015, MQCA_Q_NAME=2016,
    MQIA_CODED_CHAR_SET_ID=2, MQIA_CURRENT_Q_DEPTH=3, MQIA_INHIBIT_GET=9,
    MQIA_INHIBIT_PUT=10, MQIA_MAX_MSG_LENGTH=13, MQIA_MAX_Q_DEPTH=15,
    MQQA_GET_ALLOWED=0, MQQA_GET_INHIBITED=1, MQQA_PUT_ALLOWED=0, MQQA_PUT_INHIBITED=1,
    MQRC_NONE=0,
)
CMQXC = types.SimpleNamespace(MQCHT_CLNTCONN=6, MQXPT_TCP=2)


def flag_names(value: int, prefix: str) -> set[str]:
    """The CMQC names with ``prefix`` whose (non-zero, single-bit) value is set in ``value``."""
    names = set()
    for name, bit in vars(CMQC).items():
        if name.startswith(prefix) and bit > 0 and bit & (bit - 1) == 0 and value & bit:
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
        "Version": 4, "Options": 0, "WaitInterval": 0, "MatchOptions": 3, "MsgHandle": 0}


class PMO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "Version": 3, "Options": 0, "Context": 0, "OriginalMsgHandle": 0, "NewMsgHandle": 0,
        "Action": 0}


class OD(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "ObjectType": 1, "ObjectName": b"", "ObjectQMgrName": b"", "AlternateUserId": b""}


class CD(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "ChannelName": b"", "ConnectionName": b"", "ChannelType": 0, "TransportType": 0,
        "SSLCipherSpec": b""}


class CNO(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {"Options": 0}


class CSP(_Struct):
    DEFAULTS: ClassVar[dict[str, Any]] = {
        "AuthenticationType": 0, "CSPUserId": None, "CSPPassword": None}


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
            CMQC.MQCA_Q_MGR_NAME: b"QM1".ljust(48), CMQC.MQCA_DEAD_LETTER_Q_NAME:
            b"SYSTEM.DEAD.LETTER.QUEUE".ljust(48), CMQC.MQIA_CODED_CHAR_SET_ID: 1208}
        self.queue_attrs: dict[str, dict[int, int]] = {}
        self._hconn = itertools.count(1)
        self._hobj = itertools.count(101)
        self._hmsg = itertools.count(9001)
        self._msgids = itertools.count(1)
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

        class QueueManager:
            def __init__(self, name: object = "") -> None:
                assert name is None, "the adapter connects explicitly"
                self.hconn = 0

            def connect_with_options(self, name: bytes, **kw: Any) -> None:
                snap = {k: (v.snapshot() if isinstance(v, _Struct) else v)
                        for k, v in kw.items()}
                fake._record("MQCONNX", name.decode(), **snap)
                self.hconn = next(fake._hconn)

            def get_handle(self) -> int:
                return self.hconn

            def commit(self) -> None:
                fake._record("MQCMIT")

            def backout(self) -> None:
                fake._record("MQBACK")

            def disconnect(self) -> None:
                fake._record("MQDISC")

            def put1(self, od: OD, msg: bytes, md: MD, pmo: PMO) -> None:
                fake._record("MQPUT1", od.ObjectName.decode(), od=od.snapshot(),
                             md=md.snapshot(), pmo=pmo.snapshot(), body=msg)
                fake._fill_put(md, pmo)

            def inquire(self, selectors: list[int]) -> dict[int, Any]:
                fake._record("MQINQ", "qmgr", selectors=list(selectors))
                return {s: fake.qmgr_attrs[s] for s in selectors}

        class Queue:
            def __init__(self, qm: QueueManager, od: OD, options: int) -> None:
                self.name = od.ObjectName.decode()
                fake._record("MQOPEN", self.name, options=options, hconn=qm.hconn)
                self.hobj = next(fake._hobj)

            def get_handle(self) -> int:
                return self.hobj

            def get(self, max_length: int, md: MD, gmo: GMO) -> bytes:
                fake._record("MQGET", self.name, options=gmo.Options, wait=gmo.WaitInterval,
                             match=gmo.MatchOptions, msg_handle=gmo.MsgHandle,
                             length=max_length, md=md.snapshot(), hobj=self.hobj)
                if gmo.Options & CMQC.MQGMO_UNLOCK:
                    return b""
                pending = fake.messages.get(self.name)
                if not pending:
                    raise MQMIError(MQCC_FAILED, 2033)
                msg = pending[0]
                for k, v in ibm_md_fields(msg.md).items():
                    setattr(md, k, v)
                if len(msg.body) > max_length:
                    raise MQMIError(MQCC_WARNING, 2080, original_length=len(msg.body),
                                    message=msg.body[:max_length])
                pending.popleft()
                return msg.body

            def put(self, msg: bytes, md: MD, pmo: PMO) -> None:
                fake._record("MQPUT", self.name, md=md.snapshot(), pmo=pmo.snapshot(),
                             body=msg, hobj=self.hobj)
                fake._fill_put(md, pmo)

            def inquire(self, selectors: list[int]) -> dict[int, Any]:
                fake._record("MQINQ", self.name, selectors=list(selectors))
                attrs = fake.queue_attrs.get(self.name, {})
                return {s: attrs.get(s, 0) for s in selectors}

            def close(self) -> None:
                fake._record("MQCLOSE", self.name, hobj=self.hobj)

        class MessageHandle:
            def __init__(self, qm: QueueManager) -> None:
                fake._record("MQCRTMH", hconn=qm.hconn)
                self.hmsg = next(fake._hmsg)

            def get_handle(self) -> int:
                return self.hmsg

        module = types.ModuleType("ibmmq")
        for name, value in {
            "CMQC": CMQC, "CMQXC": CMQXC, "MQMIError": MQMIError, "PYIFError": PYIFError,
            "MD": MD, "GMO": GMO, "PMO": PMO, "OD": OD, "CD": CD, "CNO": CNO, "CSP": CSP,
            "SCO": SCO, "QueueManager": QueueManager, "Queue": Queue,
            "MessageHandle": MessageHandle,
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
