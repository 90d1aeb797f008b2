"""What one pass of the handler over the DLQ found: counts for the summary, and when to
come back."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import MQRC_NO_MSG_AVAILABLE
from dlqhandler.qmgr.attempts import Subject
from dlqhandler.qmgr.port import GetOptions, Queue
from dlqhandler.worker.groups import SeenGroups

__all__ = ["PassState", "still_on_queue"]


@dataclass
class PassState:
    """What one pass over the DLQ found (counts for the summary, when to come back)."""

    useful: bool = False
    pending_due: float | None = None  # earliest time a waiting retry becomes due
    complete: bool = True
    ignored: int = 0
    no_dlh: int = 0
    waiting: int = 0
    not_selected: int = 0
    oldest: float | None = None  # earliest dead-letter time of a message left on the DLQ
    groups: SeenGroups = field(default_factory=SeenGroups)

    def wait_for(self, due: float, messages: int = 1) -> None:
        """``messages`` (a message, or a group's members) wait for a retry due at ``due``."""
        self.waiting += messages
        self.pending_due = due if self.pending_due is None else min(self.pending_due, due)

    def left(self, when: float | None) -> None:
        """A message dead-lettered at ``when`` stays on the DLQ."""
        if when is not None and (self.oldest is None or when < self.oldest):
            self.oldest = when


def still_on_queue(queue: Queue, subjects: Iterable[Subject]) -> int:
    """How many messages of ``subjects`` (messages by MsgId and CorrelId, groups by GroupId:
    each member a browse finds) are still on ``queue``; one that cannot be looked for
    counts as there (a group: as one)."""
    found = 0
    for subject in subjects:
        if subject.group_id:
            found += _members_on_queue(queue, subject.group_id)
            continue
        match = GetOptions(
            browse="first", syncpoint=False, msg_id=subject.msg_id, correl_id=subject.correl_id
        )
        try:
            queue.get(match)
        except MQIError as exc:
            found += exc.reason != MQRC_NO_MSG_AVAILABLE
            continue
        found += 1
    return found


def _members_on_queue(queue: Queue, group_id: bytes) -> int:
    """How many messages of the group ``group_id`` a browse finds on ``queue`` (at least
    one when it cannot look)."""
    found, how = 0, "first"
    while True:
        browse: Literal["first", "next"] = "first" if how == "first" else "next"
        try:
            queue.get(GetOptions(browse=browse, syncpoint=False, group_id=group_id))
        except MQIError as exc:
            return found if exc.reason == MQRC_NO_MSG_AVAILABLE else max(found, 1)
        found, how = found + 1, "next"
