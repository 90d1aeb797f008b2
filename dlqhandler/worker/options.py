"""How one handler runs: what runmqdlq takes from the table and argv, and our additions."""

from __future__ import annotations

from dataclasses import dataclass

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, ControlQueues
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS

__all__ = ["DEFAULT_BATCH_SIZE", "HandlerOptions"]

# Measured with benchmarks/handler.py (2 cores, persistent 512-byte messages): 1 -> ~730,
# 10 -> ~1,200, 25 -> ~1,500, 50 -> ~1,650, 100..500 -> ~1,450 messages/second.
DEFAULT_BATCH_SIZE = 50


@dataclass(frozen=True, slots=True)
class HandlerOptions:
    """Options of one handler run.

    * ``batch_size``: messages per unit of work (a failure still touches only its
      own message);
    * ``dry_run``: browse only, one pass, nothing written (not even attempts);
    * ``max_hops``: refuse to forward a message carrying this many MQDLHs;
    * ``status_queue``: where durable attempt counts live; ``audit_queue``: where an
      audited run's records go (with the input queue, the control queues: no action
      targets them);
    * ``poll_ms``: longest single wait, so a stop request is seen promptly;
    * ``no_dlh_reports_per_pass`` / ``no_dlh_report_interval``: rate limit of the
      warnings about messages without an MQDLH;
    * ``sweep_interval``: seconds between collections of orphan attempt records;
    * ``near_expiry_tenths``: a message with less Expiry left than this gets a
      unit of work of its own (if it expires under our lock, only it is backed out);
    * ``oneoff``: a one-off action (``--action``), the administrator's explicit order:
      attempt records left by earlier runs neither hold it back nor delay it (only
      this run's own attempts count; a success still clears the record);
    * ``max_rate``: at most this many messages acted on per second (``--max-rate``;
      None: no limit). The handler never waits for the limit with a unit of work
      open: when no token is there, it commits the batch first, then waits.
    """

    input_queue: str
    batch_size: int = DEFAULT_BATCH_SIZE
    dry_run: bool = False
    max_hops: int = DEFAULT_MAX_HOPS
    status_queue: str = DEFAULT_STATUS_QUEUE
    audit_queue: str = DEFAULT_AUDIT_QUEUE
    poll_ms: int = 500
    no_dlh_reports_per_pass: int = 20
    no_dlh_report_interval: float = 600.0
    sweep_interval: float = 300.0
    near_expiry_tenths: int = 50
    max_rate: float | None = None
    oneoff: bool = False

    @property
    def control(self) -> ControlQueues:
        return ControlQueues(self.input_queue, self.status_queue, self.audit_queue)

    def __post_init__(self) -> None:
        for name in ("batch_size", "max_hops"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, not {getattr(self, name)}")
        if self.max_rate is not None and not self.max_rate > 0:
            raise ValueError(f"max_rate must be positive, not {self.max_rate}")
