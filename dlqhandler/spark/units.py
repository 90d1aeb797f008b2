"""Message groups and segmented messages as Spark SQL: the rules of :mod:`dlqhandler.mq.groups`
over the message contract's columns, for the report (which predicts which groups the drain
keeps whole) and the drain.

A unit is a group (MQMF_MSG_IN_GROUP / MQMF_LAST_MSG_IN_GROUP) or a segmented message
(MQMF_SEGMENT / MQMF_LAST_SEGMENT); :data:`IN_UNIT` tells a member. :func:`unit_whole`
is :func:`dlqhandler.mq.groups.is_complete` over an array of the unit's parts
(:func:`part`), held to it by tests/spark/test_report_groups.py.

Most members are simple (:data:`SIMPLE`: in a group, no segment, at Offset 0, numbered
1..62): such a unit is told whole from fixed-width aggregates (:func:`simple_whole`: a
bit per number, the numbers flagged last, the count), which Spark's hash aggregation
keeps without an array per unit; only a unit with another member needs its parts.
"""

from __future__ import annotations

from dlqhandler.mq.constants import (
    MQMF_LAST_MSG_IN_GROUP,
    MQMF_LAST_SEGMENT,
    MQMF_MSG_IN_GROUP,
    MQMF_SEGMENT,
)
from dlqhandler.mq.groups import NO_GROUP, UNIT_FLAGS
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1

__all__ = ["IN_UNIT", "SIMPLE", "data_length", "part", "simple_parts", "simple_whole", "unit_whole"]

# A member of a group or a segment (over md_group_id and md_msg_flags; false when null).
IN_UNIT = (
    f"coalesce(md_group_id <> X'{NO_GROUP.hex()}' AND (md_msg_flags & {UNIT_FLAGS}) <> 0, false)"
)
_SEGMENT_FLAGS = MQMF_SEGMENT | MQMF_LAST_SEGMENT
_GROUP_FLAGS = MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP
_BITS = 62  # numbers 1.._BITS have a bit of a BIGINT mask (2^n, positive)
# A member that is one whole logical message of a group (over md_*; with IN_UNIT).
SIMPLE = (
    f"((md_msg_flags & {_SEGMENT_FLAGS}) = 0 AND md_msg_seq_number BETWEEN 1 AND {_BITS}"
    " AND md_offset = 0)"
)


def data_length(body_length: str) -> str:
    """The length of a message's data after its MQDLH (SQL; ``body_length`` the whole
    data's), what a segment's Offset counts, as the drain measures it."""
    return f"({body_length} - CASE WHEN has_dlh THEN {MQDLH_LENGTH_1} ELSE 0 END)"


def part(seq: str, offset: str, length: str, flags: str) -> str:
    """One part of a unit as a SQL struct, from SQL expressions: its MsgSeqNumber
    ``seq``, Offset, data length (:func:`data_length`) and MsgFlags. Sorted, parts are
    in logical order."""
    fields = [
        f"{seq} AS seq",
        f"{offset} AS off",
        f"{length} AS len",
        f"({flags} & {MQMF_LAST_SEGMENT}) <> 0 AS last",
        f"({flags} & {_SEGMENT_FLAGS}) <> 0 AS seg",
        f"({flags} & {MQMF_LAST_MSG_IN_GROUP}) <> 0 AS glast",
        f"({flags} & {_GROUP_FLAGS}) <> 0 AS grp",
    ]
    return f"struct({', '.join(fields)})"


def unit_whole(parts: str) -> str:
    """Whether a unit is whole (SQL, never null), from ``parts``: a column holding an
    array of every member's :func:`part`, one per member (duplicates kept), sorted.

    As :func:`dlqhandler.mq.groups.is_complete`: in a group, exactly one number flagged
    LAST_MSG_IN_GROUP, n, and the distinct numbers are 1..n; a segmented message outside a
    group is number 1 alone; one member per number unless segmented; and each logical
    message (a run of one number) is one unsegmented message at Offset 0, or segments
    from Offset 0, each at the previous Offset plus its length, the last alone flagged
    LAST_SEGMENT."""
    seqs = f"array_distinct(transform({parts}, x -> x.seq))"
    lasts = f"array_distinct(transform(filter({parts}, x -> x.glast), x -> x.seq))"
    # each part against the one before and after it (get: null past either end)
    before, after = f"get({parts}, i - 1)", f"get({parts}, i + 1)"
    first = f"(i = 0 OR {before}.seq <> x.seq)"
    final = f"(i = size({parts}) - 1 OR {after}.seq <> x.seq)"
    each = (
        f"CASE WHEN {first} THEN x.off = 0 ELSE x.off = {before}.off + {before}.len END"
        f" AND CASE WHEN {final} THEN x.last OR (NOT x.seg AND {first}) ELSE NOT x.last END"
    )
    runs = f"forall(transform({parts}, (x, i) -> {each}), ok -> coalesce(ok, false))"
    numbered = (
        f"CASE WHEN exists({parts}, x -> x.grp)"
        f" THEN size({lasts}) = 1 AND size({seqs}) = get({lasts}, 0)"
        f" AND array_sort({seqs}) = sequence(1, size({seqs}))"
        f" ELSE {seqs} = array(1) END"
    )
    single = f"(exists({parts}, x -> x.seg) OR size({parts}) = size({seqs}))"
    return f"coalesce({single} AND {numbered} AND {runs}, false)"


def simple_whole(members: str, mask: str, lmin: str, lmax: str) -> str:
    """Whether a unit of :data:`SIMPLE` members only is whole (SQL, never null), from its
    ``members`` count, the bit-or of their ``shiftleft(1L, MsgSeqNumber)`` (``mask``),
    and the least and greatest number flagged LAST_MSG_IN_GROUP (``lmin``, ``lmax``):
    one last number n, n members, and the numbers 1..n (so none twice)."""
    return (
        f"coalesce({lmin} = {lmax} AND {members} = {lmax}"
        f" AND {mask} = shiftleft(1L, {lmax} + 1) - 2, false)"
    )


def simple_parts(mask: str, lmax: str) -> str:
    """The :func:`part` of each number of ``mask`` (SQL: the simple members of a unit
    that also has others), numbered as the mask says and the last as ``lmax`` says; the
    caller checks separately that no number came twice and one was flagged last."""
    bit = f"({mask} & shiftleft(1L, i)) <> 0"
    fields = (
        "i AS seq, 0L AS off, 0L AS len, false AS last, false AS seg,"
        f" coalesce(i = {lmax}, false) AS glast, true AS grp"
    )
    return f"transform(filter(sequence(1, {_BITS}), i -> {bit}), i -> struct({fields}))"
