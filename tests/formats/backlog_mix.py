"""Classify generated backlog messages into the categories the generator promises."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from dlqhandler.errors import MalformedMessageError
from dlqhandler.mq import Message, decode_dead_letter
from dlqhandler.mq.constants import (
    MQFB_COA,
    MQFB_COD,
    MQFB_EXPIRATION,
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_MSG_IN_GROUP,
    MQMT_REPORT,
)

EXPECTED_CATEGORIES = {
    "reason 2053",
    "reason 2051",
    "reason 2085",
    "reason 2035",
    "reason 2030",
    "reason 2087",
    "feedback-code reason",
    "report",
    "report 258",
    "report 259",
    "group",
    "expiry",
    "big-endian dlh",
    "ebcdic dlh",
    "no dlh",
    "persistent",
    "not persistent",
    "msgtype 1",
    "msgtype 2",
    "msgtype 4",
    "msgtype 8",
    "blank reply-to",
    "reply-to",
    "remote dest qmgr",
    "rfh2",
    "binary",
    "ccsid 500",
    "ccsid 1047",
    "ccsid 37",
}


def categories(messages: Iterable[Message], local_qmgr: str = "QM1") -> Counter[str]:
    """How many messages fall in each category (a message counts in several)."""
    seen: Counter[str] = Counter()
    for message in messages:
        md = message.md
        seen[f"msgtype {md.msg_type}"] += 1
        seen["persistent" if md.persistence == 1 else "not persistent"] += 1
        seen["reply-to" if md.reply_to_q else "blank reply-to"] += 1
        if md.expiry > 0:
            seen["expiry"] += 1
        if md.msg_flags & (MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP):
            seen["group"] += 1
        if md.msg_type == MQMT_REPORT and md.feedback in (MQFB_COA, MQFB_COD, MQFB_EXPIRATION):
            seen["report"] += 1
            seen[f"report {md.feedback}"] += 1
        try:
            dlh = decode_dead_letter(md, message.body).dlh
        except MalformedMessageError:
            seen["no dlh"] += 1
            continue
        assert dlh is not None
        seen[f"reason {dlh.reason}"] += 1
        if 256 <= dlh.reason < 2000:
            seen["feedback-code reason"] += 1
        if md.encoding == 273:
            seen["big-endian dlh"] += 1
        if md.encoding == 785:
            seen["ebcdic dlh"] += 1
            seen[f"ccsid {md.coded_char_set_id}"] += 1
        if dlh.dest_q_mgr_name != local_qmgr:
            seen["remote dest qmgr"] += 1
        if dlh.format == "MQHRF2":
            seen["rfh2"] += 1
        if dlh.format == "":
            seen["binary"] += 1
    return seen
