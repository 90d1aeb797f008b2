"""``dlqhandler samples generate``: a realistic dead-letter backlog as a dmpmqmsg file."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._types import qmgr_name, queue_name
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.backlog import write_backlog

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "samples",
        help=COMMANDS["samples"],
        description="Sample data for trying dlqhandler out.",
    )
    sub = parser.add_subparsers(dest="samples_command", metavar="ACTION", required=True)
    gen = sub.add_parser(
        "generate",
        help="write a seeded, realistic DLQ backlog as a dmpmqmsg file",
        description="Write COUNT dead-letter messages (mixed reasons, destinations, "
        "reports, groups, EBCDIC and big-endian headers, a few without an "
        "MQDLH) to a dmpmqmsg file that dmpmqmsg -o can load.",
    )
    gen.add_argument("--count", type=int, default=200, help="messages (default 200)")
    gen.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    gen.add_argument("--output", "-o", required=True, help="file to write ('-' for stdout)")
    gen.add_argument(
        "--qmgr", default="QM1", type=qmgr_name, help="the DLQ's queue manager (default QM1)"
    )
    gen.add_argument(
        "--queue",
        default="SYSTEM.DEAD.LETTER.QUEUE",
        type=queue_name,
        help="the queue named in the file header",
    )
    gen.add_argument(
        "--created",
        type=datetime.fromisoformat,
        metavar="ISO-TIME",
        help="time for the header's Created: field (default now), for byte-identical files",
    )
    gen.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.count < 0:
        print("dlqhandler samples generate: --count must be >= 0", file=sys.stderr)
        return int(ExitCode.USAGE)

    def write(stream: BinaryIO) -> int:
        return write_backlog(
            stream,
            args.count,
            seed=args.seed,
            qmgr=args.qmgr,
            queue=args.queue,
            created=args.created,
        )

    if args.output == "-":
        count = write(sys.stdout.buffer)
    else:
        try:
            count = _write_aside(Path(args.output), write)
        except OSError as exc:
            print(
                f"dlqhandler samples generate: cannot write {args.output}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return int(ExitCode.USAGE)
    print(f"wrote {count} messages to {args.output}", file=sys.stderr)
    return int(ExitCode.OK)


def _write_aside(path: Path, write: Callable[[BinaryIO], int]) -> int:
    """Write into a hidden sibling of ``path``, then rename it over ``path``: a run that
    fails (or is interrupted) leaves no partial file and any earlier file as it was."""
    fd, aside = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            count = write(f)
        os.chmod(aside, 0o666 & ~_umask())
        os.replace(aside, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise
    return count


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
