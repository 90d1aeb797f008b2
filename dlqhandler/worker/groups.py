"""Message groups on the DLQ for ``dlqhandler run``: which groups a pass has seen.

What a group is and when it is whole lives in :mod:`dlqhandler.mq.groups`
(shared with the drain's apply mode); re-exported here for the worker.
"""

from __future__ import annotations

from collections import OrderedDict

from dlqhandler.errors import MalformedMessageError, MQIError
from dlqhandler.mq.constants import MQRC_NO_MSG_AVAILABLE
from dlqhandler.mq.groups import is_complete, logical_order
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.qmgr.port import GetOptions, Queue

__all__ = ["SeenGroups", "browse_group", "is_complete", "logical_order"]


def browse_group(q: Queue, first: Message) -> tuple[list[Message], bytes | None]:
    """``first`` and the other members of its group browsed on ``q`` (a second handle
    on the DLQ: ``first`` stays locked by the scan, so it is not seen again; a member
    locked by another handler is not seen either: the group then looks incomplete and
    is left for that handler). Returns the members read and, when one has no valid
    MQDLH, its MsgId (the members read before it are returned)."""
    members = [first]
    options = GetOptions(browse="first", group_id=first.md.group_id, syncpoint=False)
    while True:
        try:
            raw = q.get(options)
        except MQIError as exc:
            if exc.reason == MQRC_NO_MSG_AVAILABLE:
                return members, None
            raise
        options = GetOptions(browse="next", group_id=first.md.group_id, syncpoint=False)
        try:
            members.append(decode_dead_letter(raw.md, raw.body, raw.properties))
        except MalformedMessageError:
            return members, raw.md.msg_id


class SeenGroups:
    """GroupIds already handled in this pass: an LRU set of bounded size.

    If a group falls out (more than ``limit`` groups in one pass) it may be
    looked at twice in that pass; that costs time, never correctness.
    """

    def __init__(self, limit: int = 10_000) -> None:
        self._limit = limit
        self._ids: OrderedDict[bytes, None] = OrderedDict()

    def add(self, group_id: bytes) -> bool:
        """Remember ``group_id``; False if it was already there."""
        if group_id in self._ids:
            self._ids.move_to_end(group_id)
            return False
        self._ids[group_id] = None
        if len(self._ids) > self._limit:
            self._ids.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._ids)
