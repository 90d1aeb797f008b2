"""Acting on one or a few messages, and not flooding a recovering application.

* :class:`Selector`: ``--msgid HEX`` and ``--match 'KEYWORD(value) ...'``. A
  match is a rules-table pattern compiled by the same compiler (so the same
  keywords, wildcards and symbolic names work); a message is selected when the
  pattern matches it, and the handler leaves every other message alone.
  ``--older-than 7d`` / ``--newer-than 2h`` select by age: the time since the
  message was dead-lettered (the MQDLH's PutDate/PutTime), measured when the
  message is examined, by the rule ``report`` shares
  (:class:`dlqhandler.mq.ages.AgeWindow`); a message without a readable time is
  not selected by an age.
* :class:`RateLimiter`: ``--max-rate N`` actions per second (token bucket).
"""

from __future__ import annotations

import string
import threading
import time
from collections import Counter
from collections.abc import Callable

from dlqhandler.errors import ConfigError
from dlqhandler.mq.ages import AgeWindow, dead_lettered_at
from dlqhandler.mq.message import Message
from dlqhandler.rules import PATTERN_FIELDS, Matcher, compile_rules, pattern_keywords

__all__ = ["RateLimiter", "Selector"]


class Selector:
    """Which DLQ messages this run may act on (all, when empty)."""

    def __init__(
        self,
        msg_ids: list[bytes] | None = None,
        match: str | None = None,
        *,
        older_than: float | None = None,
        newer_than: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.msg_ids = frozenset(msg_ids or ())
        # What this run's pass found, so that a selection of nothing is said
        # (``--msgid`` naming no message on the queue, a pattern matching none).
        self.found: set[bytes] = set()
        # ``--msgid`` values found in a group left on the queue (members missing, or one
        # without an MQDLH), by MsgId: the group's GroupId (a group moves whole or not).
        self.held_in_group: dict[bytes, bytes] = {}
        self.selected = 0
        # How many messages each ``--msgid`` selected: MQ makes MsgIds unique, but an
        # application that sets its own can put two alike, and the run acts on both.
        self.selected_by_id: Counter[bytes] = Counter()
        # Groups acted on whole though not every member was selected (a group moves whole
        # or not at all), by GroupId: (members selected, members).
        self.whole_groups: dict[bytes, tuple[int, int]] = {}
        # groups left because a discard would remove members this selector did not select
        self.refused_groups: dict[bytes, tuple[int, int]] = {}
        self.ages = AgeWindow(older_than, newer_than)
        self._clock = clock
        self._matcher: Matcher | None = None
        if match:
            held = [k for k in pattern_keywords(match) if k not in PATTERN_FIELDS]
            if held:  # ACTION, FWDQ, RETRY..., INPUTQ...: not a pattern's to say
                raise ConfigError(
                    f"--match {match!r} holds {', '.join(held)}: a pattern only selects "
                    "messages (pattern keywords such as REASON, DESTQ, FORMAT, PERSIST) and "
                    "may not hold an action or control data; say what to do with the "
                    "selected messages with --action (e.g. --action discard, --action "
                    "fwd:QUEUE, --action retry)"
                )
            result = compile_rules(f"{match} ACTION(DISCARD)\n", source="--match")
            errors = [d for d in result.diagnostics if d.severity == "error"]
            if result.ruleset is None or errors:
                detail = "; ".join(f"col {d.column}: {d.message}" for d in errors)
                raise ConfigError(f"--match {match!r} is not a valid pattern: {detail}")
            self._matcher = Matcher(result.ruleset)

    @classmethod
    def parse(
        cls,
        msgids: list[str] | None,
        match: str | None,
        *,
        older_than: str | None = None,
        newer_than: str | None = None,
    ) -> Selector:
        ages = AgeWindow.parse(older_than, newer_than)
        ids = []
        for text in msgids or ():
            bad = next((c for c in text if c not in string.hexdigits), None)
            if bad is not None:
                raise ConfigError(
                    f"--msgid {text!r} is not hexadecimal: {bad!r} is not a hex digit "
                    "(0-9, A-F); give the MsgId as dmpmqmsg and qm browse show it"
                )
            if len(text) % 2:
                raise ConfigError(
                    f"--msgid {text!r} has an odd number of hex digits ({len(text)}): a "
                    "MsgId is bytes, two hex digits each; give every digit as qm browse "
                    "shows it (a shorter MsgId is taken as its first bytes)"
                )
            raw = bytes.fromhex(text)
            if not 0 < len(raw) <= 24:
                raise ConfigError(f"--msgid {text!r} must be 1 to 24 bytes")
            ids.append(raw.ljust(24, b"\x00"))
        return cls(ids, match, older_than=ages.older_than, newer_than=ages.newer_than)

    @property
    def active(self) -> bool:
        return bool(self.msg_ids) or self._matcher is not None or self.ages.active

    def saw(self, msg_id: bytes) -> bool:
        """Note that a message with this MsgId is on the queue; True when ``--msgid``
        names it."""
        if msg_id in self.msg_ids:
            self.found.add(msg_id)
            return True
        return False

    def left_in_group(self, msg_id: bytes, group_id: bytes) -> None:
        """Note that the message with this MsgId is in a group this pass leaves whole on
        the queue (incomplete, or a member without an MQDLH), when ``--msgid`` names it."""
        if msg_id in self.msg_ids:
            self.held_in_group[msg_id] = group_id

    def missing(self) -> list[bytes]:
        """The ``--msgid`` values no message seen on the queue had, in order."""
        return sorted(self.msg_ids - self.found)

    def took_group(self, group_id: bytes, chosen: list[bool]) -> None:
        """Note that the members of a group were examined and ``chosen`` says which this
        selector selects: the group is acted on whole when any is, so the members it did not
        select are remembered, to be said."""
        if any(chosen) and not all(chosen):
            self.whole_groups[group_id] = (sum(chosen), len(chosen))

    def refused_group(self, group_id: bytes, chosen: list[bool]) -> None:
        """Note that a group of which this selector selected only some members (``chosen``)
        was left on the queue: a discard would remove the others too."""
        self.refused_groups[group_id] = (sum(chosen), len(chosen))

    def repeated(self) -> list[tuple[bytes, int]]:
        """The ``--msgid`` values that selected more than one message, with how many, in
        order."""
        return sorted((i, n) for i, n in self.selected_by_id.items() if n > 1)

    def selects(self, message: Message) -> bool:
        """True when the run may act on this (decoded) message (counted in ``selected``,
        and by MsgId in ``selected_by_id`` when ``--msgid`` names it)."""
        chosen = self._selects(message)
        self.selected += chosen
        if chosen and message.md.msg_id in self.msg_ids:
            self.selected_by_id[message.md.msg_id] += 1
        return chosen

    def _selects(self, message: Message) -> bool:
        if self.msg_ids and not self.saw(message.md.msg_id):
            return False
        if self.ages.active and not self.ages.admits(dead_lettered_at(message), self._clock()):
            return False
        if self._matcher is not None:
            return bool(self._matcher.decide(message, 0).rule is not None)
        return True


class RateLimiter:
    """Token bucket: at most ``rate`` acquisitions per second, bursts of ``burst``."""

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0:
            raise ConfigError("--max-rate must be positive")
        self.rate = rate
        self.burst = burst if burst is not None else max(1.0, rate)
        self._tokens = self.burst
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._lock = threading.Lock()
        self.granted = 0

    def acquire(self, stop: threading.Event | None = None) -> bool:
        """Wait for a token; False when ``stop`` was set while waiting."""
        while True:
            wait = self._take()
            if wait == 0.0:
                return True
            if stop is not None and stop.is_set():
                return False
            self._sleep(min(wait, 0.5))

    def try_acquire(self) -> bool:
        """Take a token if one is there now; never waits."""
        return self._take() == 0.0

    def _take(self) -> float:
        """Take a token (0.0), or say how long until one is due."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            if self._tokens >= 1 - 1e-9:
                self._tokens = max(0.0, self._tokens - 1)
                self.granted += 1
                return 0.0
            return (1 - self._tokens) / self.rate
