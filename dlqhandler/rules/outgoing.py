"""What a RETRY or FWD decision puts: the message and its target.

RETRY puts the original message back (MQDLH stripped, Format/Encoding/CCSID
restored) to DestQName at DestQMgrName; FWD puts to FWDQ at FWDQM with the
MQDLH (HEADER(YES)) or without it (HEADER(NO)). Both back ends (the worker and
the Spark drain's apply mode) call :func:`plan_outgoing`, so the language's
action semantics live in one place. A loop is refused: a target that is the
input DLQ on the local queue manager, or a message that already carries
``max_hops`` dead-letter headers (it went round and came back each time).
"""

from __future__ import annotations

from dlqhandler.errors import DLQHandlerError, MalformedMessageError
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1, MQFMT_DEAD_LETTER_HEADER, decode_mqdlh
from dlqhandler.rules.matcher import Decision
from dlqhandler.rules.targets import ResolvedTarget, resolve_target

__all__ = ["ActionError", "ForwardLoopError", "header_depth", "plan_outgoing"]


class ActionError(DLQHandlerError):
    """The decision cannot be carried out for this message (counts as a failure)."""


class ForwardLoopError(ActionError):
    """The message would go round a loop (back to the DLQ, or too many hops)."""


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


def plan_outgoing(
    decision: Decision, message: Message, *, input_queue: str, local_qmgr: str, max_hops: int = 5
) -> tuple[Message, ResolvedTarget]:
    """The message a RETRY/FWD decision puts, and where.

    Raises :class:`~dlqhandler.rules.targets.InvalidTargetError` for a blank or
    invalid substituted name, :class:`ForwardLoopError` for a loop and
    :class:`ActionError` for an unusable PUTAUT(CTX) user id.
    """
    action = decision.action
    target = resolve_target(decision.rule if decision.rule is not None else action, message)
    out = (
        message if action.kind == "FWD" and action.header else (message.strip_dead_letter_header())
    )
    if target.queue == input_queue and target.qmgr in ("", local_qmgr):
        raise ForwardLoopError(f"target {target.queue} is the input dead-letter queue (a loop)")
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
