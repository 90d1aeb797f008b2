"""A case's message is the one ``run`` gets: built from the case's fields, it equals the
same message encoded and read back from its bytes as a get reads it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.cases.messages import build_message
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.mq.mqmd import decode_mqmd, encode_mqmd

_TEXT = st.text(alphabet="AB .\x00", max_size=8)


@given(
    st.fixed_dictionaries(
        {
            "USERID": _TEXT,
            "DESTQ": _TEXT,
            "DESTQM": _TEXT,
            "REPLYQ": _TEXT,
            "APPLNAME": _TEXT,
            "FORMAT": _TEXT,
        }
    ),
    st.integers(1, 3),
)
def test_a_case_message_is_what_a_get_reads(fields: dict[str, str], hops: int) -> None:
    """Character fields with trailing blanks or a NUL (``USERID: "app1 "``) are in the
    case's message as MQ hands them to ``run`` after a get: the MQMD and the MQDLH read
    back from the bytes (cut at the NUL, trailing blanks gone), MQDLHs and all."""
    if hops > 1:
        fields = {k: v for k, v in fields.items() if k != "FORMAT"}
    built = build_message(fields, hops=hops)
    got = decode_dead_letter(decode_mqmd(encode_mqmd(built.md)), built.body)
    assert (built.md, built.dlh, built.body) == (got.md, got.dlh, got.body)
