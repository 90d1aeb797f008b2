"""Counters for one handler run and the end-of-run summary.

The summary is ours (IBM does not document runmqdlq's): it is modelled on the
z/OS CSQU202I/CSQU203I lines and adds per-rule and per-reason detail.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["RunStats"]


@dataclass
class RunStats:
    """What one run did. Memory is bounded by the number of rules and reasons.

    ``ignored`` and ``no_dlh`` are what the last complete pass left on the
    queue (IGNORE, explicit or implicit; no valid MQDLH). ``put_failures``
    counts failed attempts by MQ reason name (or INVALID_TARGET,
    FORWARD_LOOP, UNUSABLE_USERID when no put was made). In a dry run the
    action counts are what *would* have been done, and ``put_failures`` what
    would be refused. ``not_selected``: what the last complete pass left because
    ``--msgid``/``--match`` did not select it; ``failed``: the messages (each member
    of a group) whose last action in this run failed (a dry run: would be
    refused), including those ``waiting`` to retry: what the run could not act
    on (:attr:`unresolved`).
    """

    seen: int = 0
    retried: int = 0
    forwarded: int = 0
    discarded: int = 0
    ignored: int = 0
    no_dlh: int = 0
    waiting: int = 0
    not_selected: int = 0
    failed: int = 0
    put_failures: Counter[str] = field(default_factory=Counter)
    by_rule: Counter[tuple[int, str]] = field(default_factory=Counter)
    loops: int = 0
    vanished: int = 0
    groups_moved: int = 0
    reloads: int = 0
    reload_failures: int = 0
    commits: int = 0
    backouts: int = 0
    passes: int = 0
    status_records_collected: int = 0
    left_on_queue: int | None = None
    # Why the end-of-run depth inquiry failed (None: it did not): ``left_on_queue`` is then
    # unknown and ``seen`` only a lower bound (the messages moved, and those the last
    # pass left: ignored, without MQDLH, not selected).
    depth_unknown: str | None = None
    dry_run: bool = False
    # MsgIds (hex) of a unit of work whose commit's outcome is unknown (the connection
    # broke during MQCMIT): neither moved nor failed. At most one unit: the run ends there.
    unknown_outcome: list[str] = field(default_factory=list)

    def record_action(self, line: int | None, action: str) -> None:
        """Count a completed action for the rule on ``line`` (None: implicit IGNORE)."""
        self.by_rule[(line or 0, action)] += 1
        if action == "RETRY":
            self.retried += 1
        elif action == "FWD":
            self.forwarded += 1
        elif action == "DISCARD":
            self.discarded += 1

    def record_failure(self, line: int | None, reason: str) -> None:
        """Count a failed attempt (a put that failed, or a target that cannot be used)."""
        self.put_failures[reason] += 1
        self.by_rule[(line or 0, "FAILED")] += 1
        if reason == "FORWARD_LOOP":
            self.loops += 1

    @property
    def unresolved(self) -> int:
        """Messages left on the queue because their action failed (and may wait to retry)."""
        return self.failed

    @property
    def acted(self) -> int:
        return self.retried + self.forwarded + self.discarded

    def as_dict(self) -> dict[str, object]:
        return {
            "seen": self.seen,
            "retried": self.retried,
            "forwarded": self.forwarded,
            "discarded": self.discarded,
            "ignored": self.ignored,
            "no_dlh": self.no_dlh,
            "waiting_retry": self.waiting,
            "not_selected": self.not_selected,
            "failed": self.failed,
            "loops": self.loops,
            "vanished": self.vanished,
            "groups_moved": self.groups_moved,
            "left_on_queue": self.left_on_queue,
            "depth_unknown": self.depth_unknown,
            "put_failures": dict(sorted(self.put_failures.items())),
            "by_rule": [
                {"line": line, "action": action, "count": n}
                for (line, action), n in sorted(self.by_rule.items())
            ],
            "passes": self.passes,
            "commits": self.commits,
            "backouts": self.backouts,
            "reloads": self.reloads,
            "reload_failures": self.reload_failures,
            "dry_run": self.dry_run,
            "unknown_outcome": list(self.unknown_outcome),
        }

    def render(self, queue: str) -> list[str]:
        """Human summary lines, printed at the end of a run."""
        verb = "would be " if self.dry_run else ""
        lines = [
            f"Summary for INPUTQ({queue})"
            + (" - dry run, nothing was changed:" if self.dry_run else ":"),
            f"  messages seen          {self.seen:>10}"
            + ("  (at least: the depth is unknown)" if self.depth_unknown else ""),
            f"  {verb + 'retried':<22} {self.retried:>10}",
            f"  {verb + 'forwarded':<22} {self.forwarded:>10}",
            f"  {verb + 'discarded':<22} {self.discarded:>10}",
            f"  ignored                {self.ignored:>10}",
            f"  without MQDLH          {self.no_dlh:>10}",
            f"  waiting to retry       {self.waiting:>10}",
            f"  {'would fail' if self.dry_run else 'failed, left':<22} {self.failed:>10}",
            f"  forward loops refused  {self.loops:>10}",
        ]
        if self.unknown_outcome:
            lines.append(f"  outcome unknown        {len(self.unknown_outcome):>10}")
            lines += [f"    msgid {msgid}" for msgid in self.unknown_outcome]
        if self.not_selected:
            lines.append(f"  not selected           {self.not_selected:>10}")
        if self.left_on_queue is not None:
            lines.append(f"  left on the queue      {self.left_on_queue:>10}")
        elif self.depth_unknown:
            lines.append(f"  left on the queue      {'unknown':>10}  ({self.depth_unknown})")
        if self.put_failures:
            lines.append("  failed attempts by reason:")
            lines += [f"    {reason:<36}{n:>8}" for reason, n in sorted(self.put_failures.items())]
        if self.by_rule:
            lines.append("  by rule line:")
            lines += [
                f"    line {line:>5}  {action:<10}{n:>10}"
                if line
                else f"    (no rule)   {action:<10}{n:>10}"
                for (line, action), n in sorted(self.by_rule.items())
            ]
        return lines
