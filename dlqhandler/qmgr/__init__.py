"""The QueueManager port and its adapters (embedded SQLite, IBM MQ).

The port and its value types live here (:mod:`.port`), with the status records
every adapter shares (:mod:`.attempts`). The embedded queue manager is
:mod:`.embedded`; the IBM MQ adapter is :mod:`.ibmmq`. The embedded queue
manager's entry points are re-exported for convenience.

Imports only mq, formats, config, logs and errors: never acting, worker, spark, check or
cli. The floors above use the port, the attempt counts and the snapshot, never an adapter:
which adapter runs is the command line's choice (:mod:`dlqhandler.cli._connect`).
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
