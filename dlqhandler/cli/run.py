"""``dlqhandler run``: the DLQ handler daemon, invoked like runmqdlq.

    dlqhandler run [INPUTQ [INPUTQM]] [--rules FILE] [--backend embedded|ibmmq] ...

Rules come from ``--rules FILE``, else from stdin, as runmqdlq reads them.
Positional INPUTQ/INPUTQM override the table's control data; a blank INPUTQ
means the queue manager's DEADQ, a blank or absent INPUTQM the default queue
manager (``$DLQHANDLER_QMGR`` or the only embedded one) (spec §2.1).

Start-up order follows runmqdlq (spec §5.1): the whole table is compiled
before anything is processed (any error: exit 3, nothing touched), then the
queue manager is connected and the DLQ chosen, then ``AMQ8708`` is printed
and the loop runs. It ends with ``AMQ8709`` and a summary on stdout. SIGTERM
and SIGINT stop it between units of work, summary printed; SIGHUP reloads the
rules file. SIGTERM is the service manager's orderly stop: a handler with a table
exits as its work says (0, or 6); a one-off action stopped by it before its pass
was done exits 143. Ctrl-C (SIGINT) is a person's interrupt: exit 130, as every
command (README "Exit codes").

Beyond runmqdlq (:mod:`dlqhandler.cli._run_options`): ``--msgid``/``--match``
act on selected messages only, in one pass unless WAIT(YES); ``--max-rate``
paces the actions; ``--metrics-port`` serves Prometheus metrics and health.
Started by a trigger monitor (an MQTMC2 as INPUTQ), a run that moves nothing
holds the DLQ open a while before ending, so the FIRST trigger does not
restart it in a loop (``--trigger-backoff``, :mod:`dlqhandler.worker.backoff`).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from dlqhandler.acting import AuditTrail
from dlqhandler.check import require_status_queue
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._connect import (
    add_connection_arguments,
    connect,
    connection_usage_problem,
    ensure_queue,
)
from dlqhandler.cli._log_options import add_log_options, log_json
from dlqhandler.cli._oneoff import (
    Progress,
    add_oneoff_options,
    audit_trail,
    oneoff_table,
    say_moved,
    say_unselected,
)
from dlqhandler.cli._reading import omitted_line, read_table, render
from dlqhandler.cli._run_options import add_run_options, check_run_options, start_metrics
from dlqhandler.cli._types import non_negative_float, positive_int, queue_name
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import Settings, load_settings
from dlqhandler.errors import ConfigError, DLQHandlerError, MQIError
from dlqhandler.logs import configure_logging, get_logger
from dlqhandler.mq.constants import MQRC_NOT_AUTHORIZED, MQRC_OBJECT_IN_USE
from dlqhandler.mq.mqtm import MQTMC2, looks_like_mqtmc2
from dlqhandler.mq.names import NAME_RULE, validate_qmgr_name, validate_queue_name
from dlqhandler.qmgr.port import QueueManager
from dlqhandler.rules import CompileResult, ControlData, Severity, compile_rules
from dlqhandler.rules.diagnostics import DEFAULT_DIAGNOSTIC_LIMIT
from dlqhandler.rules.lexer import source_lines
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.worker import (
    DEFAULT_BACKOFF_BASE,
    DEFAULT_BACKOFF_MAX,
    DEFAULT_BATCH_SIZE,
    DEFAULT_STATUS_QUEUE,
    BackoffPolicy,
    Handler,
    HandlerOptions,
    RulesReloader,
    RunStats,
    StopReason,
    TriggeredRun,
    TriggerRecords,
)
from dlqhandler.worker.metrics import HandlerMetrics, MetricsServer
from dlqhandler.worker.selection import Selector

__all__ = ["register"]

_Handler = Callable[[int, FrameType | None], Any] | int | None


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "run",
        help=COMMANDS["run"],
        description="Apply a runmqdlq rules table to a dead-letter queue.",
    )
    p.add_argument(
        "inputq",
        nargs="?",
        metavar="INPUTQ",
        help="queue to process (overrides INPUTQ; ' ' means the QM's DEADQ)",
    )
    p.add_argument(
        "inputqm",
        nargs="?",
        metavar="INPUTQM",
        help="queue manager (overrides INPUTQM; ' ' means the default)",
    )
    p.add_argument(
        "--rules",
        type=Path,
        metavar="FILE",
        help="rules table file (default: read the table from stdin)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="browse only: one pass, log and summarise what would happen, change nothing",
    )
    p.add_argument(
        "--batch-size",
        type=positive_int,
        default=DEFAULT_BATCH_SIZE,
        metavar="N",
        help=f"messages per unit of work, 1 or more (default {DEFAULT_BATCH_SIZE})",
    )
    p.add_argument(
        "--status-queue",
        default=DEFAULT_STATUS_QUEUE,
        metavar="Q",
        type=queue_name,
        help=f"queue holding durable attempt counts (default {DEFAULT_STATUS_QUEUE};"
        " defined if missing)",
    )
    p.add_argument(
        "--max-hops",
        type=positive_int,
        default=DEFAULT_MAX_HOPS,
        metavar="N",
        help="refuse to forward a message carrying N or more MQDLH headers "
        f"(a forward loop; 1 or more, default {DEFAULT_MAX_HOPS})",
    )
    p.add_argument(
        "--no-watch",
        action="store_true",
        help="do not reload the rules file when it changes (SIGHUP still does)",
    )
    add_log_options(p)
    p.add_argument(
        "--trigger-backoff",
        type=non_negative_float,
        default=DEFAULT_BACKOFF_MAX,
        metavar="MAX",
        help="started by a trigger monitor, a run that moved nothing keeps the "
        "queue open (still processing arrivals) before ending: BASE "
        "seconds, doubling on each such consecutive run, at most MAX "
        f"(default {DEFAULT_BACKOFF_MAX:g}; 0: off), so closing it does not "
        "re-trigger the handler at once",
    )
    p.add_argument(
        "--trigger-backoff-base",
        type=non_negative_float,
        default=DEFAULT_BACKOFF_BASE,
        metavar="BASE",
        help=f"first hold of --trigger-backoff (default {DEFAULT_BACKOFF_BASE:g})",
    )
    p.set_defaults(triggered=False)
    add_run_options(p)
    add_oneoff_options(p)
    add_connection_arguments(p)
    p.set_defaults(handler=_run)


def _stamp() -> str:
    return time.strftime("%m/%d/%y  %H:%M:%S")


def _say(amq: str, text: str, *, error: bool = False) -> None:
    print(f"{_stamp()}  {amq}: {text}", file=sys.stderr if error else sys.stdout, flush=True)


def _read_rules(args: argparse.Namespace) -> tuple[bytes | str, str]:
    """The table's bytes, as lint reads them (decoded by compile_rules, for both)."""
    if args.rules is None:
        return read_table("-"), "<stdin>"
    return read_table(args.rules), str(args.rules)


def _print_diagnostics(result: CompileResult, source: str) -> None:
    """The first diagnostics (compiled with DEFAULT_DIAGNOSTIC_LIMIT), then a count."""
    lines = source_lines(result.text)
    for d in result.diagnostics:
        print(render(d, lines), file=sys.stderr)
    more = omitted_line(result, source, how="`dlqhandler lint --error-limit 0` shows all")
    if more is not None:
        print(more, file=sys.stderr)


def _from_trigger_message(args: argparse.Namespace, log: Any) -> int | None:
    """Started by a trigger monitor: take the queue and queue manager from the MQTMC2
    argument, as runmqdlq does. The names are validated before use."""
    try:
        tmc = MQTMC2.from_argv(args.inputq)
        queue = validate_queue_name(tmc.q_name, "MQTMC2 QName")
        qmgr = validate_qmgr_name(tmc.q_mgr_name, "MQTMC2 QMgrName") if tmc.q_mgr_name else ""
    except (DLQHandlerError, ValueError) as exc:
        print(f"dlqhandler run: the trigger message argument is not usable: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    log.info(
        "started_by_trigger",
        queue=queue,
        qmgr=qmgr or None,
        process=tmc.process_name,
        trigger_data=tmc.trigger_data,
    )
    args.inputq, args.inputqm = queue, (qmgr or args.inputqm)
    args.triggered = True
    return None


def _names_problem(args: argparse.Namespace) -> str | None:
    """Why a positional INPUTQ/INPUTQM cannot be an MQ name (checked before connecting)."""
    try:
        if args.inputq is not None and args.inputq.strip():
            validate_queue_name(args.inputq.strip(), "INPUTQ")
        if args.inputqm is not None:
            validate_qmgr_name(args.inputqm.strip(), "INPUTQM")
    except ValueError as exc:
        return f"{exc}: not a valid MQ name ({NAME_RULE})"
    return None


def _run(args: argparse.Namespace) -> int:
    settings = load_settings(log_level=args.log_level)
    configure_logging(level=settings.log_level, json=log_json(args, settings))
    log = get_logger("run")
    if args.inputq is not None and looks_like_mqtmc2(args.inputq):
        code = _from_trigger_message(args, log)
        if code is not None:
            return code
    try:
        selector = check_run_options(args)
        table = oneoff_table(args, selected=selector.active)
    except ConfigError as exc:
        print(f"dlqhandler run: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    problem = connection_usage_problem(args) or _names_problem(args)
    if problem is not None:
        print(f"dlqhandler run: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        text, source = (table, "--action") if table is not None else _read_rules(args)
    except OSError as exc:
        print(f"dlqhandler run: cannot read rules table: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    first = compile_rules(
        text, source=source, triggered=args.triggered, max_diagnostics=DEFAULT_DIAGNOSTIC_LIMIT
    )
    if first.ruleset is None:
        _print_diagnostics(first, source)
        errors = first.count(Severity.ERROR)
        _say("AMQ8758", f"{errors} errors detected in input; nothing was processed.", error=True)
        return int(ExitCode.RULES_ERROR)

    metrics: HandlerMetrics | None = None
    server: MetricsServer | None = None
    if args.metrics_port is not None:
        try:
            metrics, server = start_metrics(args, log)
        except OSError as exc:
            print(
                f"dlqhandler run: cannot serve metrics on {args.metrics_host}:"
                f"{args.metrics_port}: {exc}",
                file=sys.stderr,
            )
            return int(ExitCode.USAGE)
    try:
        return _connect_and_serve(
            args,
            settings,
            compiled=first,
            source=source,
            control=first.ruleset.control,
            log=log,
            selector=selector,
            metrics=metrics,
        )
    finally:
        if server is not None:
            server.stop()


def _connect_and_serve(
    args: argparse.Namespace,
    settings: Settings,
    *,
    compiled: CompileResult,
    source: str,
    control: ControlData,
    log: Any,
    selector: Selector,
    metrics: HandlerMetrics | None,
) -> int:
    named_qm = args.inputqm.strip() if args.inputqm is not None else ""
    try:
        qmgr = connect(args, settings, named_qm or control.inputqm)
        info = qmgr.inquire()
    except (MQIError, ConfigError) as exc:
        _say("AMQ8741", f"Unable to connect to queue manager: {exc}", error=True)
        return int(ExitCode.CONNECTION_ERROR)
    try:
        return _serve(
            args,
            qmgr,
            deadq=info.dead_letter_q_name.strip(),
            compiled=compiled,
            source=source,
            control=control,
            log=log,
            selector=selector,
            metrics=metrics,
        )
    finally:
        if metrics is not None:
            metrics.connected = False
        qmgr.disconnect()


def _open_hint(exc: MQIError, queue: str) -> str:
    """What to do about an input open the queue manager refused, where the reason alone
    does not say: 2042 is another handle's exclusive input, or ours made exclusive."""
    if exc.reason != MQRC_OBJECT_IN_USE:
        return ""
    return (
        f". Another handle has {queue} open for input and one of the two opens is exclusive:"
        " MQOO_INPUT_EXCLUSIVE, or the queue's DEFSOPT(EXCL) or NOSHARE (dlqhandler opens it"
        " with MQOO_INPUT_AS_Q_DEF); see who with"
        f" DISPLAY QSTATUS({queue}) TYPE(HANDLE), and let handlers share it with"
        f" ALTER QLOCAL({queue}) DEFSOPT(SHARED) SHARE"
    )


def _serve(
    args: argparse.Namespace,
    qmgr: QueueManager,
    *,
    deadq: str,
    compiled: CompileResult,
    source: str,
    control: ControlData,
    log: Any,
    selector: Selector,
    metrics: HandlerMetrics | None,
) -> int:
    queue = _input_queue(args, control, deadq)
    if not queue:
        _say(
            "AMQ8745",
            f"No dead-letter queue: none named and queue manager {qmgr.name} has no DEADQ.",
            error=True,
        )
        return int(ExitCode.CONNECTION_ERROR)
    # The input queue is known now: the loop warnings against it (the table compiled once).
    result = compiled.for_input_queue(queue)
    if args.action is None:  # a one-off action's one-rule table is not the user's to lint
        _print_diagnostics(result, source)
    ruleset = result.ruleset
    assert ruleset is not None

    stop = threading.Event()
    trail = audit_trail(args, qmgr=qmgr.name, queue=queue)
    options = HandlerOptions(
        input_queue=queue,
        batch_size=1 if trail is not None else args.batch_size,
        dry_run=args.dry_run,
        max_hops=args.max_hops,
        status_queue=args.status_queue,
        audit_queue=args.audit_queue,
        max_rate=args.max_rate,
        oneoff=args.action is not None,
    )
    refused = options.control.refusals(ruleset.rules, source=None if args.action else source)
    if refused:
        for why in refused:
            print(f"dlqhandler run: {why}", file=sys.stderr)
        return int(ExitCode.USAGE)
    unready = None if args.dry_run else _control_queues_unready(args, qmgr, trail)
    if unready is not None:
        return unready
    try:
        guard = _loop_guard(args, qmgr, queue)
        handler = Handler(
            qmgr,
            ruleset,
            options,
            stop=stop,
            linger=guard.linger if guard is not None else None,
            selector=selector,
            metrics=metrics,
            audit=trail,
        )
    except MQIError as exc:
        _say("AMQ8745", f"Unable to open queue {queue}: {exc}{_open_hint(exc, queue)}", error=True)
        return int(ExitCode.CONNECTION_ERROR)
    if metrics is not None:
        metrics.rules(ruleset.sha256)
        metrics.connected = True

    reloader = _reloader(args, handler, options, sha256=ruleset.sha256, metrics=metrics)
    stopped_by: list[int] = []
    previous = _install_signals(stop, reloader, log, stopped_by)
    try:
        _say("AMQ8708", f"Dead-letter queue handler started to process INPUTQ({queue}).")
        log.info(
            "handler_started",
            queue=queue,
            qmgr=qmgr.name,
            rules=source,
            sha256=ruleset.sha256,
            dry_run=args.dry_run,
            batch_size=options.batch_size,
            max_rate=options.max_rate,
            msgids=len(selector.msg_ids),
            match=args.match,
            action=args.action,
            reason=args.reason,
            audit_queue=trail.queue if trail is not None else None,
        )
        with Progress(handler.stats) if args.action else contextlib.nullcontext():
            stats = handler.run()
    finally:
        _restore_signals(previous)
        if reloader is not None:
            reloader.stop()
    if reloader is not None:
        stats.reload_failures = reloader.rejected
    _finish(stats, qmgr, queue, log)
    if guard is not None:
        _end_guard(guard, stats, log)
    _say("AMQ8709", "Dead-letter queue handler ending.")
    for line in stats.render(queue):
        print(line)
    sys.stdout.flush()
    missing: list[bytes] = []
    if args.action is not None:
        say_moved(args, stats, stopped=handler.stop_reason == StopReason.STOPPED)
        if handler.stop_reason in (StopReason.SELECTION_DONE, StopReason.DRY_RUN_DONE):
            missing = say_unselected(args, selector, stats, queue)
    log.info("handler_ended", reason=handler.stop_reason, **stats.as_dict())
    return _exit_status(
        args, handler.stop_reason, stats, queue, stopped_by=stopped_by, missing=missing
    )


def _input_queue(args: argparse.Namespace, control: ControlData, deadq: str) -> str:
    """The DLQ to process: a positional INPUTQ wins, even blank (= DEADQ); then the table's
    INPUTQ; then the queue manager's DEADQ. Blank when there is none."""
    queue = (args.inputq.strip() or deadq) if args.inputq is not None else (control.inputq or deadq)
    return queue.split(" ")[0] if queue else ""


def _control_queues_unready(
    args: argparse.Namespace, qmgr: QueueManager, trail: AuditTrail | None
) -> int | None:
    """Create the status queue (and the audit queue of an audited run) if missing: None
    when they are there, else the exit code (said on stderr) of the queue manager's refusal."""
    try:
        ensure_queue(qmgr, args.status_queue, descr="dlqhandler attempt counts")
        require_status_queue(qmgr, args.status_queue)
        if trail is not None:
            ensure_queue(qmgr, trail.queue, descr="dlqhandler audit records")
    except MQIError as exc:
        _say("AMQ8745", f"Unable to start: {exc}", error=True)
        return int(ExitCode.CONNECTION_ERROR)
    return None


def _reloader(
    args: argparse.Namespace,
    handler: Handler,
    options: HandlerOptions,
    *,
    sha256: str,
    metrics: HandlerMetrics | None,
) -> RulesReloader | None:
    """The hot reload of the rules file (none without a rules file, or for a dry run),
    watching the file unless --no-watch (SIGHUP reloads either way)."""
    if args.rules is None or args.dry_run:
        return None
    rejected = None if metrics is None else (lambda kept: metrics.rules(kept, reloaded=False))
    reloader = RulesReloader(
        args.rules,
        handler.swap_rules,
        current_sha256=sha256,
        input_queue=options.input_queue,
        on_rejected=rejected,
        refusals=lambda new: options.control.refusals(new.rules, source=str(args.rules)),
    )
    if not args.no_watch:
        reloader.start()
    return reloader


def _exit_status(
    args: argparse.Namespace,
    stop_reason: str,
    stats: RunStats,
    queue: str,
    *,
    stopped_by: list[int],
    missing: list[bytes],
) -> int:
    """The exit code of a run that ended (``stop_reason`` a :class:`StopReason`), with the
    warnings on stderr that go with it (a commit of unknown outcome, messages left because
    their action failed)."""
    if stats.unknown_outcome:
        print(
            f"dlqhandler run: the outcome of the last commit is unknown (the connection was lost "
            f"during MQCMIT): {len(stats.unknown_outcome)} message(s) may or may not have left "
            f"{queue}, counted neither moved nor failed (their MsgIds are in the summary); "
            "browse the queue and the targets for them before acting on them again",
            file=sys.stderr,
        )
    if stop_reason == StopReason.FATAL:
        return int(ExitCode.MQ_ERROR)
    if stop_reason == StopReason.CONNECTION_BROKEN:
        return int(ExitCode.CONNECTION_ERROR)
    if stop_reason == StopReason.STOPPED and stopped_by:
        if stopped_by[0] == signal.SIGINT:
            return int(ExitCode.INTERRUPTED)
        if args.action is not None:
            return int(ExitCode.TERMINATED)
    if missing:
        return int(ExitCode.FAILURE)
    if stats.unresolved:
        failed = "would be refused" if args.dry_run else "failed"
        print(
            f"dlqhandler run: {stats.unresolved} message(s) left on {queue} because their "
            f"action {failed} (see the failed attempts by reason above)",
            file=sys.stderr,
        )
        return int(ExitCode.PARTIAL)
    return int(ExitCode.OK)


def _loop_guard(args: argparse.Namespace, qmgr: QueueManager, queue: str) -> TriggeredRun | None:
    """A triggered run guards against the closed loop of TRIGTYPE(FIRST) (worker.backoff)."""
    policy = BackoffPolicy(base=args.trigger_backoff_base, cap=args.trigger_backoff)
    if not args.triggered or args.dry_run or not policy.enabled:
        return None
    return TriggeredRun(
        TriggerRecords(qmgr, args.status_queue, queue),
        policy,
        depth=lambda: qmgr.inquire_queue(queue).curdepth,
        clock=time.time,
    )


def _end_guard(guard: TriggeredRun, stats: RunStats, log: Any) -> None:
    try:
        guard.finish(stats, stats.left_on_queue)
        guard.close()
    except MQIError as exc:
        log.warning("trigger_backoff_not_updated", reason=exc.reason, detail=exc.detail)


def _finish(stats: RunStats, qmgr: QueueManager, queue: str, log: Any) -> None:
    """The end-of-run depth (MQINQ CURDEPTH) and the count of messages seen from it; an
    inquiry refused leaves both unknown and says why, never counts the queue as empty."""
    try:
        stats.left_on_queue = qmgr.inquire_queue(queue).curdepth
    except MQIError as exc:
        stats.left_on_queue = None
        stats.depth_unknown = f"{exc.reason_name} ({exc.reason}){_depth_hint(exc, qmgr, queue)}"
        # (what the run moved, and what its last pass left: a lower bound)
        stats.seen = stats.acted + stats.ignored + stats.no_dlh + stats.not_selected
        log.warning(
            "depth_unknown",
            queue=queue,
            reason=exc.reason,
            detail=stats.depth_unknown,
        )
        print(
            f"dlqhandler run: the depth of {queue} at the end of the run is unknown: "
            f"MQINQ failed with {stats.depth_unknown}; the summary counts as seen only the "
            "messages the run moved or its last pass left, and cannot say how many are left",
            file=sys.stderr,
        )
        return
    left = stats.left_on_queue
    stats.seen = left if stats.dry_run else stats.acted + left


def _depth_hint(exc: MQIError, qmgr: QueueManager, queue: str) -> str:
    """How to let the run inquire its queue, where the reason is a missing authority."""
    if exc.reason != MQRC_NOT_AUTHORIZED:
        return ""
    return (
        f": not authorised to inquire {queue}; grant +inq: setmqaut -m {qmgr.name} -n {queue}"
        f" -t queue -p <user> +inq, or SET AUTHREC PROFILE({queue}) OBJTYPE(QUEUE)"
        " PRINCIPAL('<user>') AUTHADD(INQ)"
    )


def _install_signals(
    stop: threading.Event, reloader: RulesReloader | None, log: Any, stopped_by: list[int]
) -> dict[int, _Handler]:
    """SIGTERM/SIGINT stop the loop (``stopped_by`` gets the signals, first first),
    SIGHUP reloads; returns the handlers replaced."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def _stop(signum: int, _frame: FrameType | None) -> None:
        stopped_by.append(signum)
        stop.set()

    def _hup(signum: int, _frame: FrameType | None) -> None:
        if reloader is None:
            log.warning("sighup_ignored", detail="the rules came from stdin; nothing to reload")
            return
        threading.Thread(target=reloader.reload_now, args=("SIGHUP",), daemon=True).start()

    previous: dict[int, _Handler] = {}
    wanted: list[tuple[int, Callable[[int, FrameType | None], None]]] = [
        (signal.SIGTERM, _stop),
        (signal.SIGINT, _stop),
    ]
    if hasattr(signal, "SIGHUP"):
        wanted.append((signal.SIGHUP, _hup))
    for signum, function in wanted:
        previous[signum] = signal.signal(signum, function)
    return previous


def _restore_signals(previous: dict[int, _Handler]) -> None:
    for signum, function in previous.items():
        signal.signal(signum, function)
