"""Acting on a dead letter (or a group) under a unit of work.

Plan the put (:mod:`.plan`), refuse what cannot be carried out, put and take, count a
failure while the message is still held, with the action's audit record in the same unit
of work when the run is audited (:mod:`.audit`): :func:`attempt` (:mod:`.attempt`) is that
one step, on the unit of work of :mod:`.unit`. The handler's control queues, which no
action targets, are :mod:`.control`'s. Used by the handler
(:mod:`dlqhandler.worker.actor`) and by ``drain --apply`` (:mod:`dlqhandler.spark.drain.apply`)
alike; it imports neither. It may import outcomes, rules, qmgr (the port, never an
adapter), mq and errors only.
"""

from dlqhandler.acting.attempt import Attempt, Planner, Result, attempt
from dlqhandler.acting.audit import DEFAULT_AUDIT_QUEUE, AuditTrail, read_audit
from dlqhandler.acting.control import ControlQueues
from dlqhandler.acting.plan import PLAN_ERRORS, Outgoing, as_is, plan, refusal
from dlqhandler.acting.unit import COMMIT_UNKNOWN, UnitOfWork

__all__ = [
    "COMMIT_UNKNOWN",
    "DEFAULT_AUDIT_QUEUE",
    "PLAN_ERRORS",
    "Attempt",
    "AuditTrail",
    "ControlQueues",
    "Outgoing",
    "Planner",
    "Result",
    "UnitOfWork",
    "as_is",
    "attempt",
    "plan",
    "read_audit",
    "refusal",
]
