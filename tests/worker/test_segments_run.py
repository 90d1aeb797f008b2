"""A segmented message on the DLQ: `dlqhandler run` moves its segments whole, and the
application on the target queue gets the logical message back with MQGMO_COMPLETE_MSG."""

from __future__ import annotations

import pytest

from dlqhandler.errors import MQIError
from dlqhandler.mq import Message
from dlqhandler.mq.constants import MQMF_LAST_SEGMENT, MQMF_SEGMENT
from dlqhandler.qmgr import GetOptions
from tests.worker.helpers import DLQ, RunCli, browse, dead_letter, define, depth, load

FORWARD = "WAIT(NO)\nACTION(FWD) FWDQ(APP.SEG) HEADER(NO)\n"
DATA = b"0123456789" * 30  # one logical message, put as three segments of 100 bytes


def _segments(tag: str, gid: bytes, parts: list[int]) -> list[Message]:
    """Segments ``parts`` (indexes 0-2) of a 300-byte logical message, each dead-lettered
    with its own MQDLH, as the queue manager puts every message it cannot deliver."""
    return [
        dead_letter(
            DATA[i * 100 : (i + 1) * 100],
            destq="APP.SEG",
            tag=f"{tag}{i}",
            group_id=gid,
            msg_flags=MQMF_LAST_SEGMENT if i == 2 else MQMF_SEGMENT,
            offset=i * 100,
        )
        for i in parts
    ]


def test_run_moves_segments_whole_and_the_target_reassembles_them(qm, run_cli: RunCli) -> None:
    """Three segments that reached the DLQ last-first, each with its own MQDLH, are
    forwarded HEADER(NO) together in Offset order (3 messages on APP.SEG, none left on the
    DLQ); an MQGET with MQGMO_COMPLETE_MSG on APP.SEG returns the 300 original bytes as one
    message. A logical message missing its middle segment stays on the DLQ whole (2
    messages), and nothing of it reaches APP.SEG.
    IBM, MsgFlags (https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097540_.html):
    "request the queue manager to reassemble the segments into a single message that is
    returned by the MQGET call. The latter is achieved by specifying the MQGMO_COMPLETE_MSG
    option"."""
    define(qm, "APP.SEG")
    whole_gid = b"WHOLE".ljust(24, b"\0")
    holed_gid = b"HOLED".ljust(24, b"\0")
    whole = _segments("W", whole_gid, [0, 1, 2])
    holed = _segments("H", holed_gid, [0, 2])
    load(qm, [whole[2], holed[1], whole[0], holed[0], whole[1]])

    run = run_cli(FORWARD)

    assert run.rc == 0, run.err
    moved = browse(qm, "APP.SEG")
    assert [m.md.msg_id for m in moved] == [m.md.msg_id for m in whole]
    assert [(m.md.offset, m.body) for m in moved] == [
        (i * 100, DATA[i * 100 : (i + 1) * 100]) for i in range(3)
    ]
    assert {m.md.msg_id for m in browse(qm, DLQ)} == {m.md.msg_id for m in holed}
    q = qm.open("APP.SEG")
    logical = q.get(GetOptions(complete_msg=True, syncpoint=False))
    assert (logical.body, logical.md.group_id, logical.md.msg_flags) == (
        DATA,
        whole_gid,
        MQMF_LAST_SEGMENT,
    )
    assert depth(qm, "APP.SEG") == 0
    with pytest.raises(MQIError) as exc:
        qm.open(DLQ).get(GetOptions(complete_msg=True, syncpoint=False))
    assert exc.value.reason == 2033  # the holed message is not whole: nothing to return
    assert depth(qm, DLQ) == 2
