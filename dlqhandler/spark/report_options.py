"""What a backlog report is asked for: the time ages are measured to, the tables, the
list bound."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dlqhandler.rules import RuleSet

__all__ = ["ReportOptions"]


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What to report on: ``as_of`` (aware), the tables, the list bound ``top``."""

    as_of: datetime
    ruleset: RuleSet | None = None
    old_ruleset: RuleSet | None = None
    input_queue: str | None = None
    local_qmgr: str = ""
    top: int = 1000
