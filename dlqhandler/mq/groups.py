"""Message groups and segmented messages: who belongs, and is it whole.

Shared by ``dlqhandler run`` (:mod:`dlqhandler.worker.actor`) and the drain's
apply mode (:mod:`dlqhandler.spark.drain.apply`): both move a group the same way.

A group (MQMF_MSG_IN_GROUP / MQMF_LAST_MSG_IN_GROUP) or a segmented message
(MQMF_SEGMENT / MQMF_LAST_SEGMENT) is handled as one unit: its members are put
in logical order (MsgSeqNumber, then Offset) in one unit of work, or not at
all. A unit is complete when every logical message 1..n is there (n flagged
LAST_MSG_IN_GROUP, or n = 1 for a segmented message outside a group) and each
logical message's segments run from Offset 0 without gaps to a LAST_SEGMENT.
"""

from __future__ import annotations

from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD

__all__ = ["NO_GROUP", "UNIT_FLAGS", "in_group", "in_unit", "is_complete", "logical_order"]

NO_GROUP = bytes(24)  # MQGI_NONE
UNIT_FLAGS = MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP | MQMF_SEGMENT | MQMF_LAST_SEGMENT


def in_unit(group_id: bytes | None, msg_flags: int | None) -> bool:
    """Whether a message with this GroupId and MsgFlags is a group member or a segment
    (moved as a unit). The one rule: :func:`in_group` asks it of an MQMD, ``drain
    --apply`` of a row's columns (and its Spark expression spells it over the same
    :data:`NO_GROUP` and :data:`UNIT_FLAGS`)."""
    return group_id not in (None, NO_GROUP) and bool((msg_flags or 0) & UNIT_FLAGS)


def in_group(md: MQMD) -> bool:
    """Whether the message is a group member or a segment (moved as a unit)."""
    return in_unit(md.group_id, md.msg_flags)


def logical_order(members: list[Message]) -> list[Message]:
    """Members sorted as MQGMO_LOGICAL_ORDER returns them."""
    return sorted(members, key=lambda m: (m.md.msg_seq_number, m.md.offset))


def is_complete(members: list[Message]) -> bool:
    """Every logical message and every segment of the unit is present (see module doc)."""
    if not members:
        return False
    ordered = logical_order(members)
    grouped = any(m.md.msg_flags & (MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP) for m in ordered)
    last = [m.md.msg_seq_number for m in ordered if m.md.msg_flags & MQMF_LAST_MSG_IN_GROUP]
    final = last[0] if grouped and last else (1 if not grouped else 0)
    if final == 0 or len(set(last)) > 1:
        return False
    by_seq: dict[int, list[Message]] = {}
    for m in ordered:
        by_seq.setdefault(m.md.msg_seq_number, []).append(m)
    # distinct numbers 1..final (never a list of final numbers: a message says final)
    if len(by_seq) != final or min(by_seq) != 1 or max(by_seq) != final:
        return False
    return all(_segments_complete(parts) for parts in by_seq.values())


def _segments_complete(parts: list[Message]) -> bool:
    """One logical message: a single unsegmented message, or segments without gaps."""
    if len(parts) == 1 and not parts[0].md.msg_flags & (MQMF_SEGMENT | MQMF_LAST_SEGMENT):
        return parts[0].md.offset == 0
    expected = 0
    for i, part in enumerate(parts):
        if part.md.offset != expected:
            return False
        expected += len(part.payload)
        if part.md.msg_flags & MQMF_LAST_SEGMENT:
            return i == len(parts) - 1
    return False
