"""Which message an MQGET would return: the SQL for candidates, and group state.

Order: priority descending, then arrival. The stored ordering priority is the
message's own on a MSGDLVSQ(PRIORITY) queue and the queue's DEFPRTY on a FIFO
one, fixed at put time as MQ does (changing MSGDLVSQ does not reorder messages
already there). A browse cursor is the (priority, id) position of the last
browsed message; "next" means strictly after it in that order.

Visible to a handle: committed (not an uncommitted put), not taken by a unit
of work, and not locked by another handle's browse lock.

Logical order (MQGMO_LOGICAL_ORDER): outside a group, only messages that are
in no group or are the first item of their group (MsgSeqNumber 1, Offset 0)
qualify, so a group sits where its first message arrived; inside a group the
next item is the next segment of the same logical message or the next
MsgSeqNumber. MQGMO_ALL_MSGS_AVAILABLE admits a group's message only when the
group's last message (MQMF_LAST_MSG_IN_GROUP) and every sequence number up to
it are there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.qmgr.embedded.store import AVAILABLE

__all__ = ["Candidate", "GroupState", "Query", "candidate_query", "group_state_after"]

COLUMNS = "id, priority, expires_at, persistent, msg_flags, group_id, msg_seq_number, seg_offset"
_GROUP_OR_SEGMENT = MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP | MQMF_SEGMENT | MQMF_LAST_SEGMENT
BATCH = 8

VISIBLE = (
    f"m.state = {AVAILABLE} AND (m.lock_conn IS NULL"
    " OR (m.lock_conn = :conn AND m.lock_handle = :handle))"
)

# 24 = MSG_IN_GROUP | LAST_MSG_IN_GROUP, 16 = LAST_MSG_IN_GROUP, state 0 = AVAILABLE.
_ALL_AVAILABLE = """(m.msg_flags & 24 = 0 OR EXISTS (
    SELECT 1 FROM messages l
    WHERE l.queue = m.queue AND l.msg_flags & 31 != 0 AND l.group_id = m.group_id
      AND l.msg_flags & 16 != 0 AND l.state = 0
      AND (SELECT count(DISTINCT s.msg_seq_number) FROM messages s
           WHERE s.queue = m.queue AND s.msg_flags & 31 != 0 AND s.group_id = m.group_id
             AND s.state = 0 AND s.msg_seq_number <= l.msg_seq_number)
          = l.msg_seq_number))"""


# MQGMO_ALL_SEGMENTS_AVAILABLE / MQGMO_COMPLETE_MSG: a segment (flags 2 SEGMENT, 4
# LAST_SEGMENT) qualifies only when its logical message's last segment is there (the
# caller checks the segments between: .segments); COMPLETE_MSG returns a logical message
# from its first segment (Offset 0).
_LAST_SEGMENT_THERE = """EXISTS (
    SELECT 1 FROM messages l
    WHERE l.queue = m.queue AND l.group_id = m.group_id AND l.msg_flags & 31 != 0
      AND l.msg_seq_number = m.msg_seq_number AND l.msg_flags & 4 != 0 AND l.state = 0)"""
_SEGMENTS_READY = {
    "all": f"(m.msg_flags & 6 = 0 OR {_LAST_SEGMENT_THERE})",
    "complete": f"(m.msg_flags & 6 = 0 OR (m.seg_offset = 0 AND {_LAST_SEGMENT_THERE}))",
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A message that could be returned, with what the caller needs to decide."""

    id: int
    priority: int
    expires_at: float | None
    persistent: int
    msg_flags: int
    group_id: bytes
    msg_seq_number: int
    offset: int

    @property
    def position(self) -> tuple[int, int]:
        return (self.priority, self.id)


@dataclass(frozen=True, slots=True)
class GroupState:
    """Where a handle is inside a group (logical order).

    ``segment_done`` is False while more segments of the current logical
    message are due.
    """

    group_id: bytes
    seq: int
    offset: int
    segment_done: bool


def group_state_after(c: Candidate) -> GroupState | None:
    """The group state after returning ``c`` in logical order (None: not in a group)."""
    if c.msg_flags & _GROUP_OR_SEGMENT == 0:
        return None
    segment_done = not c.msg_flags & MQMF_SEGMENT
    if segment_done and not c.msg_flags & MQMF_MSG_IN_GROUP:
        return None  # the group (or the segmented message) is complete
    return GroupState(c.group_id, c.msg_seq_number, c.offset, segment_done)


@dataclass(frozen=True, slots=True)
class Query:
    sql: str
    params: dict[str, object]


def candidate_query(
    *,
    queue: str,
    conn: str,
    handle: int,
    after: tuple[int, int] | None = None,
    msg_id: bytes | None = None,
    correl_id: bytes | None = None,
    group_id: bytes | None = None,
    logical: bool = False,
    in_group: GroupState | None = None,
    all_available: bool = False,
    segments: str = "",
    columns: str = "",
    limit: int = BATCH,
) -> Query:
    """The first few visible messages an MQGET with these options may return, in order.

    ``segments``: ``"all"`` (MQGMO_ALL_SEGMENTS_AVAILABLE) or ``"complete"``
    (MQGMO_COMPLETE_MSG) admits a segment only if its logical message's last segment
    is there (``"complete"``: and it is the first). ``columns``/``limit`` narrow the
    SELECT (a subquery wants ``m.id`` and 1). The
    SQL depends only on which options are given (built once per shape); the values
    are bound parameters.
    """
    if columns and after is not None:
        raise ValueError("a browse-next query returns the standard columns")
    params: dict[str, object] = {"queue": queue, "conn": conn, "handle": handle}
    # MQMI_NONE, MQCI_NONE and MQGI_NONE (all zeros) "have the same effect as not
    # specifying" the match option, IBM says: any identifier matches.
    msg_id, correl_id, group_id = (
        None if value is None or not any(value) else bytes(value).ljust(24, b"\x00")
        for value in (msg_id, correl_id, group_id)
    )
    for column, value in (("msg_id", msg_id), ("correl_id", correl_id), ("group_id", group_id)):
        if value is not None:
            params[column] = value
    if in_group is not None:
        params["in_group"] = in_group.group_id
        if in_group.segment_done:
            params["seq"] = in_group.seq + 1
        else:
            params.update(seq=in_group.seq, offset=in_group.offset)
    elif after is not None:
        params.update(after_priority=after[0], after_id=after[1])
    sql = _candidate_sql(
        by_msg_id=msg_id is not None,
        by_correl_id=correl_id is not None,
        by_group_id=group_id is not None,
        segment_done=None if in_group is None else in_group.segment_done,
        after=after is not None,
        logical=logical,
        all_available=all_available,
        segments=segments,
        columns=columns,
        limit=limit,
    )
    return Query(sql, params)


@lru_cache(maxsize=256)
def _candidate_sql(
    *,
    by_msg_id: bool,
    by_correl_id: bool,
    by_group_id: bool,
    segment_done: bool | None,
    after: bool,
    logical: bool,
    all_available: bool,
    segments: str,
    columns: str,
    limit: int,
) -> str:
    """:func:`candidate_query`'s SQL for one shape (``segment_done`` None: not in a group)."""
    where = ["m.queue = :queue", VISIBLE]
    for column, given in (
        ("msg_id", by_msg_id),
        ("correl_id", by_correl_id),
        ("group_id", by_group_id),
    ):
        if given:
            where.append(f"m.{column} = :{column}")
    if by_correl_id:  # (given only when not MQCI_NONE): what the partial index covers
        where.append("m.correl_id != zeroblob(24)")
    if by_group_id:
        where.append("m.msg_flags & 31 != 0")  # GroupId matches group members and segments
    if segment_done is not None:
        where += ["m.msg_flags & 31 != 0", "m.group_id = :in_group"]
        if segment_done:
            where += ["m.msg_seq_number = :seq", "m.seg_offset = 0"]
        else:
            where += ["m.msg_seq_number = :seq", "m.seg_offset > :offset"]
        order = "m.seg_offset"
    else:
        if logical:
            where.append(
                f"(m.msg_flags & {_GROUP_OR_SEGMENT} = 0"
                " OR (m.msg_seq_number = 1 AND m.seg_offset = 0))"
            )
        if all_available:
            where.append(_ALL_AVAILABLE)
        if segments:
            where.append(_SEGMENTS_READY[segments])
        order = "m.priority DESC, m.id"
    # Without statistics SQLite would walk the queue in delivery order and filter; a
    # match on an id should look the id up and sort the few rows it finds instead.
    index = ""
    if segment_done is None:
        for given, name in (
            (by_msg_id, "messages_by_msg_id"),
            (by_correl_id, "messages_by_correl_id"),
            (by_group_id, "messages_in_groups"),
        ):
            if given:
                index = f" INDEXED BY {name}"
                break
    columns = columns or ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))
    # Only constant fragments are joined here; every value is a bound parameter.
    if segment_done is None and after:
        # "Strictly after (priority, id)" as one OR predicate is no index range: SQLite
        # would start at the cursor's priority and skip every row before the cursor,
        # making a pass over a deep queue quadratic. Two ranges, each read in index
        # order from its start, keep every browse-next a short index seek. The outer
        # sort is of at most 2 x limit rows (columns 1 and 2 are id and priority).
        same = " AND ".join([*where, "m.priority = :after_priority", "m.id > :after_id"])
        lower = " AND ".join([*where, "m.priority < :after_priority"])
        return (
            f"SELECT * FROM (SELECT {columns} FROM messages m{index} WHERE {same}"  # noqa: S608
            f" ORDER BY m.id LIMIT {int(limit)})"
            f" UNION ALL SELECT * FROM (SELECT {columns} FROM messages m{index}"
            f" WHERE {lower} ORDER BY {order} LIMIT {int(limit)}) ORDER BY 2 DESC, 1"
            f" LIMIT {int(limit)}"
        )
    return (
        f"SELECT {columns} FROM messages m{index} WHERE {' AND '.join(where)}"  # noqa: S608
        f" ORDER BY {order} LIMIT {int(limit)}"
    )
