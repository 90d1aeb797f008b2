"""What a backlog report is asked for: the time ages are measured to, the age selectors,
the tables, the list bound."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from dlqhandler.mq.ages import AgeWindow
from dlqhandler.rules import RuleSet
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS

__all__ = ["ReportOptions"]


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What to report on: ``as_of`` (aware; ages are measured to it), the messages
    ``ages`` selects (all by default), the tables, the list bound ``top``, and the queue
    the drain would send what stays on the DLQ to (``catch_all``: its ``--catch-all``,
    or the table's last unconditional FWD; None: none)."""

    as_of: datetime
    ruleset: RuleSet | None = None
    old_ruleset: RuleSet | None = None
    input_queue: str | None = None
    local_qmgr: str = ""
    top: int = 1000
    ages: AgeWindow = field(default_factory=AgeWindow)
    catch_all: str | None = None
    old_catch_all: str | None = None  # the same for the table compared against
    # each table's floors for the messages with failed attempts on record (a snapshot's),
    # a view of dlqhandler.spark.classify.floors_view: no rule before a message's floor
    floors: str | None = None
    old_floors: str | None = None
    max_hops: int = (
        DEFAULT_MAX_HOPS  # run's --max-hops: a put of a message with as many MQDLHs is refused
    )
