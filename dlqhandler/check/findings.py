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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import (
    MQRC_NOT_AUTHORIZED,
    MQRC_UNKNOWN_ALIAS_BASE_Q,
    MQRC_UNKNOWN_OBJECT_NAME,
)
from dlqhandler.qmgr.port import Answers, QueueManager

__all__ = [
    "SEVERITIES",
    "Checker",
    "Finding",
    "InquiryRefusedError",
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


class InquiryRefusedError(Exception):
    """The queue manager refused an inquiry (2035): its ``auth-inq`` finding is in the
    report already; the check that asked stops there and the others go on
    (:meth:`Checker.each`)."""


class Checker:
    """What a check works with: the connection to ask and the report to add to."""

    def __init__(self, qm: QueueManager, report: SetupReport) -> None:
        self.qm = qm
        self.report = report
        self._refused: set[tuple[str, str]] = set()

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
            if exc.reason == MQRC_NOT_AUTHORIZED:
                self._cannot_inquire(kind, name)
                raise InquiryRefusedError(name) from exc
            raise

    def _cannot_inquire(self, kind: Literal["queue", "process"], name: str) -> None:
        """The ``auth-inq`` finding of an object this user may not inquire (once each)."""
        if (kind, name) in self._refused:
            return
        self._refused.add((kind, name))
        quoted = mqsc_name(name)
        self.add(
            "auth-inq",
            "error",
            f"{kind.upper()}({name})",
            f"cannot inquire {name}: not authorised (MQRC_NOT_AUTHORIZED 2035)",
            "without inq authority the check cannot tell whether this object is right, and "
            "dlqhandler run cannot tell how many messages its DLQ has left",
            f"grant +inq: setmqaut -m {self.report.qmgr} -n {name} -t {kind} -p <user> +inq, "
            f"or SET AUTHREC PROFILE({quoted}) OBJTYPE({kind.upper()}) PRINCIPAL('<user>') "
            "AUTHADD(INQ)",
        )

    def ask_qmgr(self, selectors: Sequence[int]) -> Answers:
        """The queue manager's answers; a refused inquiry (2035) is its auth-inq finding
        and ends the step that asked (:meth:`each`)."""
        try:
            return self.qm.inquire_object("qmgr", "", selectors)
        except MQIError as exc:
            if exc.reason != MQRC_NOT_AUTHORIZED:
                raise
            self.cannot_inquire_qmgr()
            raise InquiryRefusedError("qmgr") from exc

    def cannot_inquire_qmgr(self) -> None:
        """The ``auth-inq`` finding of a queue manager this user may not inquire: its
        DEADQ (and so the DLQ's checks) is unknown. Once."""
        if ("qmgr", "") in self._refused:
            return
        self._refused.add(("qmgr", ""))
        self.add(
            "auth-inq",
            "error",
            f"QMGR({self.report.qmgr})",
            f"cannot inquire queue manager {self.report.qmgr}: not authorised "
            "(MQRC_NOT_AUTHORIZED 2035); its DEADQ and the DLQ were not checked",
            "without inq authority on the queue manager the check cannot tell which queue "
            "dead letters go to",
            f"grant +inq: setmqaut -m {self.report.qmgr} -t qmgr -p <user> +inq, or "
            "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('<user>') AUTHADD(INQ)",
        )

    def each(self, step: Callable[..., object], *args: object, **kwargs: object) -> object:
        """``step(*args, **kwargs)``; an inquiry it makes that is refused ends only that step
        (its finding is in the report) and answers None."""
        try:
            return step(*args, **kwargs)
        except InquiryRefusedError:
            return None

    def unknown(self, check: str, obj: str, what: str, selector: int) -> None:
        """A ``not checked`` finding: the queue manager did not answer ``selector``."""
        name = s.SELECTOR_NAMES.get(selector, str(selector))
        self.add(
            check, "not checked", obj, f"{what}: this queue manager does not answer MQINQ {name}"
        )
