"""The backlog drain: classify a backlog with a rules table on Spark and write one dmpmqmsg
file per target, or carry the actions out on the queue manager (``--apply``).

:func:`drain` runs a whole drain from a :class:`DrainRequest` to a :class:`DrainOutcome`
(:mod:`.run`); :func:`run_drain` is its Spark job alone, for a session someone else holds
(:mod:`.job`); :mod:`.apply` carries the actions out on the executors, :mod:`.outputs`
writes the files. Its imports follow :mod:`dlqhandler.spark`'s; it never imports
:mod:`dlqhandler.spark.report`.
"""

from dlqhandler.spark.drain.job import DrainConfig, DrainResult, mode_problem, run_drain
from dlqhandler.spark.drain.run import (
    DrainOutcome,
    DrainRequest,
    DrainStatus,
    QueueSource,
    drain,
)

__all__ = [
    "DrainConfig",
    "DrainOutcome",
    "DrainRequest",
    "DrainResult",
    "DrainStatus",
    "QueueSource",
    "drain",
    "mode_problem",
    "run_drain",
]
