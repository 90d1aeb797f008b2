"""Turn a decision into the put that carries it out (message, target, put options)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dlqhandler.errors import MQIError
from dlqhandler.mq import selectors as s
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.port import PutOptions, QueueManager
from dlqhandler.rules import Decision
from dlqhandler.rules.outgoing import (
    ActionError,
    ControlQueueError,
    ForwardLoopError,
    plan_outgoing,
    refusal,
)
from dlqhandler.rules.targets import InvalidTargetError

__all__ = [
    "PLAN_ERRORS",
    "ActionError",
    "ControlQueueError",
    "ForwardLoopError",
    "InvalidTargetError",
    "Landings",
    "Outgoing",
    "as_is",
    "landing_queue",
    "plan",
    "refusal",
]

# What planning a put can raise: the decision cannot even be tried.
PLAN_ERRORS = (InvalidTargetError, ActionError)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One put: the message, the queue and queue manager, and put options."""

    message: Message
    queue: str
    qmgr: str
    options: PutOptions

    def where(self, local_qmgr: str) -> str:
        """``QUEUE@QMGR``, the target as logs and audit records name it."""
        return f"{self.queue}@{self.qmgr or local_qmgr}"


def plan(
    decision: Decision,
    message: Message,
    *,
    input_queue: str,
    local_qmgr: str,
    max_hops: int,
    control_queues: Mapping[str, str] | None = None,
) -> Outgoing | None:
    """The PUT1 that carries out a RETRY or FWD decision (pass-all context, syncpoint), or
    None for a DISCARD (the get alone carries it out).

    PUTAUT(CTX) puts with the message's UserIdentifier as alternate user. Raises one
    of :data:`PLAN_ERRORS` when the decision cannot be carried out.
    """
    if decision.action.kind == "DISCARD":
        return None
    out, target = plan_outgoing(
        decision,
        message,
        input_queue=input_queue,
        local_qmgr=local_qmgr,
        max_hops=max_hops,
        control_queues=control_queues,
    )
    alternate = message.md.user_identifier if decision.action.putaut == "CTX" else None
    qmgr = "" if target.qmgr == local_qmgr else target.qmgr
    options = PutOptions(syncpoint=True, context="pass_all", alternate_user=alternate)
    return Outgoing(out, target.queue, qmgr, options)


def landing_queue(qm: QueueManager, queue: str, *, hops: int = 8) -> str | None:
    """The local queue a put to the local queue name ``queue`` lands on, as the queue
    manager resolves it: a QALIAS to its TARGET, in turn, to a local queue. None when the
    put goes elsewhere (a QREMOTE: another queue manager; one naming this queue manager is
    refused by MQ, MQRC_UNKNOWN_REMOTE_Q_MGR), the name is not defined, or the queue
    manager does not say (a chain of aliases, a failed MQINQ): the put itself then tells."""
    name = queue
    for _ in range(hops):
        try:
            kind = qm.inquire_object("queue", name, [s.MQIA_Q_TYPE]).get(s.MQIA_Q_TYPE)
            if kind == s.MQQT_REMOTE:
                return None
            if kind != s.MQQT_ALIAS:
                return name
            got = qm.inquire_object("queue", name, [s.MQCA_BASE_Q_NAME])
        except MQIError:
            return None
        name = str(got.get(s.MQCA_BASE_Q_NAME, "")).strip()
        if not name:
            return None
    return None


class Landings:
    """Where puts to local queue names land (:func:`landing_queue`), asked of the queue
    manager once per ``ttl`` seconds per name (definitions change), and the loop it
    reveals: a put to an alias of the input dead-letter queue puts the message back
    where it came from. ``dlqhandler run`` and ``drain --apply`` ask the same."""

    def __init__(
        self, qm: QueueManager, clock: Callable[[], float] = time.monotonic, ttl: float = 60.0
    ) -> None:
        self._qm, self._clock, self._ttl = qm, clock, ttl
        self._known: dict[str, tuple[float, str | None]] = {}

    def of(self, queue: str) -> str | None:
        """The local queue a put to ``queue`` lands on, or None (:func:`landing_queue`)."""
        now = self._clock()
        known = self._known.get(queue)
        if known is None or now - known[0] > self._ttl:
            if len(self._known) > 10_000:
                self._known.clear()
            known = self._known[queue] = (now, landing_queue(self._qm, queue))
        return known[1]

    def refuse_loop(self, out: Outgoing | None, input_queue: str) -> None:
        """ForwardLoopError when the local put ``out`` lands on the queue the input
        dead-letter queue is (the input queue may itself be an alias, INPUTQ(DLQ.ALIAS):
        where both land is compared)."""
        if out is None or out.qmgr:
            return
        landing = self.of(out.queue)
        if landing is not None and landing in (input_queue, self.of(input_queue)):
            raise ForwardLoopError(
                f"target {out.queue} resolves to {landing}, the queue the input "
                f"dead-letter queue {input_queue} is (an alias of it): a loop"
            )


def as_is(message: Message, queue: str) -> Outgoing:
    """The PUT1 of a dead letter unchanged, headers and all (the drain's catch-all queue),
    under syncpoint with its context passed."""
    return Outgoing(message, queue, "", PutOptions(syncpoint=True, context="pass_all"))
