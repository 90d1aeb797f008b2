"""Rate limiting for the warnings a deep DLQ would otherwise repeat forever.

runmqdlq reports a message without an MQDLH every time its cursor passes it.
dlqhandler reports each such message (by MsgId) when first met and then at
most once per ``interval`` seconds, and at most ``per_pass`` of them in one
pass over the queue; the pass summary gives the total. The MsgIds remembered
are an LRU of bounded size, so memory does not grow with the queue.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["ReportLimiter"]


class ReportLimiter:
    """Say whether a warning about ``key`` should be logged now."""

    def __init__(self, *, interval: float, per_pass: int, limit: int = 10_000) -> None:
        self.interval = interval
        self.per_pass = per_pass
        self._limit = limit
        self._last: OrderedDict[bytes, float] = OrderedDict()
        self._this_pass = 0
        self.suppressed = 0

    def new_pass(self) -> None:
        self._this_pass = 0

    def allow(self, key: bytes, now: float) -> bool:
        """True (and remember it) when ``key`` was not reported in the last ``interval``."""
        last = self._last.get(key)
        if (last is not None and now - last < self.interval) or self._this_pass >= self.per_pass:
            self.suppressed += 1
            return False
        self._this_pass += 1
        self._last[key] = now
        self._last.move_to_end(key)
        while len(self._last) > self._limit:
            self._last.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._last)
