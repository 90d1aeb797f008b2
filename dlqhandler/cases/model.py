"""A case file as values: cases, each a message, an attempt count and an expectation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dlqhandler.mq import Message
from dlqhandler.rules.diagnostics import Diagnostic
from dlqhandler.rules.ir import ActionKind

__all__ = ["ACTIONS", "Case", "CaseFile", "Expect", "Where"]

ACTIONS: tuple[ActionKind, ...] = ("RETRY", "FWD", "DISCARD", "IGNORE")


@dataclass(frozen=True, slots=True)
class Where:
    """A 1-based line and column in a case file (``end_column`` when on the same line)."""

    line: int
    column: int
    end_column: int | None = None


@dataclass(frozen=True, slots=True)
class Expect:
    """What a case expects. None means "not stated, not checked".

    ``rule`` is the line the deciding rule starts on, or ``"none"`` for the implicit
    IGNORE; ``fwdq``/``fwdqm`` are the target after substitution (``""`` for FWDQM: the
    local queue manager); ``header`` is HEADER(YES) (True) or HEADER(NO) (False).
    """

    action: ActionKind
    rule: int | Literal["none"] | None = None
    fwdq: str | None = None
    fwdqm: str | None = None
    header: bool | None = None
    rule_at: Where | None = None  # where ``rule`` is written (to point at a wrong line)


@dataclass(frozen=True, slots=True)
class Case:
    """One case: its name and line, the message ``run`` would get, attempts, expectation.

    ``fields`` holds the pattern keywords the case gives (keyword -> value), as written
    once names are turned into numbers.
    """

    name: str
    line: int
    message: Message
    attempts: int
    expect: Expect
    fields: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CaseFile:
    """A case file read: its cases, the ``rules`` key (None if absent) and where it is, and
    every problem found (at most the cap; the rest counted by code in ``omitted``)."""

    path: str
    text: str
    cases: tuple[Case, ...]
    rules: str | None
    rules_at: Where | None
    diagnostics: tuple[Diagnostic, ...]
    omitted: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.diagnostics and not self.omitted
