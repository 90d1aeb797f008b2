"""Fixed vectors: the public DLQ captures decoded in mq-structures.md section 1.3a.

The bytes are built by hand from the hex the spec shows, independently of our
encoder, so these tests pin the codec to what real queue managers wrote.
"""

from __future__ import annotations

import pytest

from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import (
    MQAT_UNIX,
    MQRC_NOT_AUTHORIZED,
    MQRC_Q_FULL,
    MQRC_UNKNOWN_OBJECT_NAME,
    reason_name,
)


def _chars(text: str, n: int, *, pad: bytes = b" ", codec: str = "ascii") -> bytes:
    raw = text.encode(codec)
    return raw + pad * (n - len(raw))


# Capture A: amqsbcg, 2003. MQMD Encoding 273 (big-endian), CCSID 819; the data
# after the DLH is little-endian (546) text in code page 850.
CAPTURE_A_PAYLOAD = "Grüße aus Zürich".encode("cp850")
CAPTURE_A = (
    b"DLH "
    + bytes.fromhex("00000001 00000825")
    + _chars("ASDF2", 48)
    + _chars("QMASKED", 48)
    + bytes.fromhex("00000222 00000352")
    + b"MQSTR   "
    + bytes.fromhex("00000006")
    + _chars("amqsput", 28)
    + b"20030612"
    + b"10203040"
    + CAPTURE_A_PAYLOAD
)
CAPTURE_A_MD = MQMD(encoding=273, coded_char_set_id=819, format="MQDEAD")

# Capture B: MQ 9.3.4 amqsbcg on a big-endian machine; a Go program wrote a
# NUL-padded DLH with a 6-character PutTime, and an MQRFH2 follows at 172.
CAPTURE_B_PAYLOAD = b"RFH " + bytes.fromhex("00000002 000000240000011100000333") + b"MQSTR   "
CAPTURE_B = (
    b"DLH "
    + bytes.fromhex("00000001 000007F3")
    + _chars("DEST.QUEUE", 48, pad=b"\0")
    + _chars("DEST.QMGR", 48, pad=b"\0")
    + bytes.fromhex("00000111 00000333")
    + b"MQHRF2  "
    + bytes.fromhex("00000000")
    + _chars("A Go program", 28, pad=b"\0")
    + b"20231213"
    + b"140046\0\0"
    + CAPTURE_B_PAYLOAD
)
CAPTURE_B_MD = MQMD(encoding=273, coded_char_set_id=819, format="MQDEAD")

# Capture C: a z/OS message (MsgId 'CSQ ' in EBCDIC) dead-lettered on Linux:
# MQMD 546 / 1208, so the DLH is ASCII with little-endian integers.
CAPTURE_C_MSGID = bytes.fromhex("C3E2D840D8D4E9F14040404040404040") + bytes(range(8))
CAPTURE_C = (
    b"DLH "
    + bytes.fromhex("01000000 05080000")
    + _chars("CICS.ORDERS", 48)
    + _chars("QML1", 48)
    + bytes.fromhex("22020000 B8040000")
    + b"MQSTR   "
    + bytes.fromhex("07000000")
    + _chars("amqrmppa", 28)
    + b"20160301"
    + b"09300000"
    + b"order 42"
)
CAPTURE_C_MD = MQMD(encoding=546, coded_char_set_id=1208, format="MQDEAD", msg_id=CAPTURE_C_MSGID)


def test_capture_a_bytes_match_the_spec_dump() -> None:
    """The hand-built capture A has the spec's words at offsets 0 and 0x6C."""
    assert CAPTURE_A[:16] == bytes.fromhex("444C4820 00000001 00000825 41534446")
    assert CAPTURE_A[0x6C:0x80] == bytes.fromhex("00000222 00000352 4D515354 52202020 00000006")


def test_capture_a_big_endian_dlh_describing_little_endian_data() -> None:
    """Capture A: Reason 2085, DestQName ASDF2, Encoding 546, CCSID 850, MQSTR, type 6."""
    msg = decode_dead_letter(CAPTURE_A_MD, CAPTURE_A)
    dlh = msg.dlh
    assert dlh is not None
    assert dlh.version == 1
    assert dlh.reason == MQRC_UNKNOWN_OBJECT_NAME == 2085
    assert reason_name(dlh.reason) == "MQRC_UNKNOWN_OBJECT_NAME"
    assert dlh.dest_q_name == "ASDF2"
    assert dlh.encoding == 546
    assert dlh.coded_char_set_id == 850
    assert dlh.format == "MQSTR"
    assert dlh.put_appl_type == MQAT_UNIX == 6
    assert msg.payload.decode("cp850") == "Grüße aus Zürich"


def test_capture_a_strip_restores_the_original_descriptor() -> None:
    """Stripping capture A's DLH gives MQMD 546 / 850 / MQSTR and the bare payload."""
    original = decode_dead_letter(CAPTURE_A_MD, CAPTURE_A).strip_dead_letter_header()
    assert original.dlh is None
    assert (original.md.encoding, original.md.coded_char_set_id, original.md.format) == (
        546,
        850,
        "MQSTR",
    )
    assert original.body == CAPTURE_A_PAYLOAD
    assert original.md.replace(encoding=273, coded_char_set_id=819, format="MQDEAD") == CAPTURE_A_MD


def test_capture_b_nul_padded_fields_and_short_put_time() -> None:
    """Capture B: NUL padding is stripped like blanks; PutTime '140046' plus two NULs."""
    dlh = decode_dead_letter(CAPTURE_B_MD, CAPTURE_B).dlh
    assert dlh is not None
    assert dlh.reason == MQRC_NOT_AUTHORIZED == 0x7F3
    assert dlh.dest_q_name == "DEST.QUEUE"
    assert dlh.dest_q_mgr_name == "DEST.QMGR"
    assert (dlh.encoding, dlh.coded_char_set_id, dlh.format) == (273, 819, "MQHRF2")
    assert dlh.put_appl_type == 0
    assert dlh.put_appl_name == "A Go program"
    assert (dlh.put_date, dlh.put_time) == ("20231213", "140046")


def test_capture_b_rfh2_follows_the_header() -> None:
    """Capture B's payload after 172 bytes is the MQRFH2, and stripping exposes it."""
    msg = decode_dead_letter(CAPTURE_B_MD, CAPTURE_B)
    assert msg.payload.startswith(b"RFH ")
    stripped = msg.strip_dead_letter_header()
    assert stripped.md.format == "MQHRF2"
    assert stripped.body == CAPTURE_B_PAYLOAD


def test_capture_c_little_endian_ascii_dlh_under_a_zos_msgid() -> None:
    """Capture C: MQMD 546/1208 means an ASCII, little-endian DLH; MsgId reads 'CSQ '."""
    msg = decode_dead_letter(CAPTURE_C_MD, CAPTURE_C)
    dlh = msg.dlh
    assert dlh is not None
    assert CAPTURE_C[:8] == bytes.fromhex("444C4820 01000000")
    assert dlh.reason == MQRC_Q_FULL
    assert (dlh.dest_q_name, dlh.dest_q_mgr_name) == ("CICS.ORDERS", "QML1")
    assert (dlh.encoding, dlh.coded_char_set_id, dlh.format) == (546, 1208, "MQSTR")
    assert msg.md.msg_id[:4].decode("cp500") == "CSQ "
    assert msg.payload == b"order 42"


def test_the_mqmd_encoding_not_the_dlh_decides_the_dlh_byte_order() -> None:
    """Capture C read as if the MQMD said 273 is not a valid MQDLH (Version 16777216)."""
    with pytest.raises(MalformedMessageError, match="Version") as info:
        decode_dead_letter(CAPTURE_C_MD.replace(encoding=273), CAPTURE_C)
    assert info.value.raw == CAPTURE_C


def test_ebcdic_dlh_needs_the_ebcdic_ccsid() -> None:
    """A z/OS DLH (785/500) decodes with its CCSID; read as ASCII it is not an MQDLH."""
    md = MQMD(encoding=785, coded_char_set_id=500, format="MQSTR")
    dlq = Message.dead_letter(
        md, "Grüße".encode("cp500"), reason=2053, dest_q_name="PAYROLL.IN", dest_q_mgr_name="QMZ1"
    )
    assert dlq.body[:4] == bytes.fromhex("C4D3C840")
    dlh = decode_dead_letter(dlq.md, dlq.body).dlh
    assert dlh is not None
    assert dlh.dest_q_name == "PAYROLL.IN"
    with pytest.raises(MalformedMessageError, match="StrucId"):
        decode_dead_letter(dlq.md.replace(coded_char_set_id=819), dlq.body)


def test_plain_message_is_reported_with_its_format() -> None:
    """A message with no DLH fails with a reason naming its MQMD Format and keeps the data."""
    body = b'{"order": 42, "padding": "' + b"x" * 200 + b'"}'
    with pytest.raises(MalformedMessageError, match="MQMD Format is 'MQSTR'") as info:
        decode_dead_letter(MQMD(format="MQSTR"), body)
    assert info.value.raw == body


def test_truncated_dlh_keeps_the_raw_bytes() -> None:
    """Data shorter than 172 bytes is a MalformedMessageError with the bytes kept."""
    with pytest.raises(MalformedMessageError, match="shorter than an MQDLH") as info:
        decode_dead_letter(CAPTURE_A_MD, CAPTURE_A[:100])
    assert info.value.raw == CAPTURE_A[:100]
