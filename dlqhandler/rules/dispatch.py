"""A dispatch index over rules: the candidate rules for a message without testing all.

Many rules test a field for one exact value (``REASON(2053)``,
``DESTQ(PAYROLL.IN)``) or a literal prefix (``DESTQ(TEAM7.*)``). A node
splits its rules on one field: rules with an exact value go to a dict keyed
by that value, rules with a prefix to a dict keyed by the prefix (one dict per
prefix length), the others to a ``rest`` subtree. Looking up a message
follows one exact entry and one entry per prefix length, plus ``rest``, and
merges the candidates back into table order. Candidates are then tested in
full, so the index only has to be *complete*, never exact.

Keys are tuples of field values with string fields already padded to their
length (see :func:`dlqhandler.rules.patterns.pad`).
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["Hint", "Node", "build"]

LEAF = 8  # candidate lists at most this long are not split further
DEPTH = 3  # at most this many fields split on along a path

Hint = tuple[Literal["exact", "prefix"], Any]  # per rule and key position


class Node:
    """A leaf of candidate rule indices, or a split on one key position."""

    __slots__ = ("exact", "leaf", "pos", "prefixes", "rest")

    def __init__(
        self,
        leaf: tuple[int, ...] | None = None,
        pos: int = -1,
        exact: dict[Any, Node] | None = None,
        prefixes: tuple[tuple[int, dict[str, Node]], ...] = (),
        rest: Node | None = None,
    ) -> None:
        self.leaf = leaf
        self.pos = pos
        self.exact = exact or {}
        self.prefixes = prefixes
        self.rest = rest

    def candidates(self, key: tuple[Any, ...]) -> tuple[int, ...]:
        """Indices (in table order) of every rule that may match ``key``."""
        if self.leaf is not None:
            return self.leaf
        assert self.rest is not None
        found = self.rest.candidates(key)
        value = key[self.pos]
        parts = [found] if found else []
        sub = self.exact.get(value)
        if sub is not None:
            parts.append(sub.candidates(key))
        for length, table in self.prefixes:
            sub = table.get(value[:length])
            if sub is not None:
                parts.append(sub.candidates(key))
        if len(parts) == 1:
            return parts[0]
        return tuple(sorted(i for part in parts for i in part))


def build(
    indices: tuple[int, ...],
    hints: list[dict[int, Hint]],
    used: frozenset[int] = frozenset(),
    depth: int = 0,
) -> Node:
    """The index over ``indices`` (in table order); ``hints[i]`` says what rule i tests."""
    if len(indices) <= LEAF or depth >= DEPTH:
        return Node(leaf=indices)
    counts: dict[int, int] = {}
    distinct: dict[int, set[Any]] = {}
    for i in indices:
        for pos, hint in hints[i].items():
            if pos not in used:
                counts[pos] = counts.get(pos, 0) + 1
                distinct.setdefault(pos, set()).add(hint)
    if not counts:
        return Node(leaf=indices)
    # the field most rules pin down; on a tie, the one that splits them finest
    pos = max(sorted(counts), key=lambda p: (counts[p], len(distinct[p])))
    if counts[pos] * 4 < len(indices):
        return Node(leaf=indices)
    exact: dict[Any, list[int]] = {}
    prefix: dict[int, dict[str, list[int]]] = {}
    rest: list[int] = []
    for i in indices:
        pinned = hints[i].get(pos)
        if pinned is None:
            rest.append(i)
        elif pinned[0] == "exact":
            exact.setdefault(pinned[1], []).append(i)
        else:
            head: str = pinned[1]
            prefix.setdefault(len(head), {}).setdefault(head, []).append(i)
    inner = used | {pos}
    return Node(
        pos=pos,
        exact={v: build(tuple(g), hints, inner, depth + 1) for v, g in exact.items()},
        prefixes=tuple(
            (length, {h: build(tuple(g), hints, inner, depth + 1) for h, g in heads.items()})
            for length, heads in sorted(prefix.items())
        ),
        rest=build(tuple(rest), hints, inner, depth + 1),
    )
