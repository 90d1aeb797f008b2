"""MQI structures as IBM's C headers lay them out on 64-bit Linux (natural alignment).

ctypes views over the caller's memory: ``MQGMO.from_address(ptr)`` reads and
writes the structure the ``ibmmq`` extension passed, in place. Character and
byte fields are ``c_ubyte`` arrays (read them with :func:`raw`, write with
:func:`put`) so that neither NULs nor blanks are lost. Only the versions and
fields the stand-in needs are declared; a caller's structure may be longer.
The MQMD image itself is encoded and decoded by :mod:`dlqhandler.mq.mqmd`.
"""

from __future__ import annotations

import ctypes
from ctypes import c_int32, c_int64, c_ubyte, c_void_p

__all__ = [
    "MQCD",
    "MQCHARV",
    "MQCNO",
    "MQCSP",
    "MQDMPO",
    "MQGMO",
    "MQIMPO",
    "MQOD",
    "MQPD",
    "MQPMO",
    "MQSCO",
    "MQSMPO",
    "put",
    "raw",
    "text",
]

L = c_int32  # MQLONG


def _chars(n: int) -> type[ctypes.Array[c_ubyte]]:
    return c_ubyte * n


class MQGMO(ctypes.Structure):
    """MQGMO up to version 4 (MsgHandle)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("WaitInterval", L),
        ("Signal1", L),
        ("Signal2", L),
        ("ResolvedQName", _chars(48)),
        # version 2
        ("MatchOptions", L),
        ("GroupStatus", _chars(1)),
        ("SegmentStatus", _chars(1)),
        ("Segmentation", _chars(1)),
        ("Reserved1", _chars(1)),
        ("MsgToken", _chars(16)),
        ("ReturnedLength", L),
        # version 4
        ("Reserved2", L),
        ("MsgHandle", c_int64),
    ]


class MQPMO(ctypes.Structure):
    """MQPMO up to version 3 (message handles)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("Timeout", L),
        ("Context", L),
        ("KnownDestCount", L),
        ("UnknownDestCount", L),
        ("InvalidDestCount", L),
        ("ResolvedQName", _chars(48)),
        ("ResolvedQMgrName", _chars(48)),
        # version 2
        ("RecsPresent", L),
        ("PutMsgRecFields", L),
        ("PutMsgRecOffset", L),
        ("ResponseRecOffset", L),
        ("PutMsgRecPtr", c_void_p),
        ("ResponseRecPtr", c_void_p),
        # version 3
        ("OriginalMsgHandle", c_int64),
        ("NewMsgHandle", c_int64),
        ("Action", L),
        ("PubLevel", L),
    ]


class MQOD(ctypes.Structure):
    """MQOD up to version 3 (the name fields; version 4 adds object strings)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("ObjectType", L),
        ("ObjectName", _chars(48)),
        ("ObjectQMgrName", _chars(48)),
        ("DynamicQName", _chars(48)),
        ("AlternateUserId", _chars(12)),
        # version 2
        ("RecsPresent", L),
        ("KnownDestCount", L),
        ("UnknownDestCount", L),
        ("InvalidDestCount", L),
        ("ObjectRecOffset", L),
        ("ResponseRecOffset", L),
        ("ObjectRecPtr", c_void_p),
        ("ResponseRecPtr", c_void_p),
        # version 3
        ("AlternateSecurityId", _chars(40)),
        ("ResolvedQName", _chars(48)),
        ("ResolvedQMgrName", _chars(48)),
    ]


class MQCNO(ctypes.Structure):
    """MQCNO up to version 7 (ApplName)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("ClientConnOffset", L),
        ("ClientConnPtr", c_void_p),
        ("ConnTag", _chars(128)),
        ("SSLConfigPtr", c_void_p),
        ("SSLConfigOffset", L),
        ("ConnectionId", _chars(24)),
        ("SecurityParmsOffset", L),
        ("SecurityParmsPtr", c_void_p),
        # version 6
        ("CCDTUrlPtr", c_void_p),
        ("CCDTUrlOffset", L),
        ("CCDTUrlLength", L),
        ("Reserved", _chars(8)),
        # version 7
        ("ApplName", _chars(28)),
        ("Reserved2", _chars(4)),
    ]


class MQCSP(ctypes.Structure):
    """MQCSP version 1: authentication type, user id and password by pointer and length."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("AuthenticationType", L),
        ("Reserved1", _chars(4)),
        ("CSPUserIdPtr", c_void_p),
        ("CSPUserIdOffset", L),
        ("CSPUserIdLength", L),
        ("Reserved2", _chars(8)),
        ("CSPPasswordPtr", c_void_p),
        ("CSPPasswordOffset", L),
        ("CSPPasswordLength", L),
    ]


class MQSCO(ctypes.Structure):
    """MQSCO up to version 5 (CertificateLabel)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("KeyRepository", _chars(256)),
        ("CryptoHardware", _chars(256)),
        ("AuthInfoRecCount", L),
        ("AuthInfoRecOffset", L),
        ("AuthInfoRecPtr", c_void_p),
        # version 2..5
        ("KeyResetCount", L),
        ("FipsRequired", L),
        ("EncryptionPolicySuiteB", L * 4),
        ("CertificateValPolicy", L),
        ("CertificateLabel", _chars(64)),
    ]


class MQCHARV(ctypes.Structure):
    """MQCHARV: a variable-length string by pointer (a property name)."""

    _fields_ = [
        ("VSPtr", c_void_p),
        ("VSOffset", L),
        ("VSBufSize", L),
        ("VSLength", L),
        ("VSCCSID", L),
    ]


class MQSMPO(ctypes.Structure):
    """MQSMPO version 1 (MQSETMP options)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("ValueEncoding", L),
        ("ValueCCSID", L),
    ]


class MQIMPO(ctypes.Structure):
    """MQIMPO version 1 (MQINQMP options; ReturnedName receives a wildcard's match)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("RequestedEncoding", L),
        ("RequestedCCSID", L),
        ("ReturnedEncoding", L),
        ("ReturnedCCSID", L),
        ("Reserved1", L),
        ("ReturnedName", MQCHARV),
        ("TypeString", _chars(8)),
    ]


class MQDMPO(ctypes.Structure):
    """MQDMPO version 1 (MQDLTMP options)."""

    _fields_ = [("StrucId", _chars(4)), ("Version", L), ("Options", L)]


class MQPD(ctypes.Structure):
    """MQPD version 1 (a property descriptor)."""

    _fields_ = [
        ("StrucId", _chars(4)),
        ("Version", L),
        ("Options", L),
        ("Support", L),
        ("Context", L),
        ("CopyOptions", L),
    ]


_EXIT = 128  # MQ_EXIT_NAME_LENGTH on Linux


class MQCD(ctypes.Structure):
    """MQCD (cmqxc.h) up to version 7's TLS fields (SSLCipherSpec, SSLPeerName)."""

    _fields_ = [
        ("ChannelName", _chars(20)),
        ("Version", L),
        ("ChannelType", L),
        ("TransportType", L),
        ("Desc", _chars(64)),
        ("QMgrName", _chars(48)),
        ("XmitQName", _chars(48)),
        ("ShortConnectionName", _chars(20)),
        ("MCAName", _chars(20)),
        ("ModeName", _chars(8)),
        ("TpName", _chars(64)),
        ("BatchSize", L),
        ("DiscInterval", L),
        ("ShortRetryCount", L),
        ("ShortRetryInterval", L),
        ("LongRetryCount", L),
        ("LongRetryInterval", L),
        ("SecurityExit", _chars(_EXIT)),
        ("MsgExit", _chars(_EXIT)),
        ("SendExit", _chars(_EXIT)),
        ("ReceiveExit", _chars(_EXIT)),
        ("SeqNumberWrap", L),
        ("MaxMsgLength", L),
        ("PutAuthority", L),
        ("DataConversion", L),
        ("SecurityUserData", _chars(32)),
        ("MsgUserData", _chars(32)),
        ("SendUserData", _chars(32)),
        ("ReceiveUserData", _chars(32)),
        # version 2
        ("UserIdentifier", _chars(12)),
        ("Password", _chars(12)),
        ("MCAUserIdentifier", _chars(12)),
        ("MCAType", L),
        ("ConnectionName", _chars(264)),
        ("RemoteUserIdentifier", _chars(12)),
        ("RemotePassword", _chars(12)),
        # version 3
        ("MsgRetryExit", _chars(_EXIT)),
        ("MsgRetryUserData", _chars(32)),
        ("MsgRetryCount", L),
        ("MsgRetryInterval", L),
        # version 4
        ("HeartbeatInterval", L),
        ("BatchInterval", L),
        ("NonPersistentMsgSpeed", L),
        ("StrucLength", L),
        ("ExitNameLength", L),
        ("ExitDataLength", L),
        ("MsgExitsDefined", L),
        ("SendExitsDefined", L),
        ("ReceiveExitsDefined", L),
        ("MsgExitPtr", c_void_p),
        ("MsgUserDataPtr", c_void_p),
        ("SendExitPtr", c_void_p),
        ("SendUserDataPtr", c_void_p),
        ("ReceiveExitPtr", c_void_p),
        ("ReceiveUserDataPtr", c_void_p),
        # version 5
        ("ClusterPtr", c_void_p),
        ("ClustersDefined", L),
        ("NetworkPriority", L),
        # version 6
        ("LongMCAUserIdLength", L),
        ("LongRemoteUserIdLength", L),
        ("LongMCAUserIdPtr", c_void_p),
        ("LongRemoteUserIdPtr", c_void_p),
        ("MCASecurityId", _chars(40)),
        ("RemoteSecurityId", _chars(40)),
        # version 7
        ("SSLCipherSpec", _chars(32)),
        ("SSLPeerNamePtr", c_void_p),
        ("SSLPeerNameLength", L),
        ("SSLClientAuth", L),
    ]


def raw(struct: ctypes.Structure, name: str) -> bytes:
    """The exact bytes of a character or byte field."""
    return bytes(getattr(struct, name))


def text(struct: ctypes.Structure, name: str) -> str:
    """A character field as MQ compares it: up to the first NUL, trailing blanks removed."""
    return raw(struct, name).split(b"\x00", 1)[0].decode("latin-1").rstrip(" ")


def put(struct: ctypes.Structure, name: str, value: bytes, pad: bytes = b" ") -> None:
    """Write a character field, padded with ``pad`` to its full length."""
    field = getattr(struct, name)
    data = value[: len(field)].ljust(len(field), pad)
    ctypes.memmove(ctypes.addressof(field), data, len(field))


def string_at(ptr: int | None, length: int) -> bytes:
    """``length`` bytes at ``ptr`` (a pointer field of the caller's structure)."""
    return ctypes.string_at(ptr, length) if ptr and length > 0 else b""
