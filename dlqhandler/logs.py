"""The one place structlog is configured.

Events are snake_case names with context bound per message (queue, msgid,
reason, rule line, action). Output is JSON lines when stderr is not a terminal
(or when asked), a readable console format otherwise. Every string value passes
through :func:`escape_control`, so text taken from messages (queue names, user
ids) cannot forge log lines.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

__all__ = ["configure_logging", "escape_control", "get_logger"]

_CONTROL = {i: f"\\x{i:02x}" for i in (*range(0x20), 0x7F)}
_CONTROL.update({0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})
_CONTROL_TABLE = str.maketrans(_CONTROL)


def escape_control(text: str) -> str:
    """Replace C0 control characters and DEL with visible escapes."""
    if text.isascii() and text.isprintable():  # the common case: nothing to replace
        return text
    return text.translate(_CONTROL_TABLE)


def _escape_values(
    _logger: Any, _name: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = escape_control(value)
        elif isinstance(value, bytes):
            event[key] = value.hex()
    return event


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time of each write.

    Binding the logger to the ``sys.stderr`` object of configuration time would
    keep writing to a stream that has since been replaced and closed (a test
    runner's capture, a daemon's redirection): ``ValueError: I/O operation on
    closed file`` from the next log event.
    """

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(
    *, level: str = "INFO", json: bool | None = None, stream: TextIO | None = None
) -> None:
    """Configure structlog for the process. ``json=None`` picks by TTY.

    Events go to ``stream``, or to the process's current standard error."""
    tty = (stream or sys.stderr).isatty()
    out: Any = stream if stream is not None else _CurrentStderr()
    use_json = (not tty) if json is None else json
    renderer: Any = (
        structlog.processors.JSONRenderer(sort_keys=False)
        if use_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _escape_values,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str | None = None, **initial: Any) -> Any:
    """A bound structlog logger (``name`` becomes the ``logger`` key)."""
    log = structlog.get_logger()
    if name:
        initial = {"logger": name, **initial}
    return log.bind(**initial) if initial else log
