"""Message groups on the DLQ for ``dlqhandler run``: which groups a pass has seen.

What a group is and when it is whole lives in :mod:`dlqhandler.mq.groups`
(shared with the drain's apply mode); re-exported here for the worker.
"""

from __future__ import annotations

from collections import OrderedDict

from dlqhandler.mq.groups import in_group, is_complete, logical_order

__all__ = ["SeenGroups", "in_group", "is_complete", "logical_order"]


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
