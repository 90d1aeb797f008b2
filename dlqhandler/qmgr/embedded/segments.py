"""Groups and segments: on MQPUT, what the queue manager keeps per queue handle for
MQPMO_LOGICAL_ORDER and the checks every put of a segment gets; on MQGET, when a logical
message's segments are all there and the message MQGMO_COMPLETE_MSG makes of them.

IBM (*GroupId*, *MsgSeqNumber*, *Offset*): with MQPMO_LOGICAL_ORDER "the queue manager
automatically generates a unique group identifier for the first message in the group or
segment of the logical message, and uses that group identifier for the remaining
messages"; MsgSeqNumber starts at 1 and grows by one per logical message; Offset is
where a segment's data starts in its logical message. The application says where each
message stands with MsgFlags (MQMF_MSG_IN_GROUP / _LAST_MSG_IN_GROUP, MQMF_SEGMENT /
_LAST_SEGMENT). Against the status the handle keeps, the put fails (nothing is put,
the status does not move) with:

* MQRC_INCOMPLETE_MSG (2242): a logical message is unfinished and this message is not
  one of its segments, or its MQMF_LAST_MSG_IN_GROUP differs from the earlier segments';
* MQRC_INCOMPLETE_GROUP (2241): a group is unfinished and this message is in no group;
* MQRC_INCONSISTENT_PERSISTENCE (2185) / MQRC_INCONSISTENT_UOW (2245): its persistence /
  syncpoint differs from the group's or the logical message's.

Every put (logical order or not): a segment other than the last with no data is
MQRC_SEGMENT_LENGTH_ZERO (2253). A put without MQPMO_LOGICAL_ORDER right after one with
it, while a logical message or group is unfinished, is made and keeps the status; IBM
answers it with MQCC_WARNING and 2242 (else 2241), which the queue handle keeps as
``put_warning`` for the MQI to show (the port has no warnings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
    MQMF_SEGMENTATION_ALLOWED,
    MQRC_INCOMPLETE_GROUP,
    MQRC_INCOMPLETE_MSG,
    MQRC_INCONSISTENT_PERSISTENCE,
    MQRC_INCONSISTENT_UOW,
    MQRC_SEGMENT_LENGTH_ZERO,
    mqi_error,
)
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqmd import MQMD

__all__ = [
    "SEGMENTS_OF",
    "PutGroup",
    "check_segment",
    "logical_put",
    "reassembled",
    "whole",
]

_GROUPED = MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP
_SEGMENTED = MQMF_SEGMENT | MQMF_LAST_SEGMENT
_NO_GROUP = bytes(24)


@dataclass(frozen=True, slots=True)
class PutGroup:
    """The group and segment status a queue handle keeps between logical-order puts.

    ``in_group``: the group's last logical message is not complete yet;
    ``in_message``: the current logical message's last segment is not put yet
    (``next_offset`` is where its next segment starts).
    """

    group_id: bytes
    seq: int
    next_offset: int
    in_group: bool
    in_message: bool
    last_flag: int  # MQMF_LAST_MSG_IN_GROUP of the current logical message
    persistence: int
    syncpoint: bool

    @property
    def unfinished(self) -> int:
        """The reason an MQCLOSE now would warn with (0: nothing unfinished)."""
        if self.in_message:
            return MQRC_INCOMPLETE_MSG
        return MQRC_INCOMPLETE_GROUP if self.in_group else 0


def check_segment(md: MQMD, length: int) -> None:
    """MQRC_SEGMENT_LENGTH_ZERO for a segment other than the last with no data (IBM 2253:
    "the first or an intermediate segment of a logical message, but the length of the
    application message data in the segment ... is zero")."""
    if md.msg_flags & MQMF_SEGMENT and not md.msg_flags & MQMF_LAST_SEGMENT and length == 0:
        raise mqi_error(MQRC_SEGMENT_LENGTH_ZERO, "an intermediate segment with no data")


def logical_put(
    status: PutGroup | None,
    md: MQMD,
    *,
    length: int,
    persistence: int,
    syncpoint: bool,
    make_id: Callable[[], bytes],
) -> tuple[MQMD, PutGroup | None]:
    """The MQMD an MQPMO_LOGICAL_ORDER put stores (GroupId, MsgSeqNumber, Offset set by
    the queue manager) and the handle's status after it, or MQIError (see module doc).

    ``persistence``: the message's (MQPER_PERSISTENCE_AS_Q_DEF already resolved);
    ``length``: its data length (a segment's share of the logical message)."""
    flags = md.msg_flags
    grouped, segmented = flags & _GROUPED, flags & _SEGMENTED
    if status is not None and (status.in_message or status.in_group):
        if status.in_message and (
            not segmented or flags & MQMF_LAST_MSG_IN_GROUP != status.last_flag
        ):
            raise mqi_error(MQRC_INCOMPLETE_MSG, "the current logical message is unfinished")
        if not status.in_message and not grouped:
            raise mqi_error(MQRC_INCOMPLETE_GROUP, "the current message group is unfinished")
        if persistence != status.persistence:
            raise mqi_error(MQRC_INCONSISTENT_PERSISTENCE, f"Persistence {persistence}")
        if syncpoint != status.syncpoint:
            raise mqi_error(MQRC_INCONSISTENT_UOW, "syncpoint differs from the group's")
        group_id = status.group_id
        seq, offset = (status.seq, status.next_offset) if status.in_message else (status.seq + 1, 0)
    elif grouped or segmented or flags & MQMF_SEGMENTATION_ALLOWED:
        group_id, seq, offset = make_id(), 1, 0
    else:
        group_id, seq, offset = _NO_GROUP, 1, 0
    out = md.replace(group_id=group_id, msg_seq_number=seq, offset=offset)
    in_message = bool(flags & MQMF_SEGMENT) and not flags & MQMF_LAST_SEGMENT
    in_group = bool(flags & MQMF_MSG_IN_GROUP) or (
        bool(flags & MQMF_LAST_MSG_IN_GROUP) and in_message
    )
    if not (in_message or in_group):
        return out, None
    return out, PutGroup(
        group_id=group_id,
        seq=seq,
        next_offset=offset + length,
        in_group=in_group,
        in_message=in_message,
        last_flag=flags & MQMF_LAST_MSG_IN_GROUP,
        persistence=persistence,
        syncpoint=syncpoint,
    )


# -- MQGET: MQGMO_ALL_SEGMENTS_AVAILABLE and MQGMO_COMPLETE_MSG ---------------------------
# The segments of one logical message visible to a handle (row id, Offset, data length).
SEGMENTS_OF = (
    "SELECT id, seg_offset, length(body), msg_flags FROM messages"
    " WHERE queue = ? AND group_id = ? AND msg_seq_number = ? AND msg_flags & 6 != 0"
    " AND state = 0 AND (lock_conn IS NULL OR (lock_conn = ? AND lock_handle = ?))"
    " ORDER BY seg_offset, id"
)


def whole(rows: list[tuple[int, int, int, int]]) -> list[int] | None:
    """The row ids of a logical message's segments in Offset order when they are all
    there (from Offset 0, each starting where the one before ends, up to the one flagged
    MQMF_LAST_SEGMENT), else None."""
    ids: list[int] = []
    expected = 0
    for row_id, offset, length, flags in rows:
        if offset != expected:
            return None
        ids.append(row_id)
        expected += length
        if flags & MQMF_LAST_SEGMENT:
            return ids
    return None


def reassembled(parts: list[Message]) -> Message:
    """The logical message MQGMO_COMPLETE_MSG returns: the segments' data joined, with
    the first segment's MQMD (and properties) "with the values from the message
    descriptor for the first segment; the only exception is the MsgFlags field, which
    the queue manager sets to indicate that the reassembled message is the only segment"
    (IBM): MQMF_LAST_SEGMENT, not MQMF_SEGMENT, the group flags kept; Offset 0."""
    first = parts[0]
    flags = (first.md.msg_flags & ~MQMF_SEGMENT) | MQMF_LAST_SEGMENT
    md = first.md.replace(msg_flags=flags, offset=0)
    return dataclasses.replace(first, md=md, body=b"".join(p.body for p in parts))
