"""The handler's status queue: why it is needed and the MQSC that defines it.

One wording, used by ``dlqhandler check`` (its finding) and by ``run`` and
``drain -m --apply`` when they find the queue missing (their error message).
"""

from __future__ import annotations

from dlqhandler.check.findings import mqsc_name
from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import MQRC_UNKNOWN_OBJECT_NAME, mqi_error
from dlqhandler.qmgr.port import QueueManager

__all__ = ["STATUS_QUEUE_WHY", "missing_status_queue", "require_status_queue", "status_queue_mqsc"]

STATUS_QUEUE_WHY = (
    "the handler keeps each dead letter's durable attempt count there (RETRY counts, "
    "across restarts and between several handlers); without it no dead letter can be "
    "retried or forwarded safely"
)


def status_queue_mqsc(name: str) -> str:
    """The MQSC that defines the status queue as ops/mqsc/dlq-queues.mqsc does."""
    return (
        f"DEFINE QLOCAL({mqsc_name(name)}) DESCR('dlqhandler attempt counts') "
        "MAXDEPTH(999999999) DEFPSIST(YES) NOHARDENBO"
    )


def missing_status_queue(name: str, qmgr: str) -> MQIError:
    """The MQIError (2085) a command raises when the status queue does not exist:
    what is missing, why it is needed and the MQSC that defines it (kept short: a
    one-line error; ``dlqhandler check`` says more)."""
    return mqi_error(
        MQRC_UNKNOWN_OBJECT_NAME,
        f"the status queue {name} does not exist on queue manager {qmgr} (it holds the "
        f"handler's durable attempt counts); define it: {status_queue_mqsc(name)}",
    )


def require_status_queue(qm: QueueManager, name: str) -> None:
    """Open the status queue as the handler does (input, browse, output: the same
    authority, nothing more) and close it; :func:`missing_status_queue` when it does not
    exist (other MQ errors propagate as they are)."""
    try:
        qm.open(name, input=True, browse=True, output=True).close()
    except MQIError as exc:
        if exc.reason == MQRC_UNKNOWN_OBJECT_NAME:
            raise missing_status_queue(name, qm.name) from exc
        raise
