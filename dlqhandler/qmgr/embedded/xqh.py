"""MQXQH, the transmission queue header (version 1, 428 bytes, format ``MQXMIT``).

A message put to a queue on another queue manager waits on a transmission
queue with an MQXQH in front of its data: StrucId ``XQH ``, Version 1,
RemoteQName and RemoteQMgrName (48 characters each), then the message's own
descriptor as a version-1 MQMD (324 bytes). The outer MQMD of the message on
the transmission queue has Format ``MQXMIT``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from dlqhandler.errors import DecodeError
from dlqhandler.mq.ccsid import QMGR_CCSID, decode_text, encode_text, int_order
from dlqhandler.mq.mqmd import MQMD, MQMD_LENGTH_1, decode_mqmd, encode_mqmd

__all__ = [
    "MQFMT_XMIT_Q_HEADER",
    "MQXQH",
    "MQXQH_LENGTH_1",
    "decode_xqh",
    "encode_xqh",
    "for_transmission",
]

MQXQH_STRUC_ID = "XQH "
MQXQH_LENGTH_1 = 428
MQFMT_XMIT_Q_HEADER = "MQXMIT"  # canonical form of "MQXMIT  "
MQENC_NATIVE = 546
_HEAD = 4 + 4 + 48 + 48
assert _HEAD + MQMD_LENGTH_1 == MQXQH_LENGTH_1


@dataclass(frozen=True, slots=True)
class MQXQH:
    """A decoded transmission queue header."""

    remote_q_name: str
    remote_q_mgr_name: str
    md: MQMD


def encode_xqh(
    remote_q_name: str,
    remote_q_mgr_name: str,
    md: MQMD,
    *,
    encoding: int = MQENC_NATIVE,
    ccsid: int = QMGR_CCSID,
) -> bytes:
    """The 428-byte MQXQH for a message bound for ``remote_q_name`` at ``remote_q_mgr_name``."""
    order = int_order(encoding)
    head = struct.pack(
        f"{order}4si48s48s",
        encode_text(MQXQH_STRUC_ID, 4, ccsid),
        1,
        encode_text(remote_q_name, 48, ccsid, field="MQXQH.RemoteQName"),
        encode_text(remote_q_mgr_name, 48, ccsid, field="MQXQH.RemoteQMgrName"),
    )
    return head + encode_mqmd(md.replace(version=1), encoding=encoding, ccsid=ccsid)


def for_transmission(
    remote_q_name: str, remote_q_mgr_name: str, md: MQMD, data: bytes
) -> tuple[MQMD, bytes]:
    """The outer MQMD and the data of a message put on a transmission queue: Format
    ``MQXMIT`` (native encoding, CCSID 819) and an MQXQH carrying ``md`` in front."""
    header = encode_xqh(remote_q_name, remote_q_mgr_name, md)
    outer = md.replace(
        format=MQFMT_XMIT_Q_HEADER, encoding=MQENC_NATIVE, coded_char_set_id=QMGR_CCSID
    )
    return outer, header + data


def decode_xqh(
    raw: bytes, *, encoding: int = MQENC_NATIVE, ccsid: int = QMGR_CCSID
) -> tuple[MQXQH, bytes]:
    """Split a transmission-queue message's data into its MQXQH and the payload."""
    if len(raw) < MQXQH_LENGTH_1:
        raise DecodeError(
            f"MQXQH truncated: need {MQXQH_LENGTH_1} bytes, have {len(raw)}",
            raw=bytes(raw),
            offset=len(raw),
        )
    order = int_order(encoding, version_probe=bytes(raw[4:8]))
    struc_id, version, rq, rqm = struct.unpack_from(f"{order}4si48s48s", raw)
    if decode_text(struc_id, ccsid) != MQXQH_STRUC_ID.rstrip():
        raise DecodeError(f"MQXQH StrucId is {struc_id!r}, expected 'XQH '", raw=bytes(raw))
    if version != 1:
        raise DecodeError(f"MQXQH Version {version} is not 1", raw=bytes(raw), offset=4)
    md = decode_mqmd(raw, encoding=encoding, ccsid=ccsid, start=_HEAD)
    header = MQXQH(decode_text(rq, ccsid), decode_text(rqm, ccsid), md)
    return header, bytes(raw[MQXQH_LENGTH_1:])
