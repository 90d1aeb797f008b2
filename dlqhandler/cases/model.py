"""A case file as values: cases, each a message, an attempt count and an expectation."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Literal

from dlqhandler.mq import Message
from dlqhandler.rules.diagnostics import Diagnostic
from dlqhandler.rules.ir import ActionKind

__all__ = ["ACTIONS", "Case", "CaseFile", "Expect", "RunSetup", "Where"]

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
    local queue manager); ``header`` is HEADER(YES) (True) or HEADER(NO) (False);
    ``refused`` is the failure reason ``run`` gives when it refuses the RETRY or FWD
    (``FORWARD_LOOP``...): None expects no refusal, and is checked whether written or not;
    ``putaut`` is the rule's PUTAUT (``DEF``, or ``CTX``: put with the message's
    UserIdentifier as the alternate user).
    """

    action: ActionKind
    rule: int | Literal["none"] | None = None
    fwdq: str | None = None
    fwdqm: str | None = None
    header: bool | None = None
    rule_at: Where | None = None  # where ``rule`` is written (to point at a wrong line)
    refused: str | None = None
    putaut: Literal["DEF", "CTX"] | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """One case: its name and line, the message ``run`` would get, attempts, expectation.

    ``fields`` holds the pattern keywords the case gives (keyword -> value), as written
    once names are turned into numbers; ``hops`` is how many MQDLHs the message carries
    (its ``HOPS``: 1, or more for a message dead-lettered again after a forward with its
    header).
    """

    name: str
    line: int
    message: Message
    attempts: int
    expect: Expect
    fields: dict[str, str | int] = field(default_factory=dict)
    hops: int = 1
    column: int = 1  # where the case starts on its line (its first key)


@dataclass(frozen=True, slots=True)
class RunSetup:
    """How ``dlqhandler run`` is started, as far as it changes what it does with a
    message: the INPUTQ and INPUTQM positionals, ``--status-queue``, ``--audit-queue``
    and ``--max-hops``. None means "not given": ``run``'s own default then (the table's
    INPUTQ/INPUTQM, else the queue manager's DEADQ; DLQHANDLER.STATUS, DLQHANDLER.AUDIT,
    5). Names are checked as MQ names where they are read."""

    inputq: str | None = None
    inputqm: str | None = None
    status_queue: str | None = None
    audit_queue: str | None = None
    max_hops: int | None = None

    def over(self, base: RunSetup) -> RunSetup:
        """This setup where it gives a value, ``base`` where it does not (the command
        line's options over a case file's ``run:``)."""
        given = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(base, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True, slots=True)
class CaseFile:
    """A case file read: its cases, the ``rules`` key (None if absent) and where it is, how
    ``run`` is started (its ``run`` key), and every problem found (at most the cap; the
    rest counted by code in ``omitted``)."""

    path: str
    text: str
    cases: tuple[Case, ...]
    rules: str | None
    rules_at: Where | None
    diagnostics: tuple[Diagnostic, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    run: RunSetup = RunSetup()

    @property
    def ok(self) -> bool:
        return not self.diagnostics and not self.omitted
