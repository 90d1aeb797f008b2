"""The control queues of a handler: the input DLQ, the status queue, the audit queue.

The status queue holds the durable attempt counts (:mod:`dlqhandler.qmgr.attempts`), the
audit queue the audit records of an audited run (:mod:`dlqhandler.acting.audit`). A
message put on either would be read as a record of the other kind, and a record put on
the DLQ as a message without an MQDLH. So the three are three different queues, and no
action forwards or retries a dead letter to the status or audit queue of the local queue
manager: :func:`refusals` says why a run is refused before anything moves (``run``, its
one-off actions and its reloads, ``drain --apply``, and ``check``'s findings), and
:func:`dlqhandler.rules.outgoing.plan_outgoing` refuses a target known only per message
(``&DESTQ``, a RETRY to a DestQName that is a control queue).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dlqhandler.rules.ir import Rule
from dlqhandler.rules.outgoing import control_queue_targets

__all__ = ["ControlQueues"]


@dataclass(frozen=True, slots=True)
class ControlQueues:
    """The three queues a run owns; ``audit`` is the audit queue a run would use (the
    default one when the run is not audited: a message forwarded there would still sit
    among the audit records)."""

    input: str
    status: str
    audit: str

    def roles(self) -> dict[str, str]:
        """Name -> role of the queues no action may target (the input DLQ is refused as
        a loop by :func:`~dlqhandler.rules.outgoing.plan_outgoing` already)."""
        return {self.audit: "audit queue", self.status: "status queue"}

    def clashes(self) -> list[tuple[str, str]]:
        """The queue named twice, and why these three are not three different queues, for
        each clash (empty when they are)."""
        named = [
            ("input dead-letter queue", self.input),
            ("status queue (--status-queue)", self.status),
            ("audit queue (--audit-queue)", self.audit),
        ]
        rule = (
            "the input dead-letter queue, the status queue and the audit queue must be three "
            "different queues (name another with --status-queue or --audit-queue, or process "
            "another queue)"
        )
        out = []
        for i, (role, name) in enumerate(named):
            for other, other_name in named[i + 1 :]:
                if name == other_name:
                    out.append((name, f"{name} is both the {role} and the {other}: {rule}"))
        return out

    def refusals(self, rules: Sequence[Rule], *, source: str | None) -> list[str]:
        """Why a run with these queues and these rules is refused before anything moves:
        :meth:`clashes`, and every rule whose FWDQ names the status or audit queue (each
        as ``SOURCE:LINE: ...``; without a ``source``, a one-off's own rule, without)."""
        out = [why for _, why in self.clashes()]
        for t in control_queue_targets(rules, self.roles()):
            where = (
                f"{source}:{t.line}: ACTION(FWD) FWDQ({t.queue})"
                if source
                else f"the target {t.queue}"
            )
            out.append(
                f"{where} is the handler's {t.role}, where a dead letter would be read as "
                "one of its records: forward to another queue"
            )
        return out
