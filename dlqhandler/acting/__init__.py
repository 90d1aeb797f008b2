"""Acting on a dead letter (or a group) under a unit of work.

Plan the put (:mod:`.plan`), put and take, count a failure while the message is
still held, commit or back out (:mod:`.unit`; a group whole, :mod:`.group`), with
the action's audit record in the same unit of work when the run is audited
(:mod:`.audit`). Used
by the handler (:mod:`dlqhandler.worker.acting`) and by ``drain --apply``
(:mod:`dlqhandler.spark.apply`) alike; it imports neither.
"""

from dlqhandler.acting.audit import DEFAULT_AUDIT_QUEUE, AuditTrail, read_audit
from dlqhandler.acting.control import ControlQueues
from dlqhandler.acting.group import act_on_group, take_group
from dlqhandler.acting.plan import PLAN_ERRORS, Outgoing, plan, plan_put, refusal
from dlqhandler.acting.unit import Acted, UnitOfWork, act_on_message

__all__ = [
    "DEFAULT_AUDIT_QUEUE",
    "PLAN_ERRORS",
    "Acted",
    "AuditTrail",
    "ControlQueues",
    "Outgoing",
    "UnitOfWork",
    "act_on_group",
    "act_on_message",
    "plan",
    "plan_put",
    "read_audit",
    "refusal",
    "take_group",
]
