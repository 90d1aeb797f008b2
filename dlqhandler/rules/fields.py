"""The message fields that pattern keywords match (spec §3.1).

``APPLNAME`` is ``MQMD.PutApplName`` (the original putter, not the MQDLH's),
``FORMAT`` is ``MQDLH.Format`` (the format of the data after the header; the
MQMD's is always ``MQDEAD``). String fields are matched right-padded with
blanks to their length; integers are compared as they are.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from dlqhandler.mq import Message

__all__ = ["PATTERN_FIELDS", "FieldSpec", "message_fields"]


class FieldSpec(NamedTuple):
    """Where a pattern keyword's value lives: structure, attribute, kind, length.

    ``length`` is the field length in characters for strings and 0 for integers.
    """

    structure: Literal["md", "dlh"]
    attribute: str
    kind: Literal["str", "int"]
    length: int


PATTERN_FIELDS: dict[str, FieldSpec] = {
    "APPLIDAT": FieldSpec("md", "appl_identity_data", "str", 32),
    "APPLNAME": FieldSpec("md", "put_appl_name", "str", 28),
    "APPLTYPE": FieldSpec("md", "put_appl_type", "int", 0),
    "DESTQ": FieldSpec("dlh", "dest_q_name", "str", 48),
    "DESTQM": FieldSpec("dlh", "dest_q_mgr_name", "str", 48),
    "FEEDBACK": FieldSpec("md", "feedback", "int", 0),
    "FORMAT": FieldSpec("dlh", "format", "str", 8),
    "MSGTYPE": FieldSpec("md", "msg_type", "int", 0),
    "PERSIST": FieldSpec("md", "persistence", "int", 0),
    "REASON": FieldSpec("dlh", "reason", "int", 0),
    "REPLYQ": FieldSpec("md", "reply_to_q", "str", 48),
    "REPLYQM": FieldSpec("md", "reply_to_q_mgr", "str", 48),
    "USERID": FieldSpec("md", "user_identifier", "str", 12),
}


def message_fields(message: Message) -> dict[str, str | int]:
    """Pattern keyword -> the message's canonical value for it.

    Raises ``ValueError`` for a message without an MQDLH: runmqdlq matches
    only messages that start with one.
    """
    dlh = message.dlh
    if dlh is None:
        raise ValueError("message has no MQDLH; only dead-letter messages are matched")
    md = message.md
    out: dict[str, str | int] = {}
    for keyword, spec in PATTERN_FIELDS.items():
        value: str | int = getattr(md if spec.structure == "md" else dlh, spec.attribute)
        out[keyword] = value
    return out
