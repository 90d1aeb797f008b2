"""MQDLH, the dead-letter header (version 1, always 172 bytes).

The MQDLH sits at the start of a dead-lettered message's data. Its own integers
and text are in the Encoding and CCSID of the MQMD (the structure before it);
its Encoding, CodedCharSetId and Format fields describe the data *after* it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.mq._struct import Field, Layout
from dlqhandler.mq.ccsid import int_order

__all__ = [
    "MQDLH",
    "MQDLH_LENGTH_1",
    "MQDLH_STRUC_ID",
    "MQFMT_DEAD_LETTER_HEADER",
    "decode_mqdlh",
    "encode_mqdlh",
]

MQDLH_STRUC_ID = "DLH "
MQDLH_LENGTH_1 = 172
MQFMT_DEAD_LETTER_HEADER = "MQDEAD"  # canonical form of "MQDEAD  "
MQCCSI_INHERIT = -2

LAYOUT = Layout(
    "MQDLH",
    (
        Field("struc_id", "StrucId", "char", 4),
        Field("version", "Version", "long"),
        Field("reason", "Reason", "long"),
        Field("dest_q_name", "DestQName", "char", 48),
        Field("dest_q_mgr_name", "DestQMgrName", "char", 48),
        Field("encoding", "Encoding", "long"),
        Field("coded_char_set_id", "CodedCharSetId", "long"),
        Field("format", "Format", "char", 8),
        Field("put_appl_type", "PutApplType", "long"),
        Field("put_appl_name", "PutApplName", "char", 28),
        Field("put_date", "PutDate", "char", 8),
        Field("put_time", "PutTime", "char", 8),
    ),
)
assert LAYOUT.size == MQDLH_LENGTH_1
FIELD_LENGTHS: dict[str, int] = {f.attr: f.length for f in LAYOUT.fields}


@dataclass(frozen=True, slots=True)
class MQDLH:
    """A decoded dead-letter header (canonical text, integers as stored)."""

    reason: int = 0
    dest_q_name: str = ""
    dest_q_mgr_name: str = ""
    encoding: int = 546
    coded_char_set_id: int = 0
    format: str = ""
    put_appl_type: int = 0
    put_appl_name: str = ""
    put_date: str = ""
    put_time: str = ""
    version: int = 1

    def replace(self, **changes: Any) -> MQDLH:
        return dataclasses.replace(self, **changes)


def encode_mqdlh(dlh: MQDLH, *, encoding: int, ccsid: int) -> bytes:
    """The 172-byte image of ``dlh`` in the given (MQMD) encoding and CCSID."""
    values = {f.name: getattr(dlh, f.name) for f in dataclasses.fields(dlh)}
    values["struc_id"] = MQDLH_STRUC_ID
    return LAYOUT.pack(values, int_order(encoding), ccsid)


def decode_mqdlh(body: bytes, *, encoding: int, ccsid: int) -> MQDLH:
    """Decode the MQDLH at the start of ``body``.

    Raises :class:`MalformedMessageError` (keeping ``body``) when the data does
    not start with a valid version-1 MQDLH or is shorter than 172 bytes, the
    same checks runmqdlq applies.
    """
    if len(body) < MQDLH_LENGTH_1:
        raise MalformedMessageError(
            f"message data is {len(body)} bytes, shorter than an MQDLH (172)",
            raw=bytes(body),
            offset=len(body),
        )
    try:
        order = int_order(encoding, version_probe=bytes(body[4:8]))
        values = LAYOUT.values(body, order, ccsid)
    except DecodeError as exc:
        raise MalformedMessageError(
            f"MQDLH not decodable: {exc}", raw=bytes(body), offset=exc.offset
        ) from exc
    struc_id, version, *fields = values
    fields.append(version)  # MQDLH's last field
    if struc_id != MQDLH_STRUC_ID.rstrip():
        raise MalformedMessageError(
            f"data does not start with an MQDLH (StrucId is {bytes(body[:4])!r}, "
            f"expected 'DLH ' in CCSID {ccsid})",
            raw=bytes(body),
            offset=0,
        )
    if version != 1:
        raise MalformedMessageError(f"MQDLH Version {version} is not 1", raw=bytes(body), offset=4)
    if fields[_CCSID] == MQCCSI_INHERIT:
        fields[_CCSID] = ccsid
    return MQDLH(*fields)


# Positional construction: the layout's fields after StrucId and Version are MQDLH's
# fields in order, and Version is MQDLH's last.
_CCSID = [f.attr for f in LAYOUT.fields[2:]].index("coded_char_set_id")
assert tuple(f.name for f in dataclasses.fields(MQDLH)) == (
    *(f.attr for f in LAYOUT.fields[2:]),
    "version",
), "MQDLH's fields must follow its layout"
