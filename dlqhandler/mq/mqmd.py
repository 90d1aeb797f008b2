"""MQMD, the message descriptor (version 1: 324 bytes, version 2: 364 bytes).

:class:`MQMD` is a frozen value object. Character fields hold their canonical
text (cut at the first NUL, trailing blanks removed), which is how MQ itself
compares them; binary fields (MsgId, CorrelId, AccountingToken, GroupId) hold
their exact bytes, padded to full length.

The binary image of an MQMD is in the queue manager's CCSID and native
encoding; :func:`encode_mqmd`/:func:`decode_mqmd` take both as arguments.
"""

from __future__ import annotations

import dataclasses
import operator
import struct
from dataclasses import dataclass
from typing import Any

from dlqhandler.errors import DecodeError
from dlqhandler.mq._struct import Field, Layout
from dlqhandler.mq.ccsid import QMGR_CCSID, int_order

__all__ = [
    "MQMD",
    "MQMD_LENGTH_1",
    "MQMD_LENGTH_2",
    "MQMD_STRUC_ID",
    "decode_mqmd",
    "encode_mqmd",
]

MQMD_STRUC_ID = "MD  "
MQMD_LENGTH_1 = 324
MQMD_LENGTH_2 = 364
MQENC_NATIVE = 546  # little-endian integers, as on x86-64 Linux

_V1_FIELDS = (
    Field("struc_id", "StrucId", "char", 4),
    Field("version", "Version", "long"),
    Field("report", "Report", "long"),
    Field("msg_type", "MsgType", "long"),
    Field("expiry", "Expiry", "long"),
    Field("feedback", "Feedback", "long"),
    Field("encoding", "Encoding", "long"),
    Field("coded_char_set_id", "CodedCharSetId", "long"),
    Field("format", "Format", "char", 8),
    Field("priority", "Priority", "long"),
    Field("persistence", "Persistence", "long"),
    Field("msg_id", "MsgId", "byte", 24),
    Field("correl_id", "CorrelId", "byte", 24),
    Field("backout_count", "BackoutCount", "long"),
    Field("reply_to_q", "ReplyToQ", "char", 48),
    Field("reply_to_q_mgr", "ReplyToQMgr", "char", 48),
    Field("user_identifier", "UserIdentifier", "char", 12),
    Field("accounting_token", "AccountingToken", "byte", 32),
    Field("appl_identity_data", "ApplIdentityData", "char", 32),
    Field("put_appl_type", "PutApplType", "long"),
    Field("put_appl_name", "PutApplName", "char", 28),
    Field("put_date", "PutDate", "char", 8),
    Field("put_time", "PutTime", "char", 8),
    Field("appl_origin_data", "ApplOriginData", "char", 4),
)
_V2_FIELDS = (
    Field("group_id", "GroupId", "byte", 24),
    Field("msg_seq_number", "MsgSeqNumber", "long"),
    Field("offset", "Offset", "long"),
    Field("msg_flags", "MsgFlags", "long"),
    Field("original_length", "OriginalLength", "long"),
)
LAYOUT_V1 = Layout("MQMD", _V1_FIELDS)
LAYOUT_V2 = Layout("MQMD", _V1_FIELDS + _V2_FIELDS)
assert LAYOUT_V1.size == MQMD_LENGTH_1
assert LAYOUT_V2.size == MQMD_LENGTH_2

# Field lengths by attribute, for validation and padding elsewhere.
FIELD_LENGTHS: dict[str, int] = {f.attr: f.length for f in LAYOUT_V2.fields}

_NONE24 = bytes(24)
_NONE32 = bytes(32)


@dataclass(frozen=True, slots=True)
class MQMD:
    """A message descriptor. Defaults follow ``MQMD_DEFAULT`` except Version 2."""

    version: int = 2
    report: int = 0
    msg_type: int = 8  # MQMT_DATAGRAM
    expiry: int = -1  # MQEI_UNLIMITED
    feedback: int = 0
    encoding: int = MQENC_NATIVE
    coded_char_set_id: int = 0  # MQCCSI_Q_MGR
    format: str = ""  # MQFMT_NONE
    priority: int = -1  # MQPRI_PRIORITY_AS_Q_DEF
    persistence: int = 2  # MQPER_PERSISTENCE_AS_Q_DEF
    msg_id: bytes = _NONE24
    correl_id: bytes = _NONE24
    backout_count: int = 0
    reply_to_q: str = ""
    reply_to_q_mgr: str = ""
    user_identifier: str = ""
    accounting_token: bytes = _NONE32
    appl_identity_data: str = ""
    put_appl_type: int = 0
    put_appl_name: str = ""
    put_date: str = ""
    put_time: str = ""
    appl_origin_data: str = ""
    group_id: bytes = _NONE24
    msg_seq_number: int = 1
    offset: int = 0
    msg_flags: int = 0
    original_length: int = -1

    def __post_init__(self) -> None:
        for name in ("msg_id", "correl_id", "group_id", "accounting_token"):
            value = getattr(self, name)
            size = FIELD_LENGTHS[name]
            if len(value) != size or type(value) is not bytes:
                if len(value) > size:
                    raise DecodeError(f"MQMD.{name} longer than {size} bytes")
                object.__setattr__(self, name, bytes(value).ljust(size, b"\x00"))

    def replace(self, **changes: Any) -> MQMD:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """Field name -> value, in layout order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def encode_mqmd(md: MQMD, *, encoding: int = MQENC_NATIVE, ccsid: int = QMGR_CCSID) -> bytes:
    """The binary image of ``md`` (324 bytes for version 1, 364 for version 2)."""
    layout = LAYOUT_V1 if md.version < 2 else LAYOUT_V2
    values = [MQMD_STRUC_ID, *_FIELD_VALUES(md)]
    return layout.pack_values(values[: len(layout.fields)], int_order(encoding), ccsid)


def decode_mqmd(
    raw: bytes, *, encoding: int = MQENC_NATIVE, ccsid: int = QMGR_CCSID, start: int = 0
) -> MQMD:
    """Decode an MQMD image; the Version field picks the layout."""
    if len(raw) - start < 8:
        raise DecodeError("MQMD truncated before Version", raw=bytes(raw), offset=len(raw))
    order = int_order(encoding, version_probe=bytes(raw[start + 4 : start + 8]))
    version = _VERSION[order].unpack_from(raw, start + 4)[0]
    layout = LAYOUT_V2 if version == 2 and len(raw) - start >= LAYOUT_V2.size else LAYOUT_V1
    values = layout.values(raw, order, ccsid, start=start)
    if values[0] != MQMD_STRUC_ID.rstrip():
        raise DecodeError(
            f"MQMD StrucId is {values[0]!r}, expected 'MD  '", raw=bytes(raw), offset=start
        )
    if version not in (1, 2):
        raise DecodeError(f"MQMD Version {version} is not 1 or 2", raw=bytes(raw), offset=start + 4)
    if version == 2 and layout is LAYOUT_V1:
        LAYOUT_V2.values(raw, order, ccsid, start=start)  # raises: truncated
    # Positional: the layout's fields after StrucId are MQMD's fields in order (checked
    # below); a version-1 image leaves the version-2 fields at their defaults.
    return MQMD(*values[1:])


_FIELD_VALUES = operator.attrgetter(*(f.attr for f in LAYOUT_V2.fields[1:]))
_VERSION = {order: struct.Struct(order + "i") for order in "<>"}
assert tuple(f.name for f in dataclasses.fields(MQMD)) == tuple(
    f.attr for f in LAYOUT_V2.fields[1:]
), "MQMD's fields must follow its layout"
