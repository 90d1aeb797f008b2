"""The one exception tree of dlqhandler.

Every error the package raises on purpose derives from :class:`DLQHandlerError`.
Errors carry data (positions, reason codes, raw bytes) rather than only text, so
callers can render, count or route them. This module imports nothing from the
package.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DLQHandlerError",
    "DecodeError",
    "DumpFormatError",
    "MQIError",
    "MalformedMessageError",
    "RulesError",
    "SourcePosition",
]

from dataclasses import dataclass


class DLQHandlerError(Exception):
    """Root of every error dlqhandler raises deliberately."""


class ConfigError(DLQHandlerError):
    """Invalid settings or command-line combination."""


class DecodeError(DLQHandlerError):
    """Bytes that are not the MQ structure they were expected to be.

    ``raw`` keeps the bytes that failed, so nothing is lost and the caller can
    report or leave the message in place. ``offset`` is where decoding stopped.
    """

    def __init__(self, message: str, *, raw: bytes = b"", offset: int = 0) -> None:
        super().__init__(message)
        self.raw = raw
        self.offset = offset


class MalformedMessageError(DecodeError):
    """A message that should start with an MQDLH but does not (or is truncated).

    runmqdlq reports such messages and leaves them on the DLQ; so do we.
    """


class DumpFormatError(DLQHandlerError):
    """A dmpmqmsg file that does not follow the format: names file and line.

    ``message_number`` is the 1-based number of the message the problem is in (None
    when it is not inside a message, e.g. the header); with ``after`` the problem is a
    line after that message's data lines, which is not part of it ("after message N":
    message N itself was read whole).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str,
        line: int,
        message_number: int | None = None,
        after: bool = False,
    ) -> None:
        where = f"{path}:{line}: " + (
            f"{'after ' if after else ''}message {message_number}: "
            if message_number is not None
            else ""
        )
        super().__init__(where + message)
        self.path = path
        self.line = line
        self.message_number = message_number
        self.after = after and message_number is not None
        self.detail = message


class MQIError(DLQHandlerError):
    """A queue-manager call failed with an MQ completion and reason code.

    ``reason`` is the MQRC value (for example 2053 for MQRC_Q_FULL); ``comp``
    is MQCC_WARNING (1) or MQCC_FAILED (2). ``reason_name`` is filled by
    :func:`dlqhandler.mq.constants.mqi_error`, which callers should use.
    """

    def __init__(
        self,
        reason: int,
        message: str = "",
        *,
        comp: int = 2,
        reason_name: str | None = None,
    ) -> None:
        name = reason_name or f"MQRC {reason}"
        text = f"{name} ({reason})" + (f": {message}" if message else "")
        super().__init__(text)
        self.reason = reason
        self.comp = comp
        self.reason_name = name
        self.detail = message


@dataclass(frozen=True, slots=True)
class SourcePosition:
    """A 1-based line and column in a named source (a rules table, a file)."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class RulesError(DLQHandlerError):
    """A rules table that did not compile. ``diagnostics`` holds every problem."""

    def __init__(self, message: str, diagnostics: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
