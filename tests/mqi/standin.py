"""The MQI behind the stand-in ``libmqm_r.so``: IBM's calls on the embedded queue manager.

Importing this module registers one ctypes callback per MQI verb with the
stand-in library (which must already be loaded: :func:`tests.mqi.build.load`
does it in a test process; ``LD_LIBRARY_PATH`` in a child process, where the
library imports this module at its first call). Each callback receives the C
arguments exactly as ``ibmmq.ibmmqc`` passed them, reads the caller's MQI
structures in place (:mod:`tests.mqi.structs`), carries the call out through
the ``QueueManager`` port of an embedded queue manager, writes the output
fields back and sets the completion and reason codes.

:data:`STANDIN` holds the state a test configures and inspects: which home and
clock connections use, accepted passwords, the recorded MQCONNX parameters
(:class:`ConnectRecord`), the faults to inject (:class:`tests.mqi.faults.Faults`)
and any unexpected Python error (which a call reports as MQRC_UNEXPECTED_ERROR).
Message handles are the port's (:class:`dlqhandler.mq.properties.MessageHandle`): an
MQGET with one receives the message's properties as the embedded queue manager
delivers them (MQGMO_PROPERTIES_*, the queue's PROPCTL), an MQPUT passes
MQPMO.OriginalMsgHandle/NewMsgHandle/Action on; MQSETMP, MQINQMP and MQDLTMP are the
handle's own calls (:mod:`tests.mqi.props`). What the port cannot do is refused
as IBM documents: publish/subscribe,
asynchronous consume, MQSET, MQSTAT and MQBEGIN return MQRC_FUNCTION_NOT_SUPPORTED.
"""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_BACKED_OUT,
    MQRC_CMHO_ERROR,
    MQRC_CONNECTION_BROKEN,
    MQRC_DMHO_ERROR,
    MQRC_FUNCTION_NOT_SUPPORTED,
    MQRC_HCONN_ERROR,
    MQRC_HMSG_ERROR,
    MQRC_HOBJ_ERROR,
    MQRC_NOT_AUTHORIZED,
    MQRC_OBJECT_TYPE_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_UNEXPECTED_ERROR,
)
from dlqhandler.qmgr.embedded import connect
from tests.mqi import messages, props
from tests.mqi.cmqc import CMQC
from tests.mqi.faults import Faults
from tests.mqi.options import check_close, check_open
from tests.mqi.state import Conn, Obj
from tests.mqi.structs import MQCD, MQCNO, MQCSP, MQOD, MQSCO, put, raw, string_at, text

__all__ = ["STANDIN", "ConnectRecord", "StandIn"]

_I32 = ctypes.c_int32
_I64 = ctypes.c_int64
_OK = (CMQC.MQCC_OK, 0)


def _set(ptr: int | None, value: int, kind: type[ctypes._SimpleCData[int]] = _I32) -> None:
    if ptr:
        kind.from_address(ptr).value = value


@dataclass(frozen=True)
class ConnectRecord:
    """What one MQCONNX received: the MQCNO and the MQCD, MQSCO and MQCSP it points to."""

    qmgr: str
    options: int
    cno_version: int
    appl_name: str
    channel: dict[str, Any] | None
    sco: dict[str, Any] | None
    auth_type: int | None
    user: str | None
    password: str | None = field(repr=False)


@dataclass
class StandIn:
    """The process's stand-in queue manager client state."""

    home: Path | None = None
    clock: Callable[[], float] | None = None
    passwords: dict[str, str] = field(default_factory=dict)
    connects: list[ConnectRecord] = field(default_factory=list)
    faults: Faults = field(default_factory=Faults)
    errors: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    _conns: dict[int, Conn] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def reset(
        self,
        *,
        home: Path | None = None,
        clock: Callable[[], float] | None = None,
        passwords: dict[str, str] | None = None,
    ) -> None:
        """Forget everything (connections are disconnected) and use this home and clock."""
        with self._lock:
            for conn in list(self._conns.values()):
                if not conn.broken:
                    conn.drop()
            self._conns.clear()
            self.home, self.clock = home, clock
            self.passwords = dict(passwords or {})
            self.connects.clear()
            self.errors.clear()
            self.calls.clear()
            self.faults.clear()

    @property
    def connections(self) -> int:
        """How many connections are open."""
        return len(self._conns)

    # -- plumbing --------------------------------------------------------------------------
    def call(
        self,
        verb: str,
        pcc: int,
        prc: int,
        body: Callable[[], tuple[int, int]],
        hconn: int | None = None,
    ) -> None:
        """Run one verb: faults first, then ``body``; MQIError -> its codes."""
        self.calls[verb] = self.calls.get(verb, 0) + 1
        try:
            cc, rc = self._fault(verb, hconn) or body()
        except MQIError as exc:
            cc, rc = exc.comp, exc.reason
        except Exception:  # the caller is C: report, never raise through ctypes
            self.errors.append(f"{verb}: {traceback.format_exc()}")
            print(self.errors[-1], file=sys.stderr)
            cc, rc = CMQC.MQCC_FAILED, MQRC_UNEXPECTED_ERROR
        _set(pcc, cc)
        _set(prc, rc)

    def _fault(self, verb: str, hconn: int | None) -> tuple[int, int] | None:
        reason = self.faults.take(verb)
        if not reason or reason == 2080:
            return None if not reason else self._truncation(verb)
        if reason == MQRC_CONNECTION_BROKEN and hconn is not None:
            conn = self._conns.get(hconn)
            if conn is not None and not conn.broken:
                commit = verb == "MQCMIT" and self.faults.coin()
                conn.break_off(commit=commit)
        if reason == MQRC_BACKED_OUT and verb == "MQCMIT" and hconn is not None:
            # IBM's MQCMIT 2003: the commit failed and the unit of work was backed out,
            # MQCC_WARNING (the embedded queue manager's disk-full path answers the same)
            self.conn(hconn).qm.backout()
            return CMQC.MQCC_WARNING, reason
        return CMQC.MQCC_FAILED, reason

    def _truncation(self, verb: str) -> None:
        if verb == "MQGET":
            messages.FORCE_TRUNCATION.flag = True
        return

    def conn(self, hconn: int) -> Conn:
        conn = self._conns.get(hconn)
        if conn is None:
            raise MQIError(MQRC_HCONN_ERROR, comp=CMQC.MQCC_FAILED)
        if conn.broken:
            raise MQIError(MQRC_CONNECTION_BROKEN, comp=CMQC.MQCC_FAILED)
        return conn

    # -- connections -------------------------------------------------------------------------
    def connx(self, pname: int, pcno: int | None, phconn: int) -> tuple[int, int]:
        name = ctypes.string_at(pname)[:48].decode("latin-1").strip() if pname else ""
        cno = MQCNO.from_address(pcno) if pcno else None
        version = cno.Version if cno is not None else 0
        channel = sco = None
        auth = user = password = None
        appl = ""
        if cno is not None:
            if version >= 2 and cno.ClientConnPtr:
                channel = _channel(MQCD.from_address(cno.ClientConnPtr))
            if version >= 4 and cno.SSLConfigPtr:
                s = MQSCO.from_address(cno.SSLConfigPtr)
                sco = {
                    "Version": s.Version,
                    "KeyRepository": text(s, "KeyRepository"),
                    "CertificateLabel": text(s, "CertificateLabel") if s.Version >= 5 else "",
                }
            if version >= 5 and cno.SecurityParmsPtr:
                csp = MQCSP.from_address(cno.SecurityParmsPtr)
                auth = csp.AuthenticationType
                if auth == CMQC.MQCSP_AUTH_USER_ID_AND_PWD:
                    user = string_at(csp.CSPUserIdPtr, csp.CSPUserIdLength).decode("latin-1")
                    password = string_at(csp.CSPPasswordPtr, csp.CSPPasswordLength).decode(
                        "latin-1"
                    )
            if version >= 7:
                appl = text(cno, "ApplName")
        self.connects.append(
            ConnectRecord(
                name,
                cno.Options if cno is not None else 0,
                version,
                appl,
                channel,
                sco,
                auth,
                user,
                password,
            )
        )
        if user is not None and user in self.passwords and self.passwords[user] != password:
            return CMQC.MQCC_FAILED, MQRC_NOT_AUTHORIZED
        qm = connect(
            name or None,
            home=self.home,
            user=user or None,
            appl_name=appl or None,
            clock=self.clock,
        )
        with self._lock:
            hconn = next(self._ids)
            self._conns[hconn] = Conn(hconn, qm)
        _set(phconn, hconn)
        return _OK

    def disc(self, phconn: int) -> tuple[int, int]:
        hconn = _I32.from_address(phconn).value
        with self._lock:
            conn = self._conns.pop(hconn, None)
        if conn is None:
            return CMQC.MQCC_FAILED, MQRC_HCONN_ERROR
        _set(phconn, CMQC.MQHC_UNUSABLE_HCONN)
        if conn.broken:
            return CMQC.MQCC_FAILED, MQRC_CONNECTION_BROKEN
        conn.close(commit=True)  # a normal MQDISC commits the unit of work
        return _OK

    def cmit(self, hconn: int) -> tuple[int, int]:
        self.conn(hconn).qm.commit()
        return _OK

    def back(self, hconn: int) -> tuple[int, int]:
        self.conn(hconn).qm.backout()
        return _OK

    # -- objects -------------------------------------------------------------------------------
    def open(self, hconn: int, pod: int, options: int, phobj: int) -> tuple[int, int]:
        conn = self.conn(hconn)
        od = MQOD.from_address(pod)
        check_open(od, options)
        if od.ObjectType == CMQC.MQOT_Q_MGR:
            if options & CMQC.MQOO_INQUIRE:  # inq on the queue manager (IBM's 2035)
                conn.qm.inquire_object("qmgr", conn.qm.name, [])
            obj = Obj(conn.next_hobj(), "qmgr", conn.qm.name, options)
        elif od.ObjectType == CMQC.MQOT_Q:
            obj = conn.open_queue(
                text(od, "ObjectName"),
                options,
                text(od, "AlternateUserId")
                if options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY
                else None,
                text(od, "ObjectQMgrName"),
                dynamic_name=raw(od, "DynamicQName").split(b"\x00", 1)[0].decode("latin-1"),
            )
            if obj.created:  # a model queue: the name of the dynamic queue it made
                put(od, "ObjectName", obj.created.encode("latin-1"))
                put(od, "ObjectQMgrName", conn.qm.name.encode("latin-1"))
            if od.Version >= 3:
                resolved = obj.resolved or (obj.name, conn.qm.name)
                put(od, "ResolvedQName", resolved[0].encode("latin-1"))
                put(od, "ResolvedQMgrName", resolved[1].encode("latin-1"))
        elif od.ObjectType == CMQC.MQOT_PROCESS:  # MQOO_INQUIRE only; it must exist
            if options & ~(CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING):
                return CMQC.MQCC_FAILED, MQRC_OPTION_NOT_VALID_FOR_TYPE
            name = text(od, "ObjectName")
            conn.qm.inquire_object("process", name, [])
            obj = Obj(conn.next_hobj(), "process", name, options)
        else:
            return CMQC.MQCC_FAILED, MQRC_OBJECT_TYPE_ERROR
        conn.objects[obj.hobj] = obj
        _set(phobj, obj.hobj)
        return _OK

    def close(self, hconn: int, phobj: int, options: int) -> tuple[int, int]:
        conn = self.conn(hconn)
        if _I32.from_address(phobj).value not in conn.objects:
            return CMQC.MQCC_FAILED, MQRC_HOBJ_ERROR
        delete = check_close(options)  # (the handle stays open when the call fails)
        obj = conn.objects[_I32.from_address(phobj).value]
        # IBM 2242/2241 on MQCLOSE: logical-order puts or gets left a logical message or a
        # group unfinished (2242 "in preference to" 2241).
        unfinished = max(
            int(getattr(obj.queue, "unfinished_put", 0) or 0),
            int(getattr(obj.queue, "unfinished_get", 0) or 0),
        )
        obj.close(delete)  # (MQCO_DELETE refused: 2045 or 2055, and the handle stays open)
        del conn.objects[_I32.from_address(phobj).value]
        _set(phobj, CMQC.MQHO_UNUSABLE_HOBJ)
        return (CMQC.MQCC_WARNING, unfinished) if unfinished else _OK

    def crtmh(self, hconn: int, pcmho: int, phmsg: int) -> tuple[int, int]:
        conn = self.conn(hconn)
        if not pcmho or ctypes.string_at(pcmho, 4) != b"CMHO":
            return CMQC.MQCC_FAILED, MQRC_CMHO_ERROR
        handle = conn.new_message_handle()
        _set(phmsg, handle, _I64)
        return _OK

    def dltmh(self, hconn: int, phmsg: int, pdmho: int) -> tuple[int, int]:
        conn = self.conn(hconn)
        if not pdmho or ctypes.string_at(pdmho, 4) != b"DMHO":
            return CMQC.MQCC_FAILED, MQRC_DMHO_ERROR
        handle = conn.message_handles.pop(_I64.from_address(phmsg).value, None)
        if handle is None:
            return CMQC.MQCC_FAILED, MQRC_HMSG_ERROR
        handle.delete()
        _set(phmsg, CMQC.MQHM_UNUSABLE_HMSG, _I64)
        return _OK


def _channel(cd: MQCD) -> dict[str, Any]:
    """The MQCD fields a client connection uses (TLS ones from version 7)."""
    out: dict[str, Any] = {
        "Version": cd.Version,
        "ChannelName": text(cd, "ChannelName"),
        "ChannelType": cd.ChannelType,
        "TransportType": cd.TransportType,
        "ConnectionName": text(cd, "ConnectionName")
        if cd.Version >= 2
        else text(cd, "ShortConnectionName"),
        "SSLCipherSpec": "",
    }
    if cd.Version >= 7:
        out["SSLCipherSpec"] = text(cd, "SSLCipherSpec")
        out["SSLPeerName"] = string_at(cd.SSLPeerNamePtr, cd.SSLPeerNameLength).decode("latin-1")
    out["raw_name"] = raw(cd, "ChannelName")
    return out


STANDIN = StandIn()
STANDIN.faults.load_env()

# -- the callbacks ---------------------------------------------------------------------------
_Fn = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * 12))
_VERBS = (
    "MQCONN",
    "MQCONNX",
    "MQDISC",
    "MQOPEN",
    "MQCLOSE",
    "MQGET",
    "MQPUT",
    "MQPUT1",
    "MQCMIT",
    "MQBACK",
    "MQBEGIN",
    "MQINQ",
    "MQSET",
    "MQSTAT",
    "MQCRTMH",
    "MQDLTMH",
    "MQSETMP",
    "MQINQMP",
    "MQDLTMP",
    "MQSUB",
    "MQSUBRQ",
    "MQCB",
    "MQCTL",
)
# Where each verb's CompCode and Reason pointers are among its arguments.
_CODES = {
    "MQCONN": (2, 3),
    "MQCONNX": (3, 4),
    "MQDISC": (1, 2),
    "MQOPEN": (4, 5),
    "MQCLOSE": (3, 4),
    "MQGET": (7, 8),
    "MQPUT": (6, 7),
    "MQPUT1": (6, 7),
    "MQCMIT": (1, 2),
    "MQBACK": (1, 2),
    "MQBEGIN": (2, 3),
    "MQINQ": (8, 9),
    "MQSET": (8, 9),
    "MQSTAT": (3, 4),
    "MQCRTMH": (3, 4),
    "MQDLTMH": (3, 4),
    "MQSETMP": (8, 9),
    "MQINQMP": (9, 10),
    "MQDLTMP": (4, 5),
    "MQSUB": (4, 5),
    "MQSUBRQ": (4, 5),
    "MQCB": (6, 7),
    "MQCTL": (3, 4),
}


def _signed(value: int | None) -> int:
    """An MQLONG passed by value in a pointer-sized slot."""
    v = (value or 0) & 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _dispatch(verb: str, a: list[int]) -> tuple[Callable[[], tuple[int, int]], int | None]:
    s = STANDIN
    if verb == "MQCONN":
        return (lambda: s.connx(a[0], None, a[1])), None
    if verb == "MQCONNX":
        return (lambda: s.connx(a[0], a[1], a[2])), None
    if verb == "MQDISC":
        return (lambda: s.disc(a[0])), (_I32.from_address(a[0]).value if a[0] else None)
    hconn = _signed(a[0])
    table: dict[str, Callable[[], tuple[int, int]]] = {
        "MQOPEN": lambda: s.open(hconn, a[1], _signed(a[2]), a[3]),
        "MQCLOSE": lambda: s.close(hconn, a[1], _signed(a[2])),
        "MQGET": lambda: messages.get(
            s.conn(hconn), _signed(a[1]), a[2], a[3], _signed(a[4]), a[5], a[6]
        ),
        "MQPUT": lambda: messages.put(
            s.conn(hconn), _signed(a[1]), None, a[2], a[3], _signed(a[4]), a[5]
        ),
        "MQPUT1": lambda: messages.put(s.conn(hconn), None, a[1], a[2], a[3], _signed(a[4]), a[5]),
        "MQCMIT": lambda: s.cmit(hconn),
        "MQBACK": lambda: s.back(hconn),
        "MQINQ": lambda: messages.inquire(
            s.conn(hconn),
            _signed(a[1]),
            _signed(a[2]),
            a[3],
            _signed(a[4]),
            a[5],
            _signed(a[6]),
            a[7],
        ),
        "MQCRTMH": lambda: s.crtmh(hconn, a[1], a[2]),
        "MQDLTMH": lambda: s.dltmh(hconn, a[1], a[2]),
        "MQSETMP": lambda: props.setmp(
            s.conn(hconn), a[1], a[2], a[3], a[4], _signed(a[5]), _signed(a[6]), a[7]
        ),
        "MQINQMP": lambda: props.inqmp(
            s.conn(hconn), a[1], a[2], a[3], a[4], a[5], _signed(a[6]), a[7], a[8]
        ),
        "MQDLTMP": lambda: props.dltmp(s.conn(hconn), a[1], a[2], a[3]),
    }
    body = table.get(verb, lambda: (CMQC.MQCC_FAILED, MQRC_FUNCTION_NOT_SUPPORTED))
    return body, hconn


def _callback(verb: str) -> Any:
    cc_at, rc_at = _CODES[verb]

    def call(*args: int | None) -> None:
        a = [x or 0 for x in args]
        body, hconn = _dispatch(verb, a)
        STANDIN.call(verb, a[cc_at], a[rc_at], body, hconn)

    return _Fn(call)


def _register() -> list[Any]:
    try:  # already loaded (by tests.mqi.build.load, or as ibmmqc's dependency)
        lib = ctypes.CDLL("libmqm_r.so")
    except OSError:
        from tests.mqi.build import build

        lib = ctypes.CDLL(str(build()), mode=ctypes.RTLD_GLOBAL)
    lib.mqi_standin_register.argtypes = [ctypes.c_int, _Fn]
    callbacks = []
    for number, verb in enumerate(_VERBS):
        fn = _callback(verb)
        if lib.mqi_standin_register(number, fn) != 0:
            raise RuntimeError(f"the stand-in library does not know {verb}")
        callbacks.append(fn)
    return callbacks


_CALLBACKS = _register()  # kept alive as long as the module
