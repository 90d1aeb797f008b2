"""What ``dlqhandler check`` reports: one :class:`Finding` per thing it looked at.

:class:`Checker` is what every check works with: it asks the queue manager
(MQINQ through the port) and collects the findings in a :class:`SetupReport`. A
finding says how bad it is (:data:`SEVERITIES`, worst first), which object,
what is wrong, why it matters and the MQSC that fixes it. ``ok`` findings say
what was checked and found right; ``not checked`` ones what the queue manager
could not tell (never counted as passed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import MQRC_UNKNOWN_ALIAS_BASE_Q, MQRC_UNKNOWN_OBJECT_NAME
from dlqhandler.qmgr.port import Answers, QueueManager

__all__ = [
    "SEVERITIES",
    "Checker",
    "Finding",
    "SetupReport",
    "Severity",
    "mqsc_name",
    "worst",
]

Severity = Literal["error", "warning", "not checked", "ok"]
_MISSING = (MQRC_UNKNOWN_OBJECT_NAME, MQRC_UNKNOWN_ALIAS_BASE_Q)
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "not checked", "ok")
_PLAIN = re.compile(r"[A-Z0-9._/%]+")


def mqsc_name(name: str) -> str:
    """An object name as MQSC takes it back unchanged: as it is when it holds only
    upper-case letters, digits, ``.``, ``/``, ``_`` and ``%``; otherwise in single
    quotes, a quote inside doubled. IBM's MQSC rules: unquoted lower case is folded to
    upper case, and strings holding blanks, lower case or other special characters must
    be quoted (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=commands-mqsc-command-syntax).
    Every fix ``check`` prints names its objects this way."""
    if _PLAIN.fullmatch(name):
        return name
    return "'" + name.replace("'", "''") + "'"


@dataclass(frozen=True, slots=True)
class Finding:
    """One result: ``check`` is a stable id (``dlq-put``), ``object`` the MQ object."""

    check: str
    severity: Severity
    object: str
    problem: str
    why: str = ""
    fix: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def worst(findings: list[Finding]) -> Severity:
    """The most severe of ``findings`` (``ok`` when there are none)."""
    ranks = [SEVERITIES.index(f.severity) for f in findings]
    return SEVERITIES[min(ranks)] if ranks else "ok"


@dataclass
class SetupReport:
    """The findings of one check, in reading order."""

    qmgr: str
    dlq: str
    findings: list[Finding] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


class Checker:
    """What a check works with: the connection to ask and the report to add to."""

    def __init__(self, qm: QueueManager, report: SetupReport) -> None:
        self.qm = qm
        self.report = report

    # The fields of a Finding, in order.
    def add(  # noqa: PLR0917
        self,
        check: str,
        severity: Severity,
        obj: str,
        problem: str,
        why: str = "",
        fix: str = "",
    ) -> None:
        self.report.findings.append(Finding(check, severity, obj, problem, why, fix))

    def ask(
        self, kind: Literal["queue", "process"], name: str, selectors: Sequence[int]
    ) -> Answers | None:
        """The answers, or None when the object does not exist (2085, 2082)."""
        try:
            return self.qm.inquire_object(kind, name, selectors)
        except MQIError as exc:
            if exc.reason in _MISSING:
                return None
            raise

    def unknown(self, check: str, obj: str, what: str, selector: int) -> None:
        """A ``not checked`` finding: the queue manager did not answer ``selector``."""
        name = s.SELECTOR_NAMES.get(selector, str(selector))
        self.add(
            check, "not checked", obj, f"{what}: this queue manager does not answer MQINQ {name}"
        )
