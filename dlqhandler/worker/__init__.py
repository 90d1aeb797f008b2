"""The DLQ handler daemon (``dlqhandler run``): the loop (:mod:`.handler`), the actor and
its books, the batched unit of work, hot reload, selection and pacing, backoff, metrics
and the end-of-run stats. Acting on a message is :mod:`dlqhandler.acting`'s, the attempt
counts :mod:`dlqhandler.qmgr.attempts`'.

It may import outcomes, acting, rules, qmgr (the port, never an adapter), mq, formats,
config, logs and errors; never spark or cli. The only package that imports watchdog."""

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
