"""The IBM MQ adapter: the ``QueueManager`` port over IBM's ``ibmmq`` package.

IBM's package is imported lazily, by :mod:`.adapter` only; importing this
package does not need it. It never imports the embedded queue manager
(:mod:`dlqhandler.qmgr.embedded`) nor anything above the qmgr floor.
"""

from dlqhandler.qmgr.ibmmq.adapter import IBMMQQueueManager, connect
from dlqhandler.qmgr.ibmmq.config import IBMMQSettings, ibmmq_settings_from_env

__all__ = ["IBMMQQueueManager", "IBMMQSettings", "connect", "ibmmq_settings_from_env"]
