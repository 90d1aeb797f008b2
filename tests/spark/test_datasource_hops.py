"""The dmpmqmsg data source's ``dlh_count``: how many MQDLHs are chained from a dead
letter's first one, as dlqhandler.rules.outgoing.header_depth counts them on the message
`run` gets (the hop count its --max-hops limits), whatever the byte order, CCSID, an
MQRFH2 in front, a damaged MQDLH in the chain, a chain longer than the bytes the source
keeps of a message it does not read whole, or one past header_depth's limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.rules.outgoing import header_depth
from dlqhandler.spark.messages import load_source
from tests.spark.props_dumps import PROPS, in_front

pytestmark = pytest.mark.spark


def _chain(n: int, depth: int, *, encoding: int = 273, ccsid: int = 819) -> Message:
    m = Message(
        MQMD(
            format="MQSTR", msg_id=n.to_bytes(24, "big"), encoding=encoding, coded_char_set_id=ccsid
        ),
        b"payload",
    )
    for trip in range(depth):
        m = Message.dead_letter(
            m.md, m.body, reason=2053, dest_q_name=f"APP.{trip}", encoding=encoding, ccsid=ccsid
        )
    return m


def _messages() -> list[Message]:
    out = [_chain(n, depth) for n, depth in enumerate((1, 2, 3, 4, 5, 6, 9, 70), start=1)]
    out.append(_chain(20, 5, encoding=546, ccsid=500))  # little-endian, EBCDIC
    out.append(_chain(21, 3, encoding=546, ccsid=1208))
    broken = _chain(22, 2)  # the second MQDLH damaged: the chain ends at the first
    body = bytearray(broken.body)
    body[172:176] = b"XXXX"
    out.append(Message(broken.md, bytes(body)))
    out.append(Message(MQMD(format="MQSTR", msg_id=b"\x17" * 24), b"no MQDLH"))
    out += [in_front(_chain(30 + i, 1 + 2 * i), PROPS[i], 1208, i % 2 == 0) for i in range(3)]
    return out


def _expected(m: Message) -> int | None:
    try:
        got = decode_dead_letter(m.md, m.body)
    except MalformedMessageError:  # no MQDLH: the source's has_dlh is false
        return None
    return header_depth(got.with_md(got.md.replace(format="MQDEAD")))


@pytest.mark.parametrize("body", [False, True])
def test_dlh_count_is_the_hop_count_run_counts(spark: Any, tmp_path: Path, body: bool) -> None:
    """Each message's ``dlh_count`` is header_depth of the message decoded as `run` gets
    it (the MQDLH behind an MQRFH2 of properties brought to the front), null without an
    MQDLH, both when the body is selected (read whole) and when it is not (the source
    keeps the first 512 bytes and reads a longer chain again, whole). A chain follows
    each MQDLH's Format, Encoding and CodedCharSetId, which describe the data that
    follows it (IBM's "MQDLH - Dead letter header", https://www.ibm.com/docs/en/
    SSFKSJ_latest/refdev/q096110_.html: "the CodedCharSetId and Encoding fields. These
    are specified in the header structure that precedes the MQDLH")."""
    messages = _messages()
    path = tmp_path / "hops.dmp"
    write_dump(path, messages)
    columns = ["md_msg_id", "dlh_count", *(["body"] if body else [])]
    rows = load_source(spark, [str(path)]).select(*columns).collect()
    got = {bytes(r["md_msg_id"]): r["dlh_count"] for r in rows}
    expected = {m.md.msg_id: _expected(m) for m in messages}
    assert got == expected
    # the reference itself: the limit, the broken chain, no MQDLH
    assert expected[(8).to_bytes(24, "big")] == 64
    assert expected[(22).to_bytes(24, "big")] == 1
    assert expected[b"\x17" * 24] is None
