"""The Message value object and MQMD normalisation."""

from __future__ import annotations

import pytest

from dlqhandler.errors import DecodeError
from dlqhandler.mq import MQMD, Message, decode_dead_letter


def test_message_without_dlh_strips_to_itself() -> None:
    """strip_dead_letter_header on a message with no MQDLH returns it unchanged."""
    msg = Message(MQMD(format="MQSTR"), b"hello")
    assert msg.payload == b"hello"
    assert msg.strip_dead_letter_header() is msg


def test_dead_letter_describes_the_dlh_in_the_mqmd() -> None:
    """dead_letter: MQMD Format MQDEAD, Encoding/CCSID those of the DLH; the DLH keeps originals."""
    original = MQMD(format="MQSTR", encoding=546, coded_char_set_id=1208, persistence=1)
    msg = Message.dead_letter(original, b"data", reason=2053, dest_q_name="APP.IN",
                              encoding=273, ccsid=500)
    assert (msg.md.format, msg.md.encoding, msg.md.coded_char_set_id) == ("MQDEAD", 273, 500)
    assert msg.dlh is not None
    assert (msg.dlh.format, msg.dlh.encoding, msg.dlh.coded_char_set_id) == ("MQSTR", 546, 1208)
    assert msg.payload == b"data"
    assert decode_dead_letter(msg.md, msg.body) == msg


def test_dead_letter_replaces_ccsid_zero_with_the_qmgr_ccsid() -> None:
    """An original CCSID of 0 (MQCCSI_Q_MGR) is recorded in the DLH as 819, never 0."""
    msg = Message.dead_letter(MQMD(format="MQSTR"), b"x", reason=2085, dest_q_name="Q")
    assert msg.dlh is not None
    assert msg.dlh.coded_char_set_id == 819
    assert msg.md.coded_char_set_id == 819


def test_mqmd_byte_fields_are_padded_bytes() -> None:
    """Short ids are NUL padded to full length, bytearrays become bytes, long ones fail."""
    md = MQMD(msg_id=bytearray(b"AMQ "), correl_id=b"C")  # type: ignore[arg-type]
    assert md.msg_id == b"AMQ " + bytes(20)
    assert type(md.msg_id) is bytes
    assert md.correl_id == b"C" + bytes(23)
    with pytest.raises(DecodeError, match="msg_id"):
        MQMD(msg_id=bytes(25))
