"""The Message value object and MQMD normalisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.message import stripped_data
from dlqhandler.mq.properties import Property, PropertyType
from dlqhandler.mq.rfh2 import MQRFH2, decode_rfh2, encode_rfh2, folders_of, properties_of


def test_message_without_dlh_strips_to_itself() -> None:
    """strip_dead_letter_header on a message with no MQDLH returns it unchanged."""
    msg = Message(MQMD(format="MQSTR"), b"hello")
    assert msg.payload == b"hello"
    assert msg.strip_dead_letter_header() is msg


def test_dead_letter_describes_the_dlh_in_the_mqmd() -> None:
    """dead_letter: MQMD Format MQDEAD, Encoding/CCSID those of the DLH; the DLH keeps originals."""
    original = MQMD(format="MQSTR", encoding=546, coded_char_set_id=1208, persistence=1)
    msg = Message.dead_letter(
        original, b"data", reason=2053, dest_q_name="APP.IN", encoding=273, ccsid=500
    )
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


@pytest.mark.parametrize(
    ("encoding", "ccsid", "header_ccsid"), [(546, 1208, 1208), (273, 500, 500), (546, 819, -2)]
)
def test_a_dead_letter_behind_an_mqrfh2_is_decoded_as_a_handle_get_returns_it(
    encoding: int, ccsid: int, header_ccsid: int
) -> None:
    """MQMD Format MQHRF2, the MQRFH2's Format MQDEAD (what a PROPCTL(FORCE) DLQ hands
    out): the MQDLH behind the header is decoded in the header's Encoding and CCSID
    (-2, MQCCSI_INHERIT, is the MQMD's), the header's properties become the message's,
    and the message is the one a get with a message handle returns."""
    props = (
        Property("jms.Dst", PropertyType.STRING, "queue:///APP.IN"),
        Property("Items", PropertyType.INT32, 7),
    )
    original = MQMD(
        format="MQSTR", encoding=546, coded_char_set_id=1208, msg_id=b"M".ljust(24, b"\0")
    )
    dead = Message.dead_letter(
        original,
        b"data",
        reason=2053,
        dest_q_name="APP.IN",
        encoding=encoding,
        ccsid=ccsid,
        properties=props,
    )
    header = encode_rfh2(
        MQRFH2(encoding, header_ccsid, "MQDEAD", folders=folders_of(props)),
        encoding=encoding,
        ccsid=ccsid,
    )
    md = dead.md.replace(format="MQHRF2")
    got = decode_dead_letter(md, header + dead.body)
    assert got == dead
    assert got.strip_dead_letter_header().md.format == "MQSTR"
    assert got.strip_dead_letter_header().properties == props


@given(st.binary(max_size=300))
def test_arbitrary_data_behind_an_mqhrf2_format_raises_only_our_error(data: bytes) -> None:
    """Whatever follows an MQMD whose Format is MQHRF2, decode_dead_letter returns a dead
    letter or raises MalformedMessageError (raw bytes and offset kept)."""
    for prefix in (b"", encode_rfh2(MQRFH2(546, 1208, "MQDEAD"), encoding=546, ccsid=1208)):
        raised: list[MalformedMessageError] = []
        try:
            decode_dead_letter(
                MQMD(format="MQHRF2", encoding=546, coded_char_set_id=1208),
                prefix + data,
            )
        except MalformedMessageError as exc:
            raised.append(exc)
        for exc in raised:
            assert exc.raw == prefix + data
            assert 0 <= exc.offset <= len(prefix + data)


@pytest.mark.parametrize(("encoding", "ccsid"), [(546, 1208), (273, 500)])
def test_stripped_data_keeps_the_mqrfh2_in_front_told_what_follows(
    encoding: int, ccsid: int
) -> None:
    """stripped_data of a dead letter with its MQRFH2 in front: the MQMD as it was, the
    MQRFH2 byte for byte but its Encoding, CCSID and Format (the MQDLH's), the data
    behind the MQDLH after it; of an ordinary dead letter: strip_dead_letter_header's."""
    props = (Property("jms.Dst", PropertyType.STRING, "queue:///APP.IN"),)
    original = MQMD(format="MQSTR", encoding=546, coded_char_set_id=1208, msg_id=b"S" * 24)
    dead = Message.dead_letter(
        original, b"data", reason=2053, dest_q_name="APP.IN", encoding=encoding, ccsid=ccsid
    )
    header = encode_rfh2(
        MQRFH2(encoding, ccsid, "MQDEAD", folders=folders_of(props)),
        encoding=encoding,
        ccsid=ccsid,
    )
    md = dead.md.replace(format="MQHRF2")
    got_md, data = stripped_data(md, header + dead.body)
    assert got_md == md
    rfh2, end = decode_rfh2(data, encoding=encoding, ccsid=ccsid)
    assert (rfh2.format, rfh2.encoding, rfh2.coded_char_set_id) == ("MQSTR", 546, 1208)
    assert data[28:end] == header[28:end]
    assert data[end:] == b"data"
    assert properties_of(rfh2.folders) == props
    plain = dead.strip_dead_letter_header()
    assert stripped_data(dead.md, dead.body) == (plain.md, plain.body)
    with pytest.raises(MalformedMessageError):
        stripped_data(md, header[:40])
