"""Rules tables tested as data: case files, their checking, coverage and generation.

A case file (YAML) states what a table must do with a message: :func:`read_cases` reads
it (every problem with its line and column), :func:`run_cases` asks the matcher ``run``
uses (:class:`~dlqhandler.rules.Matcher`, substitution by
:func:`~dlqhandler.rules.resolve_target`) what it does with each case's message and
compares, :func:`coverage` counts the cases each rule decided, and
:func:`generate_cases` writes today's decisions on a backlog as a case file. This package
reads no file: the command line passes the bytes and the messages. It imports only rules,
mq and errors (and yaml, which no other package imports): never a queue manager.
"""

from dlqhandler.cases.generate import Generated, generate_cases
from dlqhandler.cases.model import Case, CaseFile, Expect, RunSetup, Where
from dlqhandler.cases.reader import check_rule_lines, read_cases
from dlqhandler.cases.runner import (
    Coverage,
    Outcome,
    Result,
    RunAs,
    coverage,
    outcome,
    run_as,
    run_cases,
)

__all__ = [
    "Case",
    "CaseFile",
    "Coverage",
    "Expect",
    "Generated",
    "Outcome",
    "Result",
    "RunAs",
    "RunSetup",
    "Where",
    "check_rule_lines",
    "coverage",
    "generate_cases",
    "outcome",
    "read_cases",
    "run_as",
    "run_cases",
]
