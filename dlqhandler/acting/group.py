"""A message group (or a segmented message) acted on whole, in one unit of work.

Every member is got under syncpoint first, so the whole group is held; then the
members are put in logical order (:mod:`dlqhandler.mq.groups`). A failed put is
counted once for the group (:func:`dlqhandler.qmgr.attempts.group_subject`) while
every member is still held, then the unit of work is backed out: the group stays
on the DLQ, all of it. A member gone when it is to be got backs the unit out too.
The caller commits a group that was taken (a group has a unit of work of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dlqhandler.acting.plan import Outgoing
from dlqhandler.acting.unit import Acted, UnitOfWork
from dlqhandler.errors import MQIError
from dlqhandler.mq.groups import logical_order
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.attempts import AttemptRecord, Subject

__all__ = ["act_on_group", "take_group"]


def take_group(
    unit: UnitOfWork, members: Sequence[Message], take: Callable[[Message], bool]
) -> Acted | None:
    """Get every member under syncpoint (``take`` each, in the order given); None when
    all were got, else the unit of work is backed out and the gone member named."""
    for m in members:
        if not take(m):
            unit.backout()
            return Acted("vanished", member=m)
    return None


def act_on_group(
    unit: UnitOfWork,
    plans: Sequence[tuple[Message, Outgoing | None]],
    subject: Subject,
    record: AttemptRecord | None,
    audit: Sequence[Message] = (),
) -> Acted:
    """Put the planned members (None: a DISCARD, the get alone) of a group already got
    (:func:`take_group`) in logical order; a failed put is counted while the group is
    held, then backed out (``member`` names the member whose put failed). ``audit``:
    the members' audit records, put last (a failure backs the group out)."""
    outgoing = {id(m): out for m, out in plans}
    for m in logical_order([m for m, _ in plans]):
        out = outgoing[id(m)]
        if out is None:
            continue
        try:
            unit.put(out)
        except MQIError as exc:
            unit.failed_put(exc)
            return Acted("failed", exc, unit.fail(subject, record), member=m)
    if (unaudited := unit.audited(audit)) is not None:
        return unaudited
    unit.cleared(record)
    return Acted("taken")
