"""Named process exit codes, shared by every subcommand."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1  # lint: errors found; generic failure
    USAGE = 2  # bad arguments, unreadable files (argparse also exits 2)
    RULES_ERROR = 3  # the rules table did not compile
    CONNECTION_ERROR = 4  # cannot connect to / open the queue manager or queue
    MQ_ERROR = 5  # a fatal MQ error while running (get inhibited, queue deleted...)
    PARTIAL = 6  # finished, but some messages could not be processed (drain)
    INTERRUPTED = 130  # stopped by SIGINT before a clean shutdown
