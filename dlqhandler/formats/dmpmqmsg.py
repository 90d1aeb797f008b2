"""dmpmqmsg message files: the public entry points for reading and writing them.

IBM's ``dmpmqmsg`` (formerly qload, SupportPac MO03) unloads queues to a text
file and loads them back. :func:`read_dump` streams messages out of such a file
(byte ranges for parallel readers; :func:`iter_message_offsets` to plan them),
:class:`DumpWriter` and :func:`write_dump` produce files dmpmqmsg loads. The
format is IBM's (the dmpmqmsg documentation, "Message file format"); the reader lives in
:mod:`~dlqhandler.formats.dump_reader`, where things are in a file (message offsets, the
line and message an error names) in :mod:`~dlqhandler.formats.dump_location`, the writer
in :mod:`~dlqhandler.formats.dump_writer`.
"""

from __future__ import annotations

from dlqhandler.formats.dump_location import iter_message_offsets
from dlqhandler.formats.dump_reader import dump_origin, read_dump
from dlqhandler.formats.dump_writer import DumpWriter, Mode, format_ctime, write_dump

__all__ = [
    "DumpWriter",
    "Mode",
    "dump_origin",
    "format_ctime",
    "iter_message_offsets",
    "read_dump",
    "write_dump",
]
