"""The DLQ handler daemon: loop, actions, durable attempts, reload, stats."""

from dlqhandler.worker.attempts import DEFAULT_STATUS_QUEUE, AttemptStore
from dlqhandler.worker.handler import DEFAULT_BATCH_SIZE, Handler, HandlerOptions, StopReason
from dlqhandler.worker.reload import RulesReloader
from dlqhandler.worker.stats import RunStats

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_STATUS_QUEUE", "AttemptStore", "Handler",
           "HandlerOptions", "RulesReloader", "RunStats", "StopReason"]
