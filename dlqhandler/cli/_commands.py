"""The commands, in the order ``dlqhandler --help`` lists them, with the line it shows for
each. The one place that names them: ``cli/__init__.py`` imports only the module of the
command that runs (``dlqhandler --help`` imports none), and each module's parser takes its
help line from here."""

from __future__ import annotations

__all__ = ["COMMANDS"]

COMMANDS: dict[str, str] = {
    "run": "run the dead-letter queue handler (runmqdlq compatible)",
    "lint": "check rules tables (runmqdlq syntax) and report every problem",
    "test": "check a rules table against test cases written as data (YAML)",
    "check": "check a queue manager's dead-letter set-up",
    "drain": "bulk drain of a DLQ backlog on Spark",
    "report": "read-only report on a DLQ backlog (and what a rules table would do)",
    "qm": "administer embedded queue managers (create, mqsc, dmpmqmsg...)",
    "samples": "generate sample dead-letter backlogs",
    "decode": "print one line per message of a dmpmqmsg file",
    "audit": "print the audit records of one-off actions (browse only)",
}
