"""Files MQ administrators already use: dmpmqmsg dumps (read and write), sample backlogs.

Imports only :mod:`dlqhandler.mq` and :mod:`dlqhandler.errors`: a dump is read and written
without a queue manager, the rules or Spark."""

from dlqhandler.formats.dmpmqmsg import DumpWriter, iter_message_offsets, read_dump, write_dump

__all__ = ["DumpWriter", "iter_message_offsets", "read_dump", "write_dump"]
