"""The composition root: parses argv, builds adapters, configures logging.

Each subcommand lives in its own module here (``lint``, ``qm``, ``run``,
``drain``, ``samples``...) and exposes ``register(subparsers)``, which adds
its parser and sets ``handler`` to a function ``(args) -> int`` (the exit
code). Only the module of the command that runs is imported (``dlqhandler --help``
imports none: :mod:`._commands` names them all): a command starts with what it needs.
This package may import everything; nothing imports it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from dlqhandler import __version__
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._types import ages_joined
from dlqhandler.cli.exitcodes import EPILOG, ExitCode, for_mq_reason
from dlqhandler.errors import DLQHandlerError, DumpFormatError, MQIError

__all__ = ["build_parser", "main"]


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, but the exit-code table keeps its lines."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("exit codes:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def _with_epilog(parser: argparse.ArgumentParser) -> None:
    """The exit-code table at the end of the parser's --help, and of its subcommands'."""
    parser.epilog = EPILOG
    parser.formatter_class = _Formatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _with_epilog(child)


def build_parser(words: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command (``words`` None), or of the command ``words`` name, the
    others listed by name and help line only (their modules are not imported)."""
    parser = argparse.ArgumentParser(
        prog="dlqhandler",
        description="A rules-engine dead-letter-queue handler for IBM MQ (runmqdlq compatible).",
    )
    parser.add_argument("--version", action="version", version=f"dlqhandler {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = None if words is None else _chosen(words)
    for name, line in COMMANDS.items():
        if words is None or name == chosen:
            importlib.import_module(f"dlqhandler.cli.{name}").register(sub)
        else:
            sub.add_parser(name, help=line)
    _with_epilog(parser)
    return parser


def _chosen(words: Sequence[str]) -> str | None:
    """The command ``words`` run: the first word that is not an option (the top level
    takes only --help and --version before it)."""
    for word in words:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code.

    A closed standard output (``dlqhandler audit | head -1``) ends the command quietly
    with ``BROKEN_PIPE`` (141, 128 + SIGPIPE, what a shell reports for a Unix tool
    killed by SIGPIPE), here and only here: Python's recipe ("Note on SIGPIPE" in the
    ``signal`` module's documentation) flushes standard output inside the ``try`` so
    that a closed pipe shows as BrokenPipeError, then points standard output at
    /dev/null so that the interpreter's own flush at exit does not fail again. SIGPIPE
    keeps Python's disposition (ignored): setting SIG_DFL would also kill the process
    when a socket (Py4J, an MQ client connection) breaks. What a command did before the
    pipe closed stands (a unit of work not committed is backed out by the disconnect).
    """
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        return int(ExitCode.BROKEN_PIPE)


def _stdout_to_devnull() -> None:
    """Standard output to /dev/null: what is left in its buffer is dropped quietly."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = parser.parse_args(ages_joined(words))
    args.argv = words  # the command line as given (audit records name it)
    try:
        code = int(args.handler(args))
    except MQIError as exc:
        print(f"dlqhandler: error: {exc}", file=sys.stderr)
        return int(for_mq_reason(exc.reason))
    except DumpFormatError as exc:
        print(f"dlqhandler: error: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except DLQHandlerError as exc:
        print(f"dlqhandler: error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", ExitCode.FAILURE))
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
