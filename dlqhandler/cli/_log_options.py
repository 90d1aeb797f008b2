"""``--log-format`` and ``--log-level`` of the two long-running commands (``run`` and
``qm runmqtrm``): declared once, and read once against the settings
(``DLQHANDLER_LOG_JSON``, ``DLQHANDLER_LOG_LEVEL``), the command line winning."""

from __future__ import annotations

import argparse

from dlqhandler.config import Settings

__all__ = ["LOG_LEVELS", "add_log_options", "log_json"]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def add_log_options(p: argparse.ArgumentParser) -> None:
    """Add --log-format (json or console) and --log-level, both defaulting to the settings."""
    p.add_argument(
        "--log-format",
        choices=("json", "console"),
        default=None,
        help="log format (default: json unless stderr is a terminal)",
    )
    p.add_argument("--log-level", default=None, choices=LOG_LEVELS)


def log_json(args: argparse.Namespace, settings: Settings) -> bool | None:
    """JSON lines or the console format: --log-format if given, else the settings' choice
    (None: JSON when stderr is not a terminal)."""
    return settings.log_json if args.log_format is None else args.log_format == "json"
