"""Hypothesis strategies for MQ structures, shared by the codec and dump tests."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from dlqhandler.mq import MQDLH, MQMD, Message, encode_mqmd
from dlqhandler.mq.ccsid import codec_for

ENCODINGS = (273, 546, 785)  # big-endian, little-endian, z/OS (big-endian integers)
CCSIDS = (37, 500, 1047, 819, 1208, 437, 850)
MQLONG = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def _repertoire(codec: str) -> str:
    """Every character a single-byte code page can write, except NUL."""
    return "".join(ch for ch in bytes(range(1, 256)).decode(codec) if ch != "\x00")


_UTF8_CHARS = st.characters(codec="utf-8", exclude_characters="\x00")


@st.composite
def mq_text(draw: st.DrawFn, ccsid: int, length: int, *, exclude: str = "") -> str:
    """Canonical MQCHARn text (no NUL, no trailing blanks) that fits ``length`` bytes."""
    codec = codec_for(ccsid)
    if codec == "utf_8":
        chars = _UTF8_CHARS.filter(lambda ch: ch not in exclude)
    else:
        chars = st.sampled_from([ch for ch in _repertoire(codec) if ch not in exclude])
    text = draw(st.text(chars, max_size=length))
    while len(text.encode(codec)) > length:
        text = text[:-1]
    return text.rstrip(" ")


@st.composite
def mqmds(draw: st.DrawFn, ccsid: int = 819, version: int | None = None, exclude: str = "") -> MQMD:
    """An arbitrary MQMD whose text is writable in ``ccsid`` (version 1 or 2)."""
    if version is None:
        version = draw(st.sampled_from((1, 2)))

    def text(n: int) -> str:
        return draw(mq_text(ccsid, n, exclude=exclude))

    values: dict[str, Any] = {
        "version": version,
        "report": draw(MQLONG),
        "msg_type": draw(MQLONG),
        "expiry": draw(MQLONG),
        "feedback": draw(MQLONG),
        "encoding": draw(MQLONG),
        "coded_char_set_id": draw(MQLONG),
        "format": text(8),
        "priority": draw(MQLONG),
        "persistence": draw(MQLONG),
        "msg_id": draw(st.binary(min_size=24, max_size=24)),
        "correl_id": draw(st.binary(min_size=24, max_size=24)),
        "backout_count": draw(MQLONG),
        "reply_to_q": text(48),
        "reply_to_q_mgr": text(48),
        "user_identifier": text(12),
        "accounting_token": draw(st.binary(min_size=32, max_size=32)),
        "appl_identity_data": text(32),
        "put_appl_type": draw(MQLONG),
        "put_appl_name": text(28),
        "put_date": text(8),
        "put_time": text(8),
        "appl_origin_data": text(4),
    }
    if version >= 2:
        values.update(
            group_id=draw(st.binary(min_size=24, max_size=24)),
            msg_seq_number=draw(MQLONG),
            offset=draw(MQLONG),
            msg_flags=draw(MQLONG),
            original_length=draw(MQLONG),
        )
    return MQMD(**values)


@st.composite
def mqdlhs(draw: st.DrawFn, ccsid: int) -> MQDLH:
    """An arbitrary version-1 MQDLH writable in ``ccsid`` (CodedCharSetId never INHERIT)."""
    return MQDLH(
        reason=draw(MQLONG),
        dest_q_name=draw(mq_text(ccsid, 48)),
        dest_q_mgr_name=draw(mq_text(ccsid, 48)),
        encoding=draw(MQLONG),
        coded_char_set_id=draw(MQLONG.filter(lambda v: v != -2)),
        format=draw(mq_text(ccsid, 8)),
        put_appl_type=draw(MQLONG),
        put_appl_name=draw(mq_text(ccsid, 28)),
        put_date=draw(mq_text(ccsid, 8)),
        put_time=draw(mq_text(ccsid, 8)),
    )


@st.composite
def damaged(draw: st.DrawFn, valid: bytes) -> bytes:
    """A valid image cut short, overwritten in a few places, or with junk appended."""
    raw = bytearray(valid[: draw(st.integers(0, len(valid)))])
    for _ in range(draw(st.integers(0, 4))):
        if raw:
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
    return bytes(raw) + draw(st.binary(max_size=8))


def images(build: bytes) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, or ``build`` damaged."""
    return st.one_of(st.binary(max_size=600), damaged(build))


# Any MQLONG as Encoding or CodedCharSetId, the usual values more often; images of a valid
# MQMD and of a valid dead letter (MQDLH and payload) to damage.
ANY_ENCODING = st.one_of(st.sampled_from((*ENCODINGS, 0, 17, 1041, -1)), MQLONG)
ANY_CCSID = st.one_of(st.sampled_from((*CCSIDS, 0, -1, -2, 1200, 1202, 954, 65535)), MQLONG)
MD_IMAGE = encode_mqmd(MQMD(format="MQSTR", put_appl_name="amqsput"))
DLH_IMAGE = Message.dead_letter(MQMD(format="MQSTR"), b"hello", reason=2053, dest_q_name="Q").body
