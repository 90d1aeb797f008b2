"""``dlqhandler report``: what is on a dead-letter queue, and what a table would do to it.

    dlqhandler report (--input PATH... | -m QMGR [--queue Q]) [--rules FILE
                      [--compare OLD_FILE] [--max-hops N]] [--as-of TIMESTAMP]
                      [--older-than AGE] [--newer-than AGE] --output DIR

Read-only: with ``-m`` the queue is browsed into a snapshot (as the drain's:
:func:`dlqhandler.qmgr.snapshot.snapshot_queue`), never got from. Writes
``DIR/report.json`` and ``DIR/report.html`` and prints a short summary.
``--older-than``/``--newer-than`` select by the time since a message was dead-lettered,
by ``run``'s rule
(:class:`dlqhandler.mq.ages.AgeWindow`), measured at ``--as-of`` (default: when the
command starts); the report counts the selected messages and says how many it left out.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._connect import (
    add_connection_arguments,
    connect,
    connection_usage_problem,
    resolve_qmgr_name,
)
from dlqhandler.cli._inputs import input_files, print_input_notes, reads_of
from dlqhandler.cli._names import names_problem
from dlqhandler.cli._reading import render
from dlqhandler.cli._spark_options import (
    JAVA_INT_MAX,
    QMGR_OPTIONS,
    QUEUE_OPTIONS,
    add_spark_options,
)
from dlqhandler.cli._types import bounded_int, positive_int
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import load_settings
from dlqhandler.errors import ConfigError, DLQHandlerError, DumpFormatError, MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.mq.ages import AgeWindow
from dlqhandler.mq.message import Message
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.snapshot import snapshot_queue
from dlqhandler.report import render_html, summary_lines
from dlqhandler.rules import RuleSet, Severity, compile_rules
from dlqhandler.rules.lexer import source_lines
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.spark.classify import (
    catch_all_loop,
    catch_all_queue,
    floors_view,
    offline_input,
    spent_floors,
)
from dlqhandler.spark.files import check_output_dir, is_local, local_path
from dlqhandler.spark.inputs import InputSet, dumps_origin
from dlqhandler.spark.report.options import ReportOptions

__all__ = ["parse_as_of", "register"]

_PROG = "dlqhandler report"


class _UsageError(Exception):
    """Bad arguments or inputs: printed, exit code USAGE."""


def _add_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--input",
        nargs="+",
        action="extend",
        metavar="PATH",
        help="dmpmqmsg files, directories or globs (as for drain)",
    )
    src.add_argument(
        "-m",
        "--qmgr",
        metavar="QMGR",
        help="browse a queue of this embedded queue manager (never gets)",
    )
    p.add_argument(
        "--queue",
        metavar="Q",
        help="with -m: the queue to browse (default: the table's INPUTQ, else the "
        "queue manager's dead-letter queue)",
    )
    p.add_argument(
        "--status-queue",
        metavar="Q",
        help="with -m: the queue of attempt counts dlqhandler run and drain --apply keep "
        "(their --status-queue): a message whose RETRY is spent there is counted under the "
        f"next matching rule, as run takes it (default {DEFAULT_STATUS_QUEUE}; only read)",
    )
    p.add_argument(
        "--rules",
        type=Path,
        metavar="FILE",
        help="report what this rules table would do to each message",
    )
    p.add_argument(
        "--catch-all",
        metavar="QUEUE",
        help="with --rules: the drain's --catch-all; report what it would send there "
        "(default: the table's last rule, when it is an unconditional FWD, as for drain)",
    )
    p.add_argument(
        "--max-hops",
        type=positive_int,
        metavar="N",
        help="with --rules: as dlqhandler run's and the drain's; a message that would be put"
        " with N or more MQDLH headers is a forward loop and stays (1 or more, default"
        f" {DEFAULT_MAX_HOPS})",
    )
    p.add_argument(
        "--compare",
        type=Path,
        metavar="OLD_FILE",
        help="with --rules: report the messages whose action or target changes "
        "from this (old) table to --rules",
    )
    p.add_argument(
        "--as-of",
        metavar="TIMESTAMP",
        help="ISO 8601 time the ages are measured to (default: now; no zone: UTC)",
    )
    p.add_argument(
        "--older-than",
        metavar="AGE",
        help="report only on messages dead-lettered at least AGE before --as-of "
        "(MQDLH PutDate/PutTime, as run --older-than), e.g. 7d, 12h, 30m, "
        "90s, 2w; the report says how many it left out",
    )
    p.add_argument(
        "--newer-than",
        metavar="AGE",
        help="report only on messages dead-lettered at most AGE before --as-of; "
        "with --older-than, the messages between the two (--newer-than "
        "must not be shorter)",
    )
    p.add_argument(
        "--output",
        type=Path,
        required=True,
        metavar="DIR",
        help="new or empty local directory for report.json and report.html",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a non-empty --output directory whole (as for drain)",
    )
    p.add_argument(
        "--top",
        type=bounded_int(1, JAVA_INT_MAX),
        default=1000,
        metavar="N",
        help="keep the N biggest values of each list, plus one 'other' row (default 1000)",
    )
    add_spark_options(p)
    add_connection_arguments(p)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "report",
        help=COMMANDS["report"],
        description="Count what is on a dead-letter queue (reasons, destinations, "
        "applications, ages, arrivals) and what a rules table, or a change of "
        "table, would do to each message. Moves nothing.",
    )
    _add_arguments(p)
    p.set_defaults(handler=_report)


def parse_as_of(text: str | None) -> datetime:
    """``--as-of``: ISO 8601 (``2024-11-25T12:00:00Z``, a date alone is midnight);
    without a zone it is UTC. None: now."""
    if text is None:
        return datetime.now(UTC)
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise _UsageError(
            f"--as-of {text!r} is not an ISO 8601 time; write it as "
            "2024-11-25T12:00:00Z or 2024-11-25"
        ) from exc
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
    try:  # ages are measured in UTC: a time the UTC calendar cannot hold is refused
        value.astimezone(UTC).timestamp()
    except (OverflowError, ValueError, OSError) as exc:
        raise _UsageError(
            f"--as-of {text!r} is outside the calendar (0001-01-01 to "
            "9999-12-31 UTC) once taken to UTC; give a time within it"
        ) from exc
    return value


def _compile(path: Path, what: str, input_queue: str | None) -> RuleSet | None:
    """Compile a table; print its error diagnostics (lint's format); None on errors."""
    try:
        table = path.read_bytes()  # as lint and run read it (rules/source.py's one rule)
    except OSError as exc:
        raise _UsageError(f"cannot read {what} {path}: {exc}") from exc
    result = compile_rules(table, source=str(path), input_queue=input_queue)
    lines = source_lines(result.text)
    for d in result.diagnostics:
        if d.severity == Severity.ERROR:
            print(render(d, lines), file=sys.stderr)
    return result.ruleset


def _report(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except _UsageError as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)


def _run(args: argparse.Namespace) -> int:
    if args.compare is not None and args.rules is None:
        raise _UsageError("--compare OLD_FILE compares with the table of --rules: give --rules")
    if args.queue is not None and args.qmgr is None:
        raise _UsageError("--queue names a queue to browse: give -m QMGR as well")
    if args.status_queue is not None and args.qmgr is None:
        raise _UsageError(
            "--status-queue names the attempt counts on a queue manager; a dump has none: "
            "give -m QMGR as well, or leave it out"
        )
    if args.catch_all is not None and args.rules is None:
        raise _UsageError(
            "--catch-all says where the drain of --rules sends what stays: give --rules"
        )
    if args.max_hops is not None and args.rules is None:
        raise _UsageError("--max-hops limits what the table of --rules can put: give --rules")
    problem = connection_usage_problem(args) or names_problem(
        args,
        queues={
            k: v for k, v in QUEUE_OPTIONS.items() if k in ("queue", "catch_all", "status_queue")
        },
        qmgrs=QMGR_OPTIONS,
    )
    if problem:
        raise _UsageError(problem)
    as_of = parse_as_of(args.as_of)
    try:
        ages = AgeWindow.parse(args.older_than, args.newer_than)
    except ConfigError as exc:
        raise _UsageError(str(exc)) from exc
    settings = load_settings()
    configure_logging(level=settings.log_level)
    new = old = None
    if args.rules is not None:
        new = _compile(args.rules, "rules table", args.queue)
        old = _compile(args.compare, "old rules table", args.queue) if args.compare else None
        if new is None or (args.compare is not None and old is None):
            return int(ExitCode.RULES_ERROR)
    if not is_local(str(args.output)):
        raise _UsageError(
            f"--output {args.output}: the report is written on this machine; give a local directory"
        )
    try:
        inputs = input_files(args.input) if args.input else InputSet()
        # the drain's rule: a new or empty directory, or --overwrite; staged, then renamed;
        # never holding (nor inside) what the report reads
        out = check_output_dir(
            str(args.output),
            overwrite=args.overwrite,
            reads=reads_of(inputs, rules=args.rules, compare=args.compare),
        )
    except (ConfigError, DumpFormatError) as exc:
        raise _UsageError(str(exc)) from exc
    print_input_notes(_PROG, inputs)
    try:
        gathered = _gather(args, settings, inputs, as_of=as_of, ages=ages, new=new, old=old)
        if isinstance(gathered, int):
            return gathered
        report, source = gathered
        (out.staging_path / "report.json").write_text(
            json.dumps(report, indent=2) + "\n", encoding="utf-8"
        )
        (out.staging_path / "report.html").write_text(
            render_html(report, source=source), encoding="utf-8"
        )
        out.commit()
    finally:
        out.discard()  # nothing left behind when the run did not finish
    final = local_path(out.uri)
    print("\n".join(summary_lines(report, source=source)))
    for note in report["inputs"]["notes"]:
        print(f"  input note: {note}")
    print(f"  written: {final / 'report.json'}, {final / 'report.html'}")
    if report["inputs"].get("spark_log"):
        print(f"  Spark log: {report['inputs']['spark_log']}")
    return int(ExitCode.OK)


def _gather(
    args: argparse.Namespace,
    settings: Any,
    inputs: InputSet,
    *,
    as_of: datetime,
    ages: AgeWindow,
    new: RuleSet | None,
    old: RuleSet | None,
) -> tuple[dict[str, Any], str] | int:
    """The report object and what was read, or an exit code."""
    spent: tuple[tuple[Message, int], ...] = ()  # no status queue for dumps
    with tempfile.TemporaryDirectory(prefix="dlqhandler-report-") as tmp:
        if args.qmgr is not None:
            queue = args.queue or (new.control.inputq if new is not None else None)
            try:
                name = (
                    args.qmgr if args.backend == "ibmmq" else resolve_qmgr_name(settings, args.qmgr)
                )
                qm = connect(args, settings, name)
                try:
                    snapshot = snapshot_queue(
                        qm,
                        queue,
                        Path(tmp) / "_snapshot" / "input.dmp",
                        # the attempts `run` recorded
                        status_queue=args.status_queue or DEFAULT_STATUS_QUEUE,
                        status_required=args.status_queue is not None,
                    )
                finally:
                    qm.disconnect()
                snap, queue, local = snapshot.path, snapshot.queue, snapshot.qmgr
                spent = snapshot.spent
            except (MQIError, ConfigError, DLQHandlerError) as exc:
                print(
                    f"{_PROG}: cannot browse {queue or 'the dead-letter queue'} on "
                    f"{args.qmgr}: {exc}",
                    file=sys.stderr,
                )
                return int(ExitCode.CONNECTION_ERROR)
            inputs = InputSet(files=(str(snap),))
            source = f"queue {queue} on {name} (browsed)"
        else:
            # Dumps: from the DLQ the table's INPUTQ/INPUTQM name, else the one their
            # headers name, as the drain takes them (Hadoop files: read once Spark runs).
            origin, mixed = dumps_origin(inputs.files) if not inputs.pending else (None, None)
            queue, local = offline_input(new, origin) if new is not None else (None, "")
            if mixed is not None and new is not None:
                print(f"{_PROG}: note: {mixed}", file=sys.stderr)
            source = ""
        if new is not None and (said := catch_all_loop(new, args.catch_all, queue)):
            # the drain refuses to run it (exit 2): nothing to predict
            raise _UsageError(said)
        report, inputs, spark_log = _spark_report(
            args,
            inputs,
            as_of=as_of,
            ages=ages,
            new=new,
            old=old,
            queue=queue,
            local=local,
            spent=spent,
        )
        if args.qmgr is None:
            files = inputs.files
            source = ", ".join(files[:3]) + (
                f" and {len(files) - 3} more files" if len(files) > 3 else ""
            )
    notes = {
        "files": len(inputs.files),
        "notes": inputs.notes(),
        "spark_log": str(spark_log) if spark_log else None,
    }
    return {"source": source, "inputs": notes, **report}, source


def _spark_report(
    args: argparse.Namespace,
    inputs: InputSet,
    *,
    as_of: datetime,
    ages: AgeWindow,
    new: RuleSet | None,
    old: RuleSet | None,
    queue: str | None,
    local: str,
    spent: tuple[tuple[Message, int], ...] = (),
) -> tuple[dict[str, Any], InputSet, Path | None]:
    """Build the report on Spark (:class:`~dlqhandler.spark.lifecycle.SparkRun`: Spark's
    own log lines go to a log file, as the drain's do, unless --verbose or under
    spark-submit; Ctrl-C cancels the jobs; a session the report built is stopped)."""
    from dlqhandler.spark.lifecycle import SparkRun
    from dlqhandler.spark.report import READ_COLUMNS, ReportOptions, report_query
    from dlqhandler.spark.session import launched_master, local_cores
    from dlqhandler.spark.sql import standalone

    options = ReportOptions(
        as_of=as_of,
        ruleset=new,
        old_ruleset=old,
        input_queue=queue,
        local_qmgr=local,
        top=args.top,
        ages=ages,
        catch_all=catch_all_queue(new, args.catch_all) if new is not None else None,
        old_catch_all=catch_all_queue(old, args.catch_all) if old is not None else None,
        max_hops=DEFAULT_MAX_HOPS if args.max_hops is None else args.max_hops,
    )
    query = standalone(report_query(READ_COLUMNS, options))  # parsed while Spark starts
    # Each shuffle carries what the aggregation before it left (a few hundred rows per
    # task): on this machine's cores, one partition per core, not Spark's 200 for clusters.
    master = launched_master(args.master)  # None under spark-submit: its own setting stays
    cores = local_cores(master) if master is not None else None
    with SparkRun(
        "report", master=args.master, partitions=cores, verbose=args.verbose, warm_sql=[query]
    ) as run:
        with run.cancelling():
            # each table its own floors: the rule `run` takes once attempts are spent
            options = dataclasses.replace(
                options,
                floors=floors_view(run.spark, spent_floors(new, spent))
                if new is not None
                else None,
                old_floors=floors_view(run.spark, spent_floors(old, spent))
                if old is not None
                else None,
            )
            built = _build(args, run.spark, inputs, options)
        if run.interrupted:
            raise KeyboardInterrupt
        return (*built, run.log_file)


def _build(
    args: argparse.Namespace, spark: Any, inputs: InputSet, options: ReportOptions
) -> tuple[dict[str, Any], InputSet]:
    """The report object, and the inputs as read (Hadoop URIs listed)."""
    from dlqhandler.spark.report import build_report, read_dumps

    if inputs.pending:  # Hadoop URIs are listed now that Spark runs (local files already were)
        before = inputs
        try:
            inputs = inputs.with_hadoop(spark)
        except ConfigError as exc:
            raise _UsageError(str(exc)) from exc
        print_input_notes(
            _PROG,
            InputSet(
                repeated=inputs.repeated[len(before.repeated) :],
                left_out=inputs.left_out[len(before.left_out) :],
            ),
        )
        if options.ruleset is not None:
            # Their headers, read through Hadoop, name the DLQ they came from (as the
            # drain takes it).
            origin, mixed = dumps_origin(inputs.files, spark)
            queue, local = offline_input(options.ruleset, origin)
            if mixed is not None:
                print(f"{_PROG}: note: {mixed}", file=sys.stderr)
            if said := catch_all_loop(options.ruleset, args.catch_all, queue):
                raise _UsageError(said)
            options = dataclasses.replace(options, input_queue=queue, local_qmgr=local)
    try:
        messages = read_dumps(spark, list(inputs.files), split_bytes=args.split_mb << 20)
    except DumpFormatError as exc:
        raise _UsageError(str(exc)) from exc
    try:
        return build_report(messages, options), inputs
    except DumpFormatError as exc:  # a file found not to be a dump as it is read
        raise _UsageError(str(exc)) from exc
