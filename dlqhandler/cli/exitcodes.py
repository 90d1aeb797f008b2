"""Named process exit codes, shared by every subcommand: the only place they are defined.

:data:`MEANINGS` is the table the README and every ``--help`` epilog show
(:data:`EPILOG`); a test keeps the three in step.
"""

from __future__ import annotations

import functools
import textwrap
from enum import IntEnum

__all__ = ["EPILOG", "MEANINGS", "ExitCode", "for_mq_reason"]


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1  # lint: errors found; test: a case failed; check: worse than a warning...
    USAGE = 2  # bad arguments, unreadable or malformed input files (argparse also exits 2)
    RULES_ERROR = 3  # the rules table did not compile
    CONNECTION_ERROR = 4  # cannot connect to / open the queue manager or queue
    MQ_ERROR = 5  # a fatal MQ error while running (get inhibited, queue deleted...)
    PARTIAL = 6  # finished, but some messages were not acted on or not loaded
    INTERRUPTED = 130  # stopped by Ctrl-C (SIGINT), cleanly, before its work was done
    BROKEN_PIPE = 141  # standard output closed by its reader (128 + SIGPIPE, as Unix tools)
    TERMINATED = 143  # a one-off run stopped by SIGTERM before its pass was done


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "success",
    ExitCode.FAILURE: "lint found errors; test: a case failed, or fewer rules were "
    "covered than --fail-under asks; check found a problem worse than a warning; "
    "qm mqsc: a command failed; run --action: a --msgid names no message on the queue; "
    "any other failure",
    ExitCode.USAGE: "bad arguments or option values; an input file that cannot be read or "
    "is not valid (a cut-off dmpmqmsg file...)",
    ExitCode.RULES_ERROR: "the rules table did not compile; nothing was processed",
    ExitCode.CONNECTION_ERROR: "the queue manager or the queue cannot be connected or "
    "opened (not found, not available, not authorized)",
    ExitCode.MQ_ERROR: "a fatal MQ error while running (GET inhibited, disk full...)",
    ExitCode.PARTIAL: "finished, but some messages were not acted on (run: actions failed "
    "and the messages stay on the queue; drain: failed actions or malformed "
    "input records) or not loaded "
    "(qm dmpmqmsg -o stopped: resume with -r)",
    ExitCode.INTERRUPTED: "stopped by Ctrl-C (SIGINT), by every command: the unit of work in "
    "hand committed or backed out, the summary printed",
    ExitCode.BROKEN_PIPE: "standard output was closed before the command finished (a "
    "reader such as head stopped reading); nothing more is written, as a Unix tool "
    "stopped by SIGPIPE",
    ExitCode.TERMINATED: "a one-off action (run --action) stopped by SIGTERM before its pass "
    "was done (SIGTERM is the service manager's orderly stop: a handler with a rules "
    "table, or qm runmqtrm, stopped by it exits as its work says, 0 or 6)",
}

EPILOG = "exit codes:\n" + "\n".join(
    textwrap.fill(text, 79, initial_indent=f"  {int(code):>3}  ", subsequent_indent=" " * 7)
    for code, text in MEANINGS.items()
)


@functools.cache
def _connection_reasons() -> frozenset[int]:
    """Reasons that mean "cannot reach or open", not "failed while working" (read when a
    command fails: the constants module is large, and most commands never need it)."""
    from dlqhandler.mq import constants as c

    return frozenset(
        {
            c.MQRC_CONNECTION_BROKEN,
            c.MQRC_HOST_NOT_AVAILABLE,
            c.MQRC_NOT_AUTHORIZED,
            c.MQRC_OBJECT_TYPE_ERROR,
            c.MQRC_Q_MGR_NAME_ERROR,
            c.MQRC_Q_MGR_NOT_AVAILABLE,
            c.MQRC_Q_MGR_QUIESCING,
            c.MQRC_Q_MGR_STOPPING,
            c.MQRC_UNKNOWN_OBJECT_NAME,
        }
    )


def for_mq_reason(reason: int) -> ExitCode:
    """The exit code of a command that failed with an MQ reason code."""
    return ExitCode.CONNECTION_ERROR if reason in _connection_reasons() else ExitCode.MQ_ERROR
