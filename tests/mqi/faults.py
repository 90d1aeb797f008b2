"""Fault injection at the MQI: make calls of a kind fail with a reason code.

:meth:`Faults.fail` scripts the next N calls of a verb (after skipping some);
:meth:`Faults.randomly` makes a seeded fraction of calls fail with reasons
drawn per verb. The stand-in asks :meth:`Faults.take` at the start of each
call and carries the reason out as a queue manager would (see
:mod:`tests.mqi.standin`: 2009 breaks the connection and backs its unit of work
out, 2003 on MQCMIT backs the unit of work out and answers MQCC_WARNING as IBM's MQCMIT
does, 2080 makes the get behave as if the buffer were too small, anything else
fails the call before it does anything).

A child process (``dlqhandler run`` started by a test) reads
``MQI_STANDIN_FAULTS``: JSON ``{"rate": 0.02, "seed": 7, "reasons": {"MQGET":
[2009]}}``.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field

__all__ = ["Faults", "Injected"]


@dataclass(frozen=True)
class Injected:
    """One fault the stand-in carried out: which call (its number) of which verb, and why."""

    verb: str
    call: int
    reason: int


@dataclass
class _Random:
    rate: float
    reasons: dict[str, list[int]]
    rng: random.Random


@dataclass
class Faults:
    """Scripted and random MQI failures; :attr:`injected` lists those carried out."""

    injected: list[Injected] = field(default_factory=list)
    _scripted: dict[str, deque[tuple[int, int]]] = field(default_factory=lambda: defaultdict(deque))
    _random: _Random | None = None
    _calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _coin: random.Random = field(default_factory=lambda: random.Random(0))

    def fail(self, verb: str, reason: int, times: int = 1, *, after: int = 0) -> None:
        """The next ``times`` calls of ``verb``, after ``after`` more succeed, fail with
        ``reason``."""
        with self._lock:
            queue = self._scripted[verb]
            for i in range(times):
                queue.append((after if i == 0 else 0, reason))

    def randomly(self, rate: float, reasons: dict[str, list[int]], seed: int) -> None:
        """A fraction ``rate`` of the calls of each verb in ``reasons`` fail with one of its
        reasons (seeded, so a failing run can be repeated)."""
        self._random = _Random(rate, {k: list(v) for k, v in reasons.items()}, random.Random(seed))

    def clear(self) -> None:
        with self._lock:
            self._scripted.clear()
            self._random = None
            self.injected.clear()
            self._calls.clear()
            self._coin.seed(0)

    def take(self, verb: str) -> int:
        """The reason this call of ``verb`` fails with, or 0."""
        with self._lock:
            self._calls[verb] += 1
            number = self._calls[verb]
            reason = 0
            queue = self._scripted.get(verb)
            if queue:
                skip, scripted = queue[0]
                if skip > 0:
                    queue[0] = (skip - 1, scripted)
                else:
                    queue.popleft()
                    reason = scripted
            r = self._random
            if not reason and r is not None and verb in r.reasons and r.rng.random() < r.rate:
                reason = r.rng.choice(r.reasons[verb])
            if reason:
                self.injected.append(Injected(verb, number, reason))
            return reason

    def coin(self) -> bool:
        """A seeded coin: whether an MQCMIT broken by 2009 had committed."""
        return self._coin.random() < 0.5

    def pending(self) -> int:
        """How many scripted faults are still to come."""
        with self._lock:
            return sum(len(q) for q in self._scripted.values())

    def load_env(self) -> None:
        """Random faults from ``$MQI_STANDIN_FAULTS`` (for child processes)."""
        spec = os.environ.get("MQI_STANDIN_FAULTS")
        if spec:
            data = json.loads(spec)
            self.randomly(float(data["rate"]), data["reasons"], int(data.get("seed", 0)))
