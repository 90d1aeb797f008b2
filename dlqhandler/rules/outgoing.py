"""What a RETRY or FWD decision puts: the message and its target.

RETRY puts the original message back (MQDLH stripped, Format/Encoding/CCSID
restored) to DestQName at DestQMgrName; FWD puts to FWDQ at FWDQM with the
MQDLH (HEADER(YES)) or without it (HEADER(NO)). Both back ends (the worker and
the Spark drain's apply mode) call :func:`plan_outgoing`, so the language's
action semantics live in one place. A loop is refused: a target that is the
input DLQ on the local queue manager, or a message that already carries
``max_hops`` dead-letter headers (it went round and came back each time). So is a
target that is one of the handler's control queues (its status queue of attempt
counts, its audit queue) on the local queue manager: a message put there would be
read as an attempt record or an audit record. :func:`control_queue_targets` finds the
rules that name one outright, so a run refuses them before anything moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dlqhandler.errors import DLQHandlerError, MalformedMessageError
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1, MQFMT_DEAD_LETTER_HEADER, decode_mqdlh
from dlqhandler.rules.ir import Rule
from dlqhandler.rules.matcher import Decision
from dlqhandler.rules.targets import InvalidTargetError, ResolvedTarget, resolve_target

__all__ = [
    "DEFAULT_MAX_HOPS",
    "REFUSALS",
    "ActionError",
    "ControlQueueError",
    "ControlTarget",
    "ForwardLoopError",
    "control_queue_targets",
    "header_depth",
    "plan_outgoing",
    "refusal",
]


class ActionError(DLQHandlerError):
    """The decision cannot be carried out for this message (counts as a failure)."""


class ForwardLoopError(ActionError):
    """The message would go round a loop (back to the DLQ, or too many hops)."""


class ControlQueueError(ActionError):
    """The target is one of the handler's control queues (status or audit queue)."""


# The failure reason of a decision refused before any put, by what :func:`plan_outgoing`
# (or the caller's own loop check) raised: the ``reason_name`` of run's ``put_failed``
# event, its summary and metrics, and what a case file's ``refused`` expects.
REFUSALS = ("FORWARD_LOOP", "CONTROL_QUEUE", "INVALID_TARGET", "UNUSABLE_USERID")


def refusal(exc: Exception) -> str:
    """The failure reason (one of :data:`REFUSALS`) for a decision that could not even
    be tried."""
    if isinstance(exc, ForwardLoopError):
        return "FORWARD_LOOP"
    if isinstance(exc, ControlQueueError):
        return "CONTROL_QUEUE"
    if isinstance(exc, InvalidTargetError):
        return "INVALID_TARGET"
    return "UNUSABLE_USERID"


@dataclass(frozen=True, slots=True)
class ControlTarget:
    """A rule whose FWD names a control queue outright: its line, the queue, its role."""

    line: int
    queue: str
    role: str


def control_queue_targets(
    rules: Sequence[Rule], control_queues: Mapping[str, str]
) -> list[ControlTarget]:
    """The rules whose ACTION(FWD) FWDQ names a control queue (``control_queues``: name ->
    role, e.g. ``{"DLQHANDLER.STATUS": "status queue"}``), whatever their FWDQM: on this
    queue manager (no FWDQM, its name, or ``&DESTQM``/``&REPLYQM`` for any message naming
    it) a dead letter would be read as one of the handler's records, and on another one as
    one of its handler's. A FWDQ of ``&DESTQ``/``&REPLYQ`` is known per message only:
    :func:`plan_outgoing` refuses it then."""
    found = []
    for rule in rules:
        action = rule.action
        if action.kind != "FWD" or action.fwdq is None or action.fwdq.startswith("&"):
            continue
        role = control_queues.get(action.fwdq)
        if role is not None:
            found.append(ControlTarget(rule.line, action.fwdq, role))
    return found


def header_depth(message: Message, limit: int = 64) -> int:
    """How many MQDLH headers are chained at the front of the message.

    A message forwarded with its header and dead-lettered again carries one
    MQDLH per trip: this is the hop count.
    """
    depth = 0
    body, enc, ccsid = message.body, message.md.encoding, message.md.coded_char_set_id
    fmt = message.md.format
    while fmt == MQFMT_DEAD_LETTER_HEADER and depth < limit:
        try:
            dlh = decode_mqdlh(body, encoding=enc, ccsid=ccsid or 819)
        except MalformedMessageError:
            break
        depth += 1
        body = body[MQDLH_LENGTH_1:]
        enc, ccsid, fmt = dlh.encoding, dlh.coded_char_set_id, dlh.format
    return depth


def _usable_user_id(user: str) -> bool:
    """1-12 printable, non-blank characters: what an alternate user id may be."""
    return 0 < len(user) <= 12 and user.isprintable() and " " not in user


# `run`'s --max-hops default: a message that would carry this many MQDLHs or more is a
# forward loop and is not put again (the drain, the report and `test` take the same).
DEFAULT_MAX_HOPS = 5


def plan_outgoing(
    decision: Decision,
    message: Message,
    *,
    input_queue: str,
    local_qmgr: str,
    max_hops: int = DEFAULT_MAX_HOPS,
    control_queues: Mapping[str, str] | None = None,
) -> tuple[Message, ResolvedTarget]:
    """The message a RETRY/FWD decision puts, and where.

    Raises :class:`~dlqhandler.rules.targets.InvalidTargetError` for a blank or
    invalid substituted name, :class:`ForwardLoopError` for a loop,
    :class:`ControlQueueError` for a target among ``control_queues`` (name -> role) on
    the local queue manager and :class:`ActionError` for an unusable PUTAUT(CTX) user id.
    """
    action = decision.action
    target = resolve_target(decision.rule if decision.rule is not None else action, message)
    out = (
        message if action.kind == "FWD" and action.header else (message.strip_dead_letter_header())
    )
    if target.queue == input_queue and target.qmgr in ("", local_qmgr):
        raise ForwardLoopError(f"target {target.queue} is the input dead-letter queue (a loop)")
    role = (control_queues or {}).get(target.queue)
    if role is not None and target.qmgr in ("", local_qmgr):
        raise ControlQueueError(
            f"target {target.queue} is the handler's {role}: a dead letter is never put there"
        )
    depth = header_depth(out)
    if depth >= max_hops:
        raise ForwardLoopError(
            f"message carries {depth} dead-letter headers (max {max_hops}): a forward loop"
        )
    if action.putaut == "CTX" and not _usable_user_id(message.md.user_identifier):
        raise ActionError(
            f"PUTAUT(CTX): UserIdentifier {message.md.user_identifier!r} is not usable"
        )
    return out, target
