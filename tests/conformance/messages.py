"""Crafted dead-letter messages from a description of their pattern fields."""

from __future__ import annotations

from typing import Any

from dlqhandler.mq import MQMD, Message

# Field values of a crafted message when a description does not give them.
DEFAULTS: dict[str, Any] = {
    "APPLIDAT": "",
    "APPLNAME": "payroll",
    "APPLTYPE": 6,
    "DESTQ": "APP.IN",
    "DESTQM": "QM1",
    "FEEDBACK": 0,
    "FORMAT": "MQSTR",
    "MSGTYPE": 8,
    "PERSIST": 1,
    "REASON": 2053,
    "REPLYQ": "",
    "REPLYQM": "",
    "USERID": "app",
}


def build_message(fields: dict[str, Any], payload: bytes = b"payload") -> Message:
    """A dead-letter message whose pattern fields are ``fields`` (keyword -> value)."""
    f = {**DEFAULTS, **fields}
    md = MQMD(
        msg_type=f["MSGTYPE"],
        persistence=f["PERSIST"],
        feedback=f["FEEDBACK"],
        reply_to_q=f["REPLYQ"],
        reply_to_q_mgr=f["REPLYQM"],
        user_identifier=f["USERID"],
        appl_identity_data=f["APPLIDAT"],
        put_appl_type=f["APPLTYPE"],
        put_appl_name=f["APPLNAME"],
        format=f["FORMAT"],
    )
    return Message.dead_letter(
        md, payload, reason=f["REASON"], dest_q_name=f["DESTQ"], dest_q_mgr_name=f["DESTQM"]
    )
