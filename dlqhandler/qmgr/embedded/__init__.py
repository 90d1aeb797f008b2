"""The embedded queue manager: MQ semantics on SQLite, one directory per queue manager.

:func:`connect` opens a connection; :func:`create_qmgr`/:func:`delete_qmgr`/
:func:`list_qmgrs` manage queue managers and :func:`run_mqsc` administers one
the way ``runmqsc`` does. The trigger monitor is :mod:`.runmqtrm`.

An adapter of :mod:`dlqhandler.qmgr.port`: it never imports the IBM MQ adapter
(:mod:`dlqhandler.qmgr.ibmmq`) nor anything above the qmgr floor.
"""

from dlqhandler.qmgr.embedded.manager import EmbeddedQueueManager, QueueEvent, connect
from dlqhandler.qmgr.embedded.qmgrs import create_qmgr, delete_qmgr, list_qmgrs
from dlqhandler.qmgr.embedded.runmqsc import run_mqsc

__all__ = [
    "EmbeddedQueueManager",
    "QueueEvent",
    "connect",
    "create_qmgr",
    "delete_qmgr",
    "list_qmgrs",
    "run_mqsc",
]
