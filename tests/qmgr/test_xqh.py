"""MQXQH, the transmission queue header: layout and round trip."""

from __future__ import annotations

import struct

import pytest

from dlqhandler.errors import DecodeError
from dlqhandler.mq import MQMD, encode_mqmd
from dlqhandler.qmgr.embedded.xqh import MQXQH_LENGTH_1, decode_xqh, encode_xqh


def test_layout_is_ibms() -> None:
    """StrucId 'XQH ', Version 1, RemoteQName at 8, RemoteQMgrName at 56, MQMD v1 at 104."""
    md = MQMD(format="MQSTR", priority=7, msg_id=b"ID".ljust(24, b"\0"))
    raw = encode_xqh("TARGET.Q", "QM2", md)
    assert len(raw) == MQXQH_LENGTH_1 == 428
    assert raw[:4] == b"XQH "
    assert struct.unpack("<i", raw[4:8]) == (1,)
    assert raw[8:56] == b"TARGET.Q".ljust(48)
    assert raw[56:104] == b"QM2".ljust(48)
    assert raw[104:] == encode_mqmd(md.replace(version=1))


def test_round_trip_keeps_the_payload_apart() -> None:
    """decode_xqh gives the header (with its version-1 MQMD) and the data after it."""
    md = MQMD(format="MQSTR", user_identifier="bob", expiry=600)
    header, data = decode_xqh(encode_xqh("Q", "QM", md) + b"payload")
    assert (header.remote_q_name, header.remote_q_mgr_name, data) == ("Q", "QM", b"payload")
    assert header.md == md.replace(version=1)


@pytest.mark.parametrize(
    "raw",
    [
        b"XQH " + b"\0" * 100,
        b"ABCD" + b"\x01\0\0\0" + b" " * 420,
        b"XQH " + b"\x02\0\0\0" + b" " * 420,
    ],
)
def test_bad_headers_raise_decode_error(raw: bytes) -> None:
    """Truncated data, a wrong StrucId or Version raise DecodeError."""
    with pytest.raises(DecodeError):
        decode_xqh(raw)
