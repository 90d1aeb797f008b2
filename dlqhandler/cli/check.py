"""``dlqhandler check [QMGR]``: is the queue manager set up so dead letters can be handled?

Reads arguments, connects and prints; the checking is :mod:`dlqhandler.check`.
Exit 0 when nothing is worse than a warning, 1 when something is an error, 2 for
bad arguments or an unreadable table, 3 when the table does not compile, 4 when
the queue manager cannot be connected.
"""

from __future__ import annotations

import argparse
import sys

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE
from dlqhandler.check import RulesTable, check_setup, render_json, render_text, worst
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._connect import add_connection_arguments, connect, connection_usage_problem
from dlqhandler.cli._reading import read_table, render
from dlqhandler.cli.exitcodes import ExitCode, for_mq_reason
from dlqhandler.config import load_settings
from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.mq.names import validate_qmgr_name, validate_queue_name
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.rules import compile_rules
from dlqhandler.rules.lexer import source_lines

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help=COMMANDS["check"],
        description="Check the queue manager's dead-letter set-up as an administrator "
        "would: DEADQ, the DLQ's MAXMSGL, depth, PUT/GET, PROPCTL and sharing, "
        "the handler's status queue, triggered start, and with --rules the "
        "table's destinations, loops and authority. Each finding has a "
        "severity, the object, what is wrong, why it matters and the MQSC "
        "that fixes it; what MQINQ cannot tell is listed as 'not checked'. "
        "See docs/check.md.",
    )
    p.add_argument(
        "qmgr",
        nargs="?",
        metavar="QMGR",
        help="queue manager (default: the table's INPUTQM, else $DLQHANDLER_QMGR or the only one)",
    )
    p.add_argument(
        "--rules",
        metavar="FILE",
        help="also check what this rules table needs ('-' for standard input)",
    )
    p.add_argument(
        "--status-queue",
        default=DEFAULT_STATUS_QUEUE,
        metavar="Q",
        help=f"the handler's status queue (default {DEFAULT_STATUS_QUEUE})",
    )
    p.add_argument(
        "--audit-queue",
        default=DEFAULT_AUDIT_QUEUE,
        metavar="Q",
        help=f"the handler's audit queue (default {DEFAULT_AUDIT_QUEUE})",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or one JSON document",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="text: leave out the 'ok' findings")
    add_connection_arguments(p)
    p.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    problem = connection_usage_problem(args)
    try:
        validate_queue_name(args.status_queue, "--status-queue")
        validate_queue_name(args.audit_queue, "--audit-queue")
        if args.qmgr is not None:
            validate_qmgr_name(args.qmgr.strip(), "QMGR")
    except ValueError as exc:
        problem = problem or f"{exc}: not a valid MQ name"
    if problem is not None:
        print(f"dlqhandler check: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    table, inputqm = None, None
    if args.rules is not None:
        try:
            text = read_table(args.rules)
        except OSError as exc:
            print(f"dlqhandler check: cannot read rules table: {exc}", file=sys.stderr)
            return int(ExitCode.USAGE)
        source = "<stdin>" if args.rules == "-" else str(args.rules)
        compiled = compile_rules(text, source=source)
        if compiled.ruleset is None:
            lines = source_lines(compiled.text)
            for d in compiled.errors:
                print(render(d, lines), file=sys.stderr)
            return int(ExitCode.RULES_ERROR)
        table, inputqm = RulesTable(text, source), compiled.ruleset.control.inputqm
    settings = load_settings()
    configure_logging(level="WARNING")  # a report: connection events are noise here
    try:
        qm = connect(args, settings, args.qmgr or inputqm)  # as run picks it
    except (MQIError, ConfigError) as exc:
        print(f"dlqhandler check: cannot connect to the queue manager: {exc}", file=sys.stderr)
        return int(ExitCode.CONNECTION_ERROR)
    try:
        report = check_setup(
            qm,
            status_queue=args.status_queue,
            audit_queue=args.audit_queue,
            rules=table,
            status_queue_defined_at_start=args.backend == "embedded",
        )
    except MQIError as exc:
        print(f"dlqhandler check: {exc}", file=sys.stderr)
        return int(for_mq_reason(exc.reason))
    finally:
        qm.disconnect()
    if args.format == "json":
        sys.stdout.write(render_json(report))
    else:
        sys.stdout.write(render_text(report, verbose=not args.quiet))
    return int(ExitCode.FAILURE if worst(report.findings) == "error" else ExitCode.OK)
