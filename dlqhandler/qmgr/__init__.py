"""The QueueManager port and its adapters (embedded SQLite, IBM MQ).

The port and its value types live here (:mod:`.port`), with the status records
every adapter shares (:mod:`.attempts`). The embedded queue manager is
:mod:`.embedded`; the IBM MQ adapter is :mod:`.ibmmq`. The embedded queue
manager's entry points are re-exported for convenience.
"""

from dlqhandler.qmgr.embedded import (
    EmbeddedQueueManager,
    QueueEvent,
    connect,
    create_qmgr,
    delete_qmgr,
    list_qmgrs,
    run_mqsc,
)
from dlqhandler.qmgr.port import GetOptions, PutOptions, QMgrInfo, Queue, QueueInfo, QueueManager

__all__ = [
    "EmbeddedQueueManager",
    "GetOptions",
    "PutOptions",
    "QMgrInfo",
    "Queue",
    "QueueEvent",
    "QueueInfo",
    "QueueManager",
    "connect",
    "create_qmgr",
    "delete_qmgr",
    "list_qmgrs",
    "run_mqsc",
]
