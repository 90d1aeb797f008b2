"""``dlqhandler drain``: the bulk backlog drain on Spark.

    dlqhandler drain --rules FILE --output DIR (--input PATH... | -m QMGR [--queue Q])
                     [--catch-all QUEUE] [--max-hops N] [--dry-run] [--apply]
                     [--overwrite]
                     [--master URL] [--partitions N] [--verbose]
                     [--backend embedded|ibmmq]

With ``--backend ibmmq``, ``-m QMGR`` is an IBM MQ queue manager reached through
the IBM MQ adapter (settings from the environment, see ``dlqhandler run``): the
snapshot browses it and ``--apply`` acts on it from every Spark executor.

The same arguments work under ``spark-submit ops/spark/drain.py``.

Everything a user can get wrong is checked before Spark starts (seconds of
JVM start-up): the rules table, every ``--input`` (paths or URIs, resolved on
the driver), and ``--output`` (a new or empty directory, or ``--overwrite``).
The run writes into a temporary sibling of DIR that replaces DIR only when
the run is complete; an interrupted or failed run leaves nothing behind.
Ctrl-C cancels the Spark jobs, stops Spark, removes the partial output, says
what was done (with ``--apply``: how many messages left the queue) and exits 130.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dlqhandler.check import require_status_queue
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._connect import (
    add_connection_arguments,
    connection_factory,
    connection_usage_problem,
    ensure_queue,
    resolve_qmgr_name,
)
from dlqhandler.cli._inputs import input_files, print_input_notes, reads_of
from dlqhandler.cli._names import names_problem
from dlqhandler.cli._spark_options import (
    JAVA_INT_MAX,
    QMGR_OPTIONS,
    QUEUE_OPTIONS,
    add_spark_options,
)
from dlqhandler.cli._types import bounded_int, positive_int
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import Settings, load_settings
from dlqhandler.errors import ConfigError, DLQHandlerError, DumpFormatError, MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.port import QueueManager
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.spark.drain import (
    DrainOutcome,
    DrainRequest,
    DrainStatus,
    QueueSource,
    drain,
    mode_problem,
)
from dlqhandler.spark.files import check_output_dir
from dlqhandler.spark.inputs import InputSet

__all__ = ["main", "register"]

_PROG = "dlqhandler drain"


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", type=Path, required=True, metavar="FILE", help="rules table")
    p.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="output directory or URI (dmpmqmsg files, audit/, manifest.json);"
        " new or empty unless --overwrite",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a non-empty --output DIR whole (when the run completes)",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--input",
        nargs="+",
        action="extend",
        metavar="PATH",
        help="dmpmqmsg files, directories or globs (paths or URIs)",
    )
    src.add_argument(
        "-m",
        "--qmgr",
        metavar="QMGR",
        help="take a snapshot of a queue on this queue manager (--backend)",
    )
    p.add_argument("--queue", metavar="Q", help="queue to snapshot (default: the QM's DEADQ)")
    p.add_argument(
        "--catch-all",
        metavar="QUEUE",
        help="send everything that would stay on the DLQ here, with its MQDLH",
    )
    p.add_argument(
        "--max-hops",
        type=positive_int,
        default=DEFAULT_MAX_HOPS,
        metavar="N",
        help="as dlqhandler run's: a message that would be put with N or more MQDLH headers"
        f" is a forward loop and stays (1 or more, default {DEFAULT_MAX_HOPS})",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="only classify: write audit/ and summary.json"
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="carry out the actions on the queue manager given with -m",
    )
    p.add_argument(
        "--status-queue",
        default=None,
        metavar="Q",
        help="with -m: the queue of attempt counts shared with dlqhandler run (its "
        "--status-queue); --apply reads and updates it, a drain without --apply reads it "
        f"to go on from the spent RETRYs (default {DEFAULT_STATUS_QUEUE}; with --apply "
        "defined if missing)",
    )
    p.add_argument(
        "--partitions",
        type=bounded_int(1, JAVA_INT_MAX),
        metavar="N",
        help="Spark shuffle partitions, and at most N tasks writing the outputs"
        " (default: one per input split)",
    )
    add_spark_options(p)
    add_connection_arguments(p)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "drain",
        help=COMMANDS["drain"],
        description="Classify a DLQ backlog with a rules table on Spark and write the "
        "results as dmpmqmsg files (or apply them to a queue manager). "
        "--input and --output take paths or URIs; relative paths are resolved "
        "on the driver. --output DIR must be new or empty; --overwrite replaces "
        "it whole once the run is complete. Bad arguments, inputs and outputs "
        "are refused before Spark starts; Ctrl-C removes the partial output.",
    )
    _add_arguments(p)
    p.set_defaults(handler=_drain)


def _drain(args: argparse.Namespace) -> int:
    """Check the command line, make the request, run it, say what came of it."""
    settings = load_settings()
    configure_logging(level=settings.log_level)
    problem = connection_usage_problem(args) or names_problem(
        args, queues=QUEUE_OPTIONS, qmgrs=QMGR_OPTIONS
    )
    if problem is None:
        problem = mode_problem(
            apply=args.apply, dry_run=args.dry_run, from_queue=args.qmgr is not None
        ) or _ignored_option(args)
    if problem:
        print(f"{_PROG}: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        # the bytes as lint and run read them (rules/source.py: one encoding rule)
        text = Path(args.rules).read_bytes().decode("utf-8", "surrogateescape")
    except OSError as exc:
        print(f"{_PROG}: cannot read rules table: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        inputs = input_files(args.input) if args.input else InputSet()
        reads = reads_of(inputs, rules=args.rules)
        out = check_output_dir(args.output, overwrite=args.overwrite, reads=reads)
        source = _queue_source(args, settings) if args.qmgr is not None else None
    except (ConfigError, DumpFormatError) as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except MQIError as exc:  # no queue manager of that name
        print(
            f"{_PROG}: cannot browse {args.queue or 'the dead-letter queue'} on {args.qmgr}: {exc}",
            file=sys.stderr,
        )
        return int(ExitCode.CONNECTION_ERROR)
    print_input_notes(_PROG, inputs)
    outcome = drain(
        DrainRequest(
            rules_text=text,
            rules_source=str(args.rules),
            output=out,
            inputs=inputs,
            source=source,
            catch_all=args.catch_all,
            max_hops=args.max_hops,
            dry_run=args.dry_run,
            overwrite=args.overwrite,
            reads=tuple(reads),
            master=args.master,
            partitions=args.partitions,
            split_bytes=args.split_mb << 20,
            verbose=args.verbose,
            note=lambda line: print(f"{_PROG}: note: {line}", file=sys.stderr),
        )
    )
    return _said(outcome)


def _ignored_option(args: argparse.Namespace) -> str | None:
    """An option that the run would ignore (refused: a user who gives it expects it to
    act), or None. Sets the default status queue when --apply leaves it out."""
    if args.queue is not None and args.qmgr is None:
        return "--queue names a queue to browse: give -m QMGR as well"
    if args.status_queue is not None and args.qmgr is None:
        return (
            "--status-queue names the attempt counts on a queue manager; a dump has none: "
            "give -m QMGR as well, or leave it out"
        )
    args.status_queue_given = args.status_queue is not None  # a missing one is an error
    if args.status_queue is None:
        args.status_queue = DEFAULT_STATUS_QUEUE
    return None


def _queue_source(args: argparse.Namespace, settings: Settings) -> QueueSource:
    """-m QMGR [--queue Q]: a snapshot of the queue, with --apply the status queue made
    ready first (defined if missing on an embedded queue manager, then opened as the
    executors will: a missing one on IBM MQ is named with its MQSC now, not a failed
    task later)."""
    name = args.qmgr if args.backend == "ibmmq" else resolve_qmgr_name(settings, args.qmgr)

    def prepare(qm: QueueManager) -> None:
        ensure_queue(qm, args.status_queue, descr="dlqhandler attempt counts")
        require_status_queue(qm, args.status_queue)

    return QueueSource(
        connect=connection_factory(settings, name, args),
        qmgr=name,
        queue=args.queue,
        apply=args.apply,
        status_queue=args.status_queue,
        status_required=getattr(args, "status_queue_given", False),
        prepare=prepare if args.apply else None,
    )


# Each way a drain ends, and the exit code that says it.
_EXIT = {
    DrainStatus.OK: ExitCode.OK,
    DrainStatus.PARTIAL: ExitCode.PARTIAL,
    DrainStatus.INTERRUPTED: ExitCode.INTERRUPTED,
    DrainStatus.FAILED: ExitCode.FAILURE,
    DrainStatus.ERROR: ExitCode.FAILURE,
    DrainStatus.BAD_INPUT: ExitCode.USAGE,
    DrainStatus.RULES_ERROR: ExitCode.RULES_ERROR,
    DrainStatus.REFUSED: ExitCode.USAGE,
    DrainStatus.NO_QUEUE: ExitCode.CONNECTION_ERROR,
}


def _said(outcome: DrainOutcome) -> int:
    """Print what came of the drain; its exit code."""
    status = outcome.status
    if status is DrainStatus.RULES_ERROR:
        for line in outcome.problems:
            print(line, file=sys.stderr)
    elif status is DrainStatus.FAILED:
        print(
            f"{_PROG}: failed: {outcome.problems[0]}; nothing was written to {outcome.output}",
            file=sys.stderr,
        )
        for line in outcome.details:
            print(line, file=sys.stderr)
    else:
        for line in outcome.problems:
            print(f"{_PROG}: {line}", file=sys.stderr)
    if status is DrainStatus.INTERRUPTED:
        done = outcome.moved or "nothing was written to " + outcome.output
        print(
            f"{_PROG}: interrupted: Spark stopped, partial output removed; {done}",
            file=sys.stderr,
        )
        if outcome.log_file is not None:
            print(f"  Spark log: {outcome.log_file}", file=sys.stderr)
    for line in outcome.unknown_report():
        print(line, file=sys.stderr)
    for line in outcome.failed_report():
        print(line, file=sys.stderr)
    for line in outcome.not_connected_report():
        print(line, file=sys.stderr)
    for line in outcome.malformed_report():
        print(line, file=sys.stderr)
    for line in outcome.render():
        print(line)
    return int(_EXIT[status])


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point for ``spark-submit ops/spark/drain.py ARGS``."""
    parser = argparse.ArgumentParser(prog="drain.py", description=__doc__)
    _add_arguments(parser)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        return _drain(args)
    except DLQHandlerError as exc:
        print(f"dlqhandler drain: error: {exc}", file=sys.stderr)
        return int(ExitCode.FAILURE)
