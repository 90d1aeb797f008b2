"""The one vocabulary of what happened to a dead letter, and where the drain sends it.

Every path that acts on a message says what came of it with an :class:`Outcome`: the
handler's log events, its metrics (the ``outcome`` label) and summary, the audit records
of an audited run, ``drain --apply``'s per-message results and the drain's audit Parquet
and summary. :class:`Disposition` is where the drain's classification sends a message
(the ``disposition`` column of its audit, the report's "what this table would do"). Both
are ``StrEnum``: their values are the strings the logs, metrics, JSON and Parquet files
have always held, so dashboards, alert rules and readers of those files see no change.

Like :mod:`dlqhandler.errors`, this module imports nothing from the package: every floor
may use it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Disposition", "Outcome"]


class Outcome(StrEnum):
    """What came of one message (a group member: of its group)."""

    OK = "ok"
    """Acted on and committed: retried, forwarded or discarded (the drain's apply mode
    says DISCARDED for a discard)."""
    FAILED = "failed"
    """Its action failed (a put failed, or the target was refused before any put): one
    attempt counted, the message stays on the DLQ."""
    BACKED_OUT = "backed_out"
    """Taken into a unit of work that was then backed out: the message vanished under the
    handler's lock (expired, taken), or its audit record could not be put."""
    LEFT = "left"
    """Left on the DLQ on purpose: IGNORE (explicit or implicit), an incomplete group, a
    member without an MQDLH."""
    NOT_DONE = "not_done"
    """A dry run: the action would be done."""
    WOULD_FAIL = "would_fail"
    """A dry run: the action would be refused (a loop, an unusable target)."""
    DISCARDED = "discarded"
    """The drain: discarded (apply mode: got and committed; offline: left out of every
    output file)."""
    CATCH_ALL = "catch_all"
    """The drain: sent unchanged, headers and all, to the catch-all queue (or its file)."""
    REMAINING = "remaining"
    """The drain: stays on the DLQ (apply mode) or in ``remaining.dmp`` (offline)."""
    SKIPPED = "skipped"
    """``drain --apply``: gone before it was got (a running handler took it)."""
    UNKNOWN = "unknown"
    """Acted on, but the commit's outcome is unknown (the connection was lost during
    MQCMIT): it may have left the DLQ or not. Counted neither done nor failed."""
    NOT_CONNECTED = "not_connected"
    """``drain --apply``: not acted on: its task could not connect to the queue manager or
    open the DLQ (again, after a commit of unknown outcome); it stays on the DLQ, no
    attempt counted."""
    ASSUMED = "assumed"
    """The offline drain: written to its target's file; what happens is up to the load."""


class Disposition(StrEnum):
    """Where the drain's classification sends a message (its audit's ``disposition``)."""

    RETRY = "RETRY"
    FWD = "FWD"
    DISCARD = "DISCARD"
    CATCHALL = "CATCHALL"
    """Unchanged to the catch-all queue: no rule acts on it, or it has no MQDLH."""
    REMAIN = "REMAIN"
    """Stays: no rule acts on it and there is no catch-all, or it is malformed."""
    SKIPPED = "SKIPPED"
    """``--apply``: gone before it was got."""
    UNKNOWN = "UNKNOWN"
    """``--apply``: acted on, but its commit's outcome is unknown (Outcome.UNKNOWN)."""
