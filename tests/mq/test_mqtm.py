"""MQTM and MQTMC2: IBM's layouts byte for byte, round trips, and robustness."""

from __future__ import annotations

import contextlib
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.errors import DecodeError
from dlqhandler.mq.mqtm import (
    MQFMT_TRIGGER,
    MQTM,
    MQTM_LENGTH_1,
    MQTMC2,
    MQTMC2_LENGTH_1,
    MQTMC2_LENGTH_2,
    decode_mqtm,
    decode_mqtmc2,
    encode_mqtm,
    encode_mqtmc2,
    looks_like_mqtmc2,
)
from tests.mq.strategies import CCSIDS, ENCODINGS, MQLONG, mq_text

ORDER = {273: ">", 546: "<", 785: ">"}
# IBM's cmqc.h: (field, offset, length) of MQTM and MQTMC2.
MQTM_FIELDS = [
    ("StrucId", 0, 4),
    ("Version", 4, 4),
    ("QName", 8, 48),
    ("ProcessName", 56, 48),
    ("TriggerData", 104, 64),
    ("ApplType", 168, 4),
    ("ApplId", 172, 256),
    ("EnvData", 428, 128),
    ("UserData", 556, 128),
]
SAMPLE = MQTM(
    q_name="SYSTEM.DEAD.LETTER.QUEUE",
    process_name="DLQ.HANDLER",
    trigger_data="td",
    appl_type=6,
    appl_id="dlqhandler run --rules r.rul",
    env_data="&",
    user_data="ud",
)


def _ibm_tmc2(**fields: str) -> str:
    """An MQTMC2 argument built by hand from cmqc.h's layout (not with our codec)."""
    layout = [
        ("StrucId", 4, "TMC "),
        ("Version", 4, "   2"),
        ("QName", 48, ""),
        ("ProcessName", 48, ""),
        ("TriggerData", 64, ""),
        ("ApplType", 4, ""),
        ("ApplId", 256, ""),
        ("EnvData", 128, ""),
        ("UserData", 128, ""),
        ("QMgrName", 48, ""),
    ]
    return "".join(fields.get(name, default).ljust(length) for name, length, default in layout)


def test_mqtm_is_684_bytes_in_ibms_layout() -> None:
    """encode_mqtm writes each field at cmqc.h's offset: 'TM  ', Version 1, texts blank padded,
    ApplType an MQLONG in the given byte order."""
    raw = encode_mqtm(SAMPLE, encoding=546, ccsid=819)
    assert len(raw) == MQTM_LENGTH_1 == 684
    assert sum(length for _, _, length in MQTM_FIELDS) == 684
    at = {name: raw[offset : offset + length] for name, offset, length in MQTM_FIELDS}
    assert at["StrucId"] == b"TM  "
    assert at["Version"] == struct.pack("<i", 1)
    assert at["QName"] == b"SYSTEM.DEAD.LETTER.QUEUE".ljust(48)
    assert at["ProcessName"] == b"DLQ.HANDLER".ljust(48)
    assert at["TriggerData"] == b"td".ljust(64)
    assert at["ApplType"] == struct.pack("<i", 6)
    assert at["ApplId"] == b"dlqhandler run --rules r.rul".ljust(256)
    assert at["EnvData"] == b"&".ljust(128)
    assert at["UserData"] == b"ud".ljust(128)
    assert encode_mqtm(SAMPLE, encoding=273)[4:8] == struct.pack(">i", 1)
    assert MQFMT_TRIGGER == "MQTRIG"


def test_mqtmc2_is_732_characters_with_blank_appltype_and_qmgr_name_last() -> None:
    """to_argv matches a hand-built MQTMC2: 'TMC ', '   2', ApplType blanks, QMgrName at
    offset 684; version 1 is the first 684 characters."""
    tmc2 = SAMPLE.to_mqtmc2("QM1")
    arg = tmc2.to_argv()
    assert len(arg) == MQTMC2_LENGTH_2 == 732
    assert arg == _ibm_tmc2(
        QName="SYSTEM.DEAD.LETTER.QUEUE",
        ProcessName="DLQ.HANDLER",
        TriggerData="td",
        ApplId="dlqhandler run --rules r.rul",
        EnvData="&",
        UserData="ud",
        QMgrName="QM1",
    )
    assert arg[168:172] == "    "
    assert arg[684:].rstrip() == "QM1"
    v1 = tmc2.replace(version=1).to_argv()
    assert len(v1) == MQTMC2_LENGTH_1 == 684
    assert v1 == arg[:4] + "   1" + arg[8:684]
    assert encode_mqtmc2(tmc2) == arg.encode("latin-1")


def test_from_argv_reads_a_trigger_monitors_argument() -> None:
    """The argument runmqtrm passes (built by hand here) gives the queue and queue manager."""
    arg = _ibm_tmc2(
        QName="APP.Q",
        ProcessName="P",
        TriggerData="data with  blanks",
        ApplId="/bin/app",
        UserData="u",
        QMgrName="QM.ONE",
    )
    tmc2 = MQTMC2.from_argv(arg)
    assert (tmc2.q_name, tmc2.q_mgr_name, tmc2.process_name) == ("APP.Q", "QM.ONE", "P")
    assert (tmc2.trigger_data, tmc2.appl_id, tmc2.user_data) == (
        "data with  blanks",
        "/bin/app",
        "u",
    )
    assert (tmc2.env_data, tmc2.appl_type, tmc2.version) == ("", "", 2)
    assert looks_like_mqtmc2(arg)


def test_from_argv_pads_a_trimmed_argument_and_reads_version_1() -> None:
    """Trailing blanks dropped by a shell or a person are restored; a version-1 MQTMC2
    (684 characters) has no queue manager name."""
    arg = _ibm_tmc2(QName="APP.Q", QMgrName="QM1")
    assert MQTMC2.from_argv(arg.rstrip()).q_mgr_name == "QM1"
    assert MQTMC2.from_argv(arg[:60]).q_name == "APP.Q"
    v1 = MQTMC2.from_argv(("TMC    1" + arg[8:684]).rstrip())
    assert (v1.version, v1.q_name, v1.q_mgr_name) == (1, "APP.Q", "")


@pytest.mark.parametrize(
    ("arg", "problem"),
    [
        ("APP.Q", "does not start with 'TMC '"),
        ("", "does not start with 'TMC '"),
        ("TMC    3" + " " * 724, "Version"),
        ("TMC 0002", "Version"),
        (_ibm_tmc2(QName="Q") + "x", "732 characters"),
        ("TMC    1" + " " * 677, "684 characters"),
    ],
)
def test_from_argv_rejects_what_is_not_an_mqtmc2(arg: str, problem: str) -> None:
    """Not 'TMC ', an unknown Version or too long: DecodeError saying why, keeping the bytes."""
    with pytest.raises(DecodeError, match=problem) as exc:
        MQTMC2.from_argv(arg)
    assert exc.value.raw == arg.encode("utf-8")
    assert not looks_like_mqtmc2(arg) or "characters" in problem


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda raw: raw[:683], "shorter than an MQTM"),
        (lambda raw: b"TMX " + raw[4:], "does not start with an MQTM"),
        (lambda raw: raw[:4] + struct.pack("<i", 2) + raw[8:], "Version 2"),
    ],
)
def test_decode_mqtm_rejects_bad_structures(mutate: object, problem: str) -> None:
    """Short data, another StrucId or Version: DecodeError keeping the raw bytes."""
    raw = mutate(encode_mqtm(SAMPLE))  # type: ignore[operator]
    with pytest.raises(DecodeError, match=problem) as exc:
        decode_mqtm(raw)
    assert exc.value.raw == raw


def test_decode_mqtm_ignores_data_after_the_structure() -> None:
    """Only the first 684 bytes are the MQTM (as an MQDLH is only the first 172)."""
    assert decode_mqtm(encode_mqtm(SAMPLE) + b"tail") == SAMPLE


@st.composite
def mqtms(draw: st.DrawFn, ccsid: int) -> MQTM:
    """An arbitrary MQTM whose text fits its fields in ``ccsid``."""
    return MQTM(
        q_name=draw(mq_text(ccsid, 48)),
        process_name=draw(mq_text(ccsid, 48)),
        trigger_data=draw(mq_text(ccsid, 64)),
        appl_type=draw(MQLONG),
        appl_id=draw(mq_text(ccsid, 256)),
        env_data=draw(mq_text(ccsid, 128)),
        user_data=draw(mq_text(ccsid, 128)),
    )


@given(data=st.data(), encoding=st.sampled_from(ENCODINGS), ccsid=st.sampled_from(CCSIDS))
def test_mqtm_round_trips_in_every_byte_order_and_code_page(
    data: st.DataObject, encoding: int, ccsid: int
) -> None:
    """encode_mqtm -> decode_mqtm gives the same MQTM; Version in the given byte order."""
    tm = data.draw(mqtms(ccsid))
    raw = encode_mqtm(tm, encoding=encoding, ccsid=ccsid)
    assert len(raw) == MQTM_LENGTH_1
    assert raw[4:8] == struct.pack(ORDER[encoding] + "i", 1)
    assert decode_mqtm(raw, encoding=encoding, ccsid=ccsid) == tm


@given(data=st.data(), ccsid=st.sampled_from(CCSIDS), version=st.sampled_from((1, 2)))
def test_binary_mqtmc2_round_trips(data: st.DataObject, ccsid: int, version: int) -> None:
    """encode_mqtmc2 -> decode_mqtmc2 in any code page (EBCDIC included), both versions."""
    tmc2 = data.draw(mqtms(ccsid)).to_mqtmc2(data.draw(mq_text(ccsid, 48)))
    if version == 1:
        tmc2 = tmc2.replace(version=1, q_mgr_name="")
    raw = encode_mqtmc2(tmc2, ccsid=ccsid)
    assert len(raw) == tmc2.length
    assert decode_mqtmc2(raw, ccsid=ccsid) == tmc2


def _text(length: int) -> st.SearchStrategy[str]:
    chars = st.characters(exclude_characters="\x00", exclude_categories=["Cs"])
    return st.text(chars, max_size=length).map(lambda s: s.rstrip(" "))


@given(
    q=_text(48),
    p=_text(48),
    td=_text(64),
    ai=_text(256),
    ed=_text(128),
    ud=_text(128),
    qm=_text(48),
)
def test_argv_round_trips_any_text(
    q: str, p: str, td: str, ai: str, ed: str, ud: str, qm: str
) -> None:
    """to_argv -> from_argv restores every field, whatever characters they hold."""
    tmc2 = MQTMC2(
        q_name=q,
        process_name=p,
        trigger_data=td,
        appl_id=ai,
        env_data=ed,
        user_data=ud,
        q_mgr_name=qm,
    )
    arg = tmc2.to_argv()
    assert len(arg) == 732
    assert MQTMC2.from_argv(arg) == tmc2


@given(st.text(max_size=800))
def test_from_argv_raises_only_decode_error(arg: str) -> None:
    """Arbitrary text is parsed or refused with DecodeError, nothing else."""
    try:
        tmc2 = MQTMC2.from_argv(arg)
    except DecodeError:
        return
    assert tmc2.version in (1, 2)


@given(st.binary(max_size=800), st.sampled_from(ENCODINGS), st.sampled_from(CCSIDS))
def test_decoders_raise_only_decode_error(raw: bytes, encoding: int, ccsid: int) -> None:
    """Arbitrary bytes are decoded or refused with DecodeError, nothing else."""
    for decode in (
        lambda: decode_mqtm(raw, encoding=encoding, ccsid=ccsid),
        lambda: decode_mqtmc2(raw, ccsid=ccsid),
    ):
        with contextlib.suppress(DecodeError):
            decode()


def test_fields_that_do_not_fit_are_decode_errors() -> None:
    """A QName over 48 bytes, or a NUL in an argument, cannot be written."""
    with pytest.raises(DecodeError, match="QName"):
        encode_mqtm(MQTM(q_name="Q" * 49))
    with pytest.raises(DecodeError, match="q_name"):
        MQTMC2(q_name="Q" * 49).to_argv()
    with pytest.raises(DecodeError, match="user_data"):
        MQTMC2(user_data="a\x00b").to_argv()
