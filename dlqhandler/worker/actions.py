"""Turn a decision into the put the worker makes (message, target, put options)."""

from __future__ import annotations

from dataclasses import dataclass

from dlqhandler.mq.message import Message
from dlqhandler.qmgr.port import PutOptions
from dlqhandler.rules import Decision
from dlqhandler.rules.outgoing import ActionError, ForwardLoopError, plan_outgoing

__all__ = ["ActionError", "ForwardLoopError", "Outgoing", "plan_put"]


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One put: the message, the queue and queue manager, and put options."""

    message: Message
    queue: str
    qmgr: str
    options: PutOptions


def plan_put(decision: Decision, message: Message, *, input_queue: str, local_qmgr: str,
             max_hops: int) -> Outgoing:
    """The PUT1 that carries out a RETRY or FWD decision (pass-all context).

    PUTAUT(CTX) puts with the message's UserIdentifier as alternate user.
    """
    out, target = plan_outgoing(decision, message, input_queue=input_queue,
                                local_qmgr=local_qmgr, max_hops=max_hops)
    alternate = message.md.user_identifier if decision.action.putaut == "CTX" else None
    qmgr = "" if target.qmgr == local_qmgr else target.qmgr
    options = PutOptions(syncpoint=True, context="pass_all", alternate_user=alternate)
    return Outgoing(out, target.queue, qmgr, options)
