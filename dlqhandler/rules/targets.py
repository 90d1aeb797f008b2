"""Where a RETRY or FWD puts the message: substitutions resolved, names checked.

RETRY goes back to ``MQDLH.DestQName`` at ``MQDLH.DestQMgrName``. FWD goes to
FWDQ at FWDQM, where ``&DESTQ``/``&REPLYQ`` take ``MQDLH.DestQName`` /
``MQMD.ReplyToQ`` and ``&DESTQM``/``&REPLYQM`` take ``MQDLH.DestQMgrName`` /
``MQMD.ReplyToQMgr`` (spec §4.3). Values from messages are untrusted: a blank
or invalid queue name raises :class:`InvalidTargetError`. A blank queue
manager name is the local queue manager (``""``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dlqhandler.errors import DLQHandlerError
from dlqhandler.mq import Message
from dlqhandler.mq.names import validate_qmgr_name, validate_queue_name
from dlqhandler.rules.ir import Action, Rule

__all__ = ["InvalidTargetError", "ResolvedTarget", "resolve_target"]


class InvalidTargetError(DLQHandlerError):
    """A RETRY/FWD target that cannot be used: blank or invalid after substitution.

    ``field`` names where the bad name came from (``MQDLH.DestQName``, ``FWDQ``...),
    ``value`` is the name as found, ``rule_line`` the rule's line when known.
    """

    def __init__(
        self, message: str, *, field: str, value: str, rule_line: int | None = None
    ) -> None:
        where = f" (rule at line {rule_line})" if rule_line is not None else ""
        super().__init__(message + where)
        self.field = field
        self.value = value
        self.rule_line = rule_line


@dataclass(frozen=True, slots=True)
class ResolvedTarget:
    """A concrete queue and queue manager (``""`` = the local queue manager)."""

    queue: str
    qmgr: str


_QUEUE_SOURCES = {
    "&DESTQ": ("dlh", "dest_q_name", "MQDLH.DestQName"),
    "&REPLYQ": ("md", "reply_to_q", "MQMD.ReplyToQ"),
}
_QMGR_SOURCES = {
    "&DESTQM": ("dlh", "dest_q_mgr_name", "MQDLH.DestQMgrName"),
    "&REPLYQM": ("md", "reply_to_q_mgr", "MQMD.ReplyToQMgr"),
}


def _field(message: Message, structure: str, attribute: str, label: str, line: int | None) -> str:
    source = message.md if structure == "md" else message.dlh
    if source is None:
        raise InvalidTargetError(
            f"{label} is needed but the message has no MQDLH", field=label, value="", rule_line=line
        )
    value = getattr(source, attribute)
    assert isinstance(value, str)
    return value


def _queue(name: str, label: str, line: int | None) -> str:
    try:
        return validate_queue_name(name, label)
    except ValueError as exc:
        raise InvalidTargetError(str(exc), field=label, value=name, rule_line=line) from exc


def _qmgr(name: str, label: str, line: int | None) -> str:
    try:
        return validate_qmgr_name(name, label)
    except ValueError as exc:
        raise InvalidTargetError(str(exc), field=label, value=name, rule_line=line) from exc


def resolve_target(rule_or_action: Rule | Action, message: Message) -> ResolvedTarget:
    """The queue and queue manager a RETRY or FWD of ``message`` puts to.

    ``ValueError`` for DISCARD/IGNORE (they put nothing); :class:`InvalidTargetError`
    when a name is blank, invalid, or needs an MQDLH the message lacks.
    """
    if isinstance(rule_or_action, Rule):
        action, line = rule_or_action.action, rule_or_action.line
    else:
        action, line = rule_or_action, None
    if action.kind == "RETRY":
        q = _field(message, "dlh", "dest_q_name", "MQDLH.DestQName", line)
        qm = _field(message, "dlh", "dest_q_mgr_name", "MQDLH.DestQMgrName", line)
        return ResolvedTarget(
            _queue(q, "MQDLH.DestQName", line), _qmgr(qm, "MQDLH.DestQMgrName", line)
        )
    if action.kind != "FWD" or action.fwdq is None:
        raise ValueError(f"ACTION({action.kind}) has no target")
    if action.fwdq in _QUEUE_SOURCES:
        structure, attribute, label = _QUEUE_SOURCES[action.fwdq]
        queue = _queue(_field(message, structure, attribute, label, line), label, line)
    else:
        queue = _queue(action.fwdq, "FWDQ", line)
    if action.fwdqm is None:
        qmgr = ""
    elif action.fwdqm in _QMGR_SOURCES:
        structure, attribute, label = _QMGR_SOURCES[action.fwdqm]
        qmgr = _qmgr(_field(message, structure, attribute, label, line), label, line)
    else:
        qmgr = _qmgr(action.fwdqm, "FWDQM", line)
    return ResolvedTarget(queue, qmgr)
