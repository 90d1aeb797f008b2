"""Acting on a dead letter (or a group) under a unit of work.

Plan the put (:mod:`.plan`), put and take, count a failure while the message is
still held, commit or back out (:mod:`.unit`; a group whole, :mod:`.group`). Used
by the handler (:mod:`dlqhandler.worker.acting`) and by ``drain --apply``
(:mod:`dlqhandler.spark.apply`) alike; it imports neither.
"""

from dlqhandler.acting.group import act_on_group, take_group
from dlqhandler.acting.plan import PLAN_ERRORS, Outgoing, plan, plan_put, refusal
from dlqhandler.acting.unit import Acted, UnitOfWork, act_on_message

__all__ = ["PLAN_ERRORS", "Acted", "Outgoing", "UnitOfWork", "act_on_group", "act_on_message",
           "plan", "plan_put", "refusal", "take_group"]
