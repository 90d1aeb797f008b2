"""Property tests for the MQMD and MQDLH codecs: round trips and robustness."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.errors import DecodeError, MalformedMessageError
from dlqhandler.mq import (
    MQDLH,
    MQDLH_LENGTH_1,
    MQMD,
    MQMD_LENGTH_1,
    MQMD_LENGTH_2,
    Message,
    decode_dead_letter,
    decode_mqdlh,
    decode_mqmd,
    encode_mqdlh,
    encode_mqmd,
)
from dlqhandler.mq.ccsid import codec_for
from tests.mq.helpers import raised
from tests.mq.strategies import (
    ANY_CCSID,
    ANY_ENCODING,
    CCSIDS,
    DLH_IMAGE,
    ENCODINGS,
    MD_IMAGE,
    images,
    mqdlhs,
    mqmds,
)

ORDER = {273: ">", 546: "<", 785: ">"}


@given(
    data=st.data(),
    encoding=st.sampled_from(ENCODINGS),
    ccsid=st.sampled_from(CCSIDS),
    version=st.sampled_from((1, 2)),
)
def test_mqmd_round_trips_in_every_byte_order_and_code_page(
    data: st.DataObject, encoding: int, ccsid: int, version: int
) -> None:
    """encode_mqmd -> decode_mqmd gives the same MQMD (v1: 324 bytes, v2: 364 bytes)."""
    md = data.draw(mqmds(ccsid, version))
    raw = encode_mqmd(md, encoding=encoding, ccsid=ccsid)
    assert len(raw) == (MQMD_LENGTH_1 if version == 1 else MQMD_LENGTH_2)
    assert raw[4:8] == struct.pack(ORDER[encoding] + "i", version)
    assert raw[:4] == "MD  ".encode(codec_for(ccsid))
    assert decode_mqmd(raw, encoding=encoding, ccsid=ccsid) == md


@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), ccsid=st.sampled_from(CCSIDS))
def test_mqdlh_round_trips_in_every_byte_order_and_code_page(
    data: st.DataObject, encoding: int, ccsid: int
) -> None:
    """encode_mqdlh -> decode_mqdlh gives the same MQDLH; integers in the given order."""
    dlh = data.draw(mqdlhs(ccsid))
    raw = encode_mqdlh(dlh, encoding=encoding, ccsid=ccsid)
    assert len(raw) == MQDLH_LENGTH_1
    assert raw[8:12] == struct.pack(ORDER[encoding] + "i", dlh.reason)
    assert decode_mqdlh(raw + b"payload", encoding=encoding, ccsid=ccsid) == dlh


@given(
    data=st.data(),
    encoding=st.sampled_from(ENCODINGS),
    ccsid=st.sampled_from(CCSIDS),
    payload=st.binary(max_size=300),
)
def test_dead_letter_then_strip_gives_the_original_back(
    data: st.DataObject, encoding: int, ccsid: int, payload: bytes
) -> None:
    """Message.dead_letter + decode_dead_letter + strip restores Format/Encoding/CCSID."""
    original = data.draw(mqmds(819)).replace(
        coded_char_set_id=data.draw(st.sampled_from(CCSIDS)),
        format=data.draw(st.from_regex(r"[A-Z0-9]{0,8}", fullmatch=True)),
    )
    dlq = Message.dead_letter(
        original,
        payload,
        reason=2053,
        dest_q_name="APP.IN",
        dest_q_mgr_name="QM1",
        encoding=encoding,
        ccsid=ccsid,
    )
    decoded = decode_dead_letter(dlq.md, dlq.body)
    assert decoded.dlh is not None
    assert decoded.payload == payload
    assert decoded.strip_dead_letter_header() == Message(original, payload)


@given(ccsid=st.sampled_from(CCSIDS), encoding=st.sampled_from(ENCODINGS))
def test_mqdlh_inherit_ccsid_reads_as_the_ccsid_in_force(ccsid: int, encoding: int) -> None:
    """A DLH CodedCharSetId of MQCCSI_INHERIT (-2) decodes as the MQMD's CCSID."""
    raw = encode_mqdlh(MQDLH(coded_char_set_id=-2), encoding=encoding, ccsid=ccsid)
    assert decode_mqdlh(raw, encoding=encoding, ccsid=ccsid).coded_char_set_id == ccsid


# --- arbitrary input ----------------------------------------------------------------


@given(raw=images(MD_IMAGE), encoding=ANY_ENCODING, ccsid=ANY_CCSID)
def test_decode_mqmd_raises_only_decode_error(raw: bytes, encoding: int, ccsid: int) -> None:
    """Arbitrary bytes into decode_mqmd give an MQMD or a DecodeError, nothing else."""
    error = raised(lambda: decode_mqmd(raw, encoding=encoding, ccsid=ccsid))
    assert error is None or isinstance(error, DecodeError)


@given(raw=images(DLH_IMAGE), encoding=ANY_ENCODING, ccsid=ANY_CCSID)
def test_decode_mqdlh_raises_only_malformed_message_error(
    raw: bytes, encoding: int, ccsid: int
) -> None:
    """Arbitrary bytes into decode_mqdlh give an MQDLH or MalformedMessageError keeping them."""
    error = raised(lambda: decode_mqdlh(raw, encoding=encoding, ccsid=ccsid))
    if error is not None:
        assert isinstance(error, MalformedMessageError)
        assert error.raw == raw
        assert 0 <= error.offset <= len(raw)


@given(
    raw=images(DLH_IMAGE),
    encoding=ANY_ENCODING,
    ccsid=ANY_CCSID,
    fmt=st.sampled_from(("MQDEAD", "MQSTR", "")),
)
def test_decode_dead_letter_raises_only_malformed_message_error(
    raw: bytes, encoding: int, ccsid: int, fmt: str
) -> None:
    """decode_dead_letter on any data and any MQMD raises only MalformedMessageError."""
    md = MQMD(format=fmt, encoding=encoding, coded_char_set_id=ccsid)
    decoded: list[Message] = []
    error = raised(lambda: decoded.append(decode_dead_letter(md, raw)))
    if error is not None:
        assert isinstance(error, MalformedMessageError)
        assert error.raw == raw
    else:
        assert decoded[0].body == raw
        assert decoded[0].dlh is not None
