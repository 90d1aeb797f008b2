"""Files MQ administrators already use: dmpmqmsg dumps (read and write), sample backlogs."""

from dlqhandler.formats.dmpmqmsg import DumpWriter, iter_message_offsets, read_dump, write_dump

__all__ = ["DumpWriter", "iter_message_offsets", "read_dump", "write_dump"]
