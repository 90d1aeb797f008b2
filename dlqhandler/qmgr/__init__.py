"""The QueueManager port and its adapters (embedded SQLite, IBM MQ).

:func:`connect` opens a connection to an embedded queue manager;
:func:`create_qmgr`/:func:`delete_qmgr`/:func:`list_qmgrs` manage them and
:func:`run_mqsc` administers one the way ``runmqsc`` does.
"""

from dlqhandler.qmgr.embedded import EmbeddedQueueManager, QueueEvent, connect
from dlqhandler.qmgr.port import GetOptions, PutOptions, QMgrInfo, Queue, QueueInfo, QueueManager
from dlqhandler.qmgr.qmgrs import create_qmgr, delete_qmgr, list_qmgrs
from dlqhandler.qmgr.runmqsc import run_mqsc

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
