"""Property tests for the MQMD and MQDLH codecs: round trips and robustness."""

from __future__ import annotations

import struct
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.errors import DecodeError, DLQHandlerError, MalformedMessageError
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
from tests.mq.strategies import CCSIDS, ENCODINGS, MQLONG, mqdlhs, mqmds

ORDER = {273: ">", 546: "<", 785: ">"}


@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), ccsid=st.sampled_from(CCSIDS),
       version=st.sampled_from((1, 2)))
def test_mqmd_round_trips_in_every_byte_order_and_code_page(
        data: st.DataObject, encoding: int, ccsid: int, version: int) -> None:
    """encode_mqmd -> decode_mqmd gives the same MQMD (v1: 324 bytes, v2: 364 bytes)."""
    md = data.draw(mqmds(ccsid, version))
    raw = encode_mqmd(md, encoding=encoding, ccsid=ccsid)
    assert len(raw) == (MQMD_LENGTH_1 if version == 1 else MQMD_LENGTH_2)
    assert raw[4:8] == struct.pack(ORDER[encoding] + "i", version)
    assert raw[:4] == "MD  ".encode(codec_for(ccsid))
    assert decode_mqmd(raw, encoding=encoding, ccsid=ccsid) == md


@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), ccsid=st.sampled_from(CCSIDS))
def test_mqdlh_round_trips_in_every_byte_order_and_code_page(
        data: st.DataObject, encoding: int, ccsid: int) -> None:
    """encode_mqdlh -> decode_mqdlh gives the same MQDLH; integers in the given order."""
    dlh = data.draw(mqdlhs(ccsid))
    raw = encode_mqdlh(dlh, encoding=encoding, ccsid=ccsid)
    assert len(raw) == MQDLH_LENGTH_1
    assert raw[8:12] == struct.pack(ORDER[encoding] + "i", dlh.reason)
    assert decode_mqdlh(raw + b"payload", encoding=encoding, ccsid=ccsid) == dlh


@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), ccsid=st.sampled_from(CCSIDS),
       payload=st.binary(max_size=300))
def test_dead_letter_then_strip_gives_the_original_back(
        data: st.DataObject, encoding: int, ccsid: int, payload: bytes) -> None:
    """Message.dead_letter + decode_dead_letter + strip restores Format/Encoding/CCSID."""
    original = data.draw(mqmds(819)).replace(
        coded_char_set_id=data.draw(st.sampled_from(CCSIDS)),
        format=data.draw(st.from_regex(r"[A-Z0-9]{0,8}", fullmatch=True)))
    dlq = Message.dead_letter(original, payload, reason=2053, dest_q_name="APP.IN",
                              dest_q_mgr_name="QM1", encoding=encoding, ccsid=ccsid)
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


@st.composite
def _damaged(draw: st.DrawFn, valid: bytes) -> bytes:
    """A valid image cut short, overwritten in a few places, or with junk appended."""
    raw = bytearray(valid[:draw(st.integers(0, len(valid)))])
    for _ in range(draw(st.integers(0, 4))):
        if raw:
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
    return bytes(raw) + draw(st.binary(max_size=8))


def _images(build: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(max_size=600), _damaged(build))


_ANY_ENCODING = st.one_of(st.sampled_from((*ENCODINGS, 0, 17, 1041, -1)), MQLONG)
_ANY_CCSID = st.one_of(st.sampled_from((*CCSIDS, 0, -1, -2, 1200, 1202, 954, 65535)), MQLONG)
_MD_IMAGE = encode_mqmd(MQMD(format="MQSTR", put_appl_name="amqsput"))
_DLH_IMAGE = Message.dead_letter(MQMD(format="MQSTR"), b"hello", reason=2053,
                                 dest_q_name="Q").body


def _failure(call: Callable[[], object]) -> DLQHandlerError | None:
    """Run ``call``; return the DLQHandlerError it raised (anything else propagates)."""
    try:
        call()
    except DLQHandlerError as exc:
        return exc
    return None


@given(raw=_images(_MD_IMAGE), encoding=_ANY_ENCODING, ccsid=_ANY_CCSID)
def test_decode_mqmd_raises_only_decode_error(raw: bytes, encoding: int, ccsid: int) -> None:
    """Arbitrary bytes into decode_mqmd give an MQMD or a DecodeError, nothing else."""
    error = _failure(lambda: decode_mqmd(raw, encoding=encoding, ccsid=ccsid))
    assert error is None or isinstance(error, DecodeError)


@given(raw=_images(_DLH_IMAGE), encoding=_ANY_ENCODING, ccsid=_ANY_CCSID)
def test_decode_mqdlh_raises_only_malformed_message_error(
        raw: bytes, encoding: int, ccsid: int) -> None:
    """Arbitrary bytes into decode_mqdlh give an MQDLH or MalformedMessageError keeping them."""
    error = _failure(lambda: decode_mqdlh(raw, encoding=encoding, ccsid=ccsid))
    if error is not None:
        assert isinstance(error, MalformedMessageError)
        assert error.raw == raw
        assert 0 <= error.offset <= len(raw)


@given(raw=_images(_DLH_IMAGE), encoding=_ANY_ENCODING, ccsid=_ANY_CCSID,
       fmt=st.sampled_from(("MQDEAD", "MQSTR", "")))
def test_decode_dead_letter_raises_only_malformed_message_error(
        raw: bytes, encoding: int, ccsid: int, fmt: str) -> None:
    """decode_dead_letter on any data and any MQMD raises only MalformedMessageError."""
    md = MQMD(format=fmt, encoding=encoding, coded_char_set_id=ccsid)
    decoded: list[Message] = []
    error = _failure(lambda: decoded.append(decode_dead_letter(md, raw)))
    if error is not None:
        assert isinstance(error, MalformedMessageError)
        assert error.raw == raw
    else:
        assert decoded[0].body == raw
        assert decoded[0].dlh is not None
