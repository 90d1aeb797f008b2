"""The DLQ handler daemon: loop, actions, durable attempts, reload, stats."""

from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE, AttemptStore
from dlqhandler.worker.backoff import (
    DEFAULT_BACKOFF_BASE,
    DEFAULT_BACKOFF_MAX,
    BackoffPolicy,
    TriggeredRun,
    TriggerRecords,
)
from dlqhandler.worker.handler import DEFAULT_BATCH_SIZE, Handler, HandlerOptions, StopReason
from dlqhandler.worker.reload import RulesReloader
from dlqhandler.worker.stats import RunStats

__all__ = [
    "DEFAULT_BACKOFF_BASE",
    "DEFAULT_BACKOFF_MAX",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_STATUS_QUEUE",
    "AttemptStore",
    "BackoffPolicy",
    "Handler",
    "HandlerOptions",
    "RulesReloader",
    "RunStats",
    "StopReason",
    "TriggerRecords",
    "TriggeredRun",
]
