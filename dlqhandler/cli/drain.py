"""``dlqhandler drain``: the bulk backlog drain on Spark.

    dlqhandler drain --rules FILE --output DIR (--input PATH... | -m QMGR [--queue Q])
                     [--catch-all QUEUE] [--dry-run] [--apply] [--overwrite]
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
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlqhandler.check import require_status_queue
from dlqhandler.cli._connect import (
    add_connection_arguments,
    connect,
    connection_factory,
    connection_usage_problem,
    ensure_queue,
    resolve_qmgr_name,
)
from dlqhandler.cli._inputs import input_files, print_input_notes, reads_of
from dlqhandler.cli._names import names_problem
from dlqhandler.cli._types import bounded_int
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import load_settings
from dlqhandler.errors import ConfigError, DLQHandlerError, DumpFormatError, MQIError
from dlqhandler.formats.dmpmqmsg import DumpWriter, read_dump
from dlqhandler.logs import configure_logging
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.embedded.admin import AdminError
from dlqhandler.qmgr.port import browse_all
from dlqhandler.rules import compile_rules
from dlqhandler.spark.inputs import InputSet
from dlqhandler.spark.job import mode_problem
from dlqhandler.spark.paths import OutputDir, check_output_dir, check_output_dir_hadoop

JAVA_INT_MAX = 2**31 - 1  # what Spark's partition counts are
SPLIT_MB_MAX = (2**63 - 1) >> 20  # a split in bytes is a Java long
# The options of drain and report that name queues and queue managers (checked by the
# one MQ-name rule before anything starts).
QUEUE_OPTIONS = {"queue": "--queue", "catch_all": "--catch-all", "status_queue": "--status-queue"}
QMGR_OPTIONS = {"qmgr": "-m"}
# What a snapshot can fail with: the queue manager or queue cannot be reached or
# opened (a connection error for the exit code, as `run` says it).
SNAPSHOT_ERRORS = (MQIError, ConfigError, AdminError)

__all__ = [
    "JAVA_INT_MAX",
    "QMGR_OPTIONS",
    "QUEUE_OPTIONS",
    "SNAPSHOT_ERRORS",
    "SPLIT_MB_MAX",
    "input_files",
    "log_file",
    "main",
    "print_input_notes",
    "reads_of",
    "register",
    "snapshot_queue",
]


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
        "--dry-run", action="store_true", help="only classify: write audit/ and summary.json"
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="carry out the actions on the queue manager given with -m",
    )
    p.add_argument(
        "--status-queue",
        default=DEFAULT_STATUS_QUEUE,
        metavar="Q",
        help="with --apply: the queue of attempt counts shared with dlqhandler run "
        f"(default {DEFAULT_STATUS_QUEUE}; defined if missing)",
    )
    p.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    p.add_argument(
        "--partitions",
        type=bounded_int(1, JAVA_INT_MAX),
        metavar="N",
        help="Spark shuffle partitions, and at most N tasks writing the outputs"
        " (default: one per input split)",
    )
    p.add_argument(
        "--split-mb",
        type=bounded_int(1, SPLIT_MB_MAX),
        default=128,
        metavar="MB",
        help="largest input split in MiB (default 128, Spark's own; Spark makes "
        "them smaller so that every core has a share of a small input)",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="Spark's own log lines on stderr (default: to a log file, named at the end)",
    )
    add_connection_arguments(p)


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "drain",
        help="bulk drain of a DLQ backlog on Spark",
        description="Classify a DLQ backlog with a rules table on Spark and write the "
        "results as dmpmqmsg files (or apply them to a queue manager). "
        "--input and --output take paths or URIs; relative paths are resolved "
        "on the driver. --output DIR must be new or empty; --overwrite replaces "
        "it whole once the run is complete. Bad arguments, inputs and outputs "
        "are refused before Spark starts; Ctrl-C removes the partial output.",
    )
    _add_arguments(p)
    p.set_defaults(handler=_drain)


def snapshot_queue(
    args: argparse.Namespace,
    settings: Any,
    qmgr_name: str,
    queue: str | None,
    out: Path,
    *,
    status_queue: str | None = None,
) -> tuple[Path, str, str]:
    """Browse the queue into a dmpmqmsg file (the drain's input); for --apply,
    define the status queue first if it is missing (embedded queue managers)."""
    qm = connect(args, settings, qmgr_name)
    try:
        if status_queue:
            ensure_queue(qm, status_queue, descr="dlqhandler attempt counts")
            # Opened as the executors will (an IBM MQ queue is never defined here): a
            # missing one is named with its MQSC now, not a failed task later.
            require_status_queue(qm, status_queue)
        info = qm.inquire()
        q_name = queue or info.dead_letter_q_name
        handle = qm.open(q_name, input=False, browse=True)
        snap_dir = out / "_snapshot"
        snap_dir.mkdir(parents=True, exist_ok=True)
        path = snap_dir / "input.dmp"
        with path.open("wb") as stream, DumpWriter(stream, qmgr=info.name, queue=q_name) as w:
            # As IBM's dmpmqmsg: no message handle, so the properties are in the file
            # (an MQRFH2 in front of the MQDLH), where the data source reads them and
            # the outputs keep them (docs/properties.md).
            for msg in browse_all(handle, msg_handle=False):
                w.write(msg)
        handle.close()
        return path, q_name, info.name
    finally:
        qm.disconnect()


class _Interrupt:
    """Ctrl-C while Spark runs: cancel the jobs from another thread, remember it.

    The handler never raises inside a py4j call (that is what printed pages of
    py4j tracebacks); the canceller keeps cancelling every job the driver still
    starts until the drain returns, so the run stops within a job. A second
    Ctrl-C raises KeyboardInterrupt at once.
    """

    def __init__(self) -> None:
        self.interrupted = False
        self._spark: Any = None
        self._over = threading.Event()

    def _handler(self, signum: int, frame: Any) -> None:
        if self.interrupted or self._spark is None:
            self.interrupted = True
            raise KeyboardInterrupt
        self.interrupted = True
        threading.Thread(target=self._cancel, name="drain-cancel", daemon=True).start()

    def _cancel(self) -> None:
        while True:
            with suppress(Exception):  # Spark is already stopping: nothing to cancel
                self._spark.sparkContext.cancelAllJobs()
            if self._over.wait(0.2):
                return

    @contextmanager
    def installed(self, spark: Any) -> Iterator[None]:
        """Our SIGINT handler meanwhile (Spark's own one raises inside py4j calls)."""
        self._spark = spark
        previous = signal.signal(signal.SIGINT, self._handler)
        try:
            yield
        finally:
            self._over.set()
            signal.signal(signal.SIGINT, previous)


@dataclass
class _Run:
    """What the drain holds while it runs, released by :func:`_drain` whatever happens."""

    out: OutputDir
    log_file: Path | None = None
    spark: Any = None
    owns_session: bool = False  # this drain built the session: it stops it
    snapshot: Path | None = None
    queue: str | None = None
    qmgr_name: str | None = None
    scratch: Path | None = None  # a local directory for the snapshot (Hadoop outputs)
    inputs: InputSet = field(default_factory=InputSet)


def log_file(command: str = "drain") -> Path:
    """A new file for Spark's own log lines (the JVM's stderr) of one run."""
    fd, name = tempfile.mkstemp(
        prefix=time.strftime(f"dlqhandler-{command}-%Y%m%dT%H%M%S-"), suffix=".log"
    )
    os.close(fd)
    return Path(name)


def _drain(args: argparse.Namespace) -> int:
    settings = load_settings()
    configure_logging(level=settings.log_level)
    problem = connection_usage_problem(args) or names_problem(
        args, queues=QUEUE_OPTIONS, qmgrs=QMGR_OPTIONS
    )
    if problem:
        print(f"dlqhandler drain: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        # the bytes as lint and run read them (rules/source.py: one encoding rule)
        text = Path(args.rules).read_bytes().decode("utf-8", "surrogateescape")
    except OSError as exc:
        print(f"dlqhandler drain: cannot read rules table: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    problem = mode_problem(apply=args.apply, dry_run=args.dry_run, from_queue=args.qmgr is not None)
    if problem:
        print(f"dlqhandler drain: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    try:
        inputs = input_files(args.input) if args.input else InputSet()
        out = check_output_dir(
            args.output, overwrite=args.overwrite, reads=reads_of(inputs, rules=args.rules)
        )
    except (ConfigError, DumpFormatError) as exc:
        print(f"dlqhandler drain: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    print_input_notes("dlqhandler drain", inputs)
    run = _Run(out, inputs=inputs)
    committed = False
    guard = _Interrupt()
    try:
        code = _execute(args, settings, text, inputs=inputs, run=run, guard=guard)
        committed = code in (ExitCode.OK, ExitCode.PARTIAL)
        return code
    except KeyboardInterrupt:
        guard.interrupted = True
        _stop(run)  # first: no task may still move a message while we count
        return _interrupted(args, settings, run)
    except BrokenPipeError:
        raise  # stdout closed while the summary was printed: the CLI's entry ends quietly
    except Exception as exc:
        described = _describe(exc)  # while Spark runs: a py4j error asks the JVM
        _stop(run)
        if guard.interrupted:
            return _interrupted(args, settings, run)
        return _failed(described, run)
    finally:
        if not committed:
            run.out.discard(run.spark)
        _stop(run)
        if run.scratch is not None:
            import shutil

            shutil.rmtree(run.scratch, ignore_errors=True)


def _stop(run: _Run) -> None:
    """Stop the session this drain built (and its JVM); a caller's session stays. A
    Ctrl-C meanwhile is ignored: the drain is over, and stopping is what it would ask
    for (Spark's own handler would raise inside the stop)."""
    if run.owns_session:
        from dlqhandler.spark.session import stop_session

        run.owns_session = False
        if threading.current_thread() is not threading.main_thread():
            stop_session(run.spark)
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            stop_session(run.spark)
        finally:
            signal.signal(signal.SIGINT, previous)


def _execute(
    args: argparse.Namespace,
    settings: Any,
    text: str,
    *,
    inputs: InputSet,
    run: _Run,
    guard: _Interrupt,
) -> int:
    from dlqhandler.spark.job import DrainConfig, run_drain
    from dlqhandler.spark.progress import Progress
    from dlqhandler.spark.session import get_session, has_active_session

    # A queue's snapshot is a local file (the driver browses it): inside the staging
    # directory, or, for an output on a Hadoop filesystem, in a scratch directory here.
    if run.out.local:
        staging = run.out.staging_path
    else:
        run.scratch = staging = Path(tempfile.mkdtemp(prefix="dlqhandler-drain-"))
    local = ""
    if args.qmgr is not None:
        try:
            run.qmgr_name = resolve_qmgr_name(settings, args.qmgr)
            run.snapshot, run.queue, local = snapshot_queue(
                args,
                settings,
                run.qmgr_name,
                args.queue,
                staging,
                status_queue=args.status_queue if args.apply else None,
            )
        except SNAPSHOT_ERRORS as exc:  # as `run` says it: one line, exit 4
            queue = args.queue or "the dead-letter queue"
            where = run.qmgr_name or args.qmgr or "the default queue manager"
            also = f" (and open --status-queue {args.status_queue})" if args.apply else ""
            print(
                f"dlqhandler drain: cannot browse {queue} on {where}{also}: {exc}", file=sys.stderr
            )
            return int(ExitCode.CONNECTION_ERROR)
    result = compile_rules(text, source=str(args.rules), input_queue=run.queue)
    for d in result.diagnostics:
        if d.severity == "error":
            print(f"{d.path}:{d.line}:{d.column}: error[{d.code}]: {d.message}", file=sys.stderr)
    if result.ruleset is None:
        return int(ExitCode.RULES_ERROR)
    config = DrainConfig(
        output=staging if run.out.local else run.out.staging,
        inputs=inputs.files,
        input_notes=tuple(inputs.notes()),
        snapshot=run.snapshot,
        qmgr=run.qmgr_name,
        queue=run.queue,
        catch_all=args.catch_all,
        dry_run=args.dry_run,
        apply=args.apply,
        local_qmgr=local,
        status_queue=args.status_queue if args.apply else None,
        partitions=args.partitions,
        split_bytes=args.split_mb << 20,
    )
    factory = (
        connection_factory(settings, run.qmgr_name, args) if args.apply and run.qmgr_name else None
    )
    run.owns_session = not has_active_session()
    # Under spark-submit the launcher started the JVM: its log is the launcher's.
    if run.owns_session and not args.verbose and "PYSPARK_GATEWAY_PORT" not in os.environ:
        run.log_file = log_file()
    run.spark = get_session(args.master, partitions=args.partitions, log_file=run.log_file)
    try:
        if inputs.pending:  # Hadoop inputs are listed now that Spark runs
            before, inputs = inputs, inputs.with_hadoop(run.spark)
            run.inputs = inputs
            print_input_notes(
                "dlqhandler drain",
                InputSet(
                    repeated=inputs.repeated[len(before.repeated) :],
                    left_out=inputs.left_out[len(before.left_out) :],
                ),
            )
            config = config.model_copy(
                update={"inputs": inputs.files, "input_notes": tuple(inputs.notes())}
            )
        if not run.out.local:  # the output rule, now that Hadoop can look
            run.out = check_output_dir_hadoop(
                run.spark,
                run.out,
                overwrite=args.overwrite,
                reads=reads_of(inputs, rules=args.rules),
            )
        with guard.installed(run.spark):
            with Progress(run.spark):
                drained = run_drain(run.spark, result.ruleset, config, factory)
            if guard.interrupted:
                raise KeyboardInterrupt
            # Ctrl-C from here on finds the output whole: it is committed and said.
            if run.snapshot is not None:
                import shutil

                shutil.rmtree(run.snapshot.parent, ignore_errors=True)
            run.out.commit(run.spark)
            _print_summary(drained.summary, drained.manifest, run)
    except (ConfigError, DumpFormatError) as exc:
        print(f"dlqhandler drain: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except DLQHandlerError as exc:
        print(f"dlqhandler drain: {exc}", file=sys.stderr)
        return int(ExitCode.FAILURE)
    malformed = drained.summary["totals"]["malformed"]
    return int(ExitCode.PARTIAL if drained.failures or malformed else ExitCode.OK)


def _describe(exc: Exception) -> tuple[str, str]:
    """The first line of ``exc`` and its traceback, while Spark still runs (a py4j
    error's text comes from the JVM); never fails itself."""
    import traceback

    try:
        text = str(exc)
    except Exception:  # the JVM is gone or the gateway broke: the type says enough
        text = ""
    first = (text.strip().splitlines() or [type(exc).__name__])[0][:300]
    try:
        detail = "".join(traceback.format_exception(exc))
    except Exception:
        detail = f"{type(exc).__name__}: {first}\n"
    return f"{type(exc).__name__}: {first}", detail


def _failed(described: tuple[str, str], run: _Run) -> int:
    """A Spark job failed (an executor lost, out of memory...): one line here, the
    Python traceback after Spark's own lines in the log file (on stderr without one)."""
    first, detail = described
    reason = None
    if run.log_file is None:
        print(detail, file=sys.stderr, end="")
    else:
        reason = _spark_reason(run.log_file)
        with run.log_file.open("a", encoding="utf-8") as log:
            log.write(detail)
    print(
        f"dlqhandler drain: failed: {first}; nothing was written to {run.out.uri}", file=sys.stderr
    )
    if reason:
        print(f"  Spark said: {reason}", file=sys.stderr)
    if run.log_file is not None:
        print(f"  details in the Spark log: {run.log_file}", file=sys.stderr)
    return int(ExitCode.FAILURE)


def _spark_reason(log_file: Path) -> str | None:
    """The last exception line Spark wrote (its stack frames start with blanks)."""
    try:
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found = [ln for ln in lines if ln[:1].strip() and ("Exception" in ln or "Error" in ln)]
    return found[-1].strip()[:400] if found else None


def _interrupted(args: argparse.Namespace, settings: Any, run: _Run) -> int:
    """Say what an interrupted drain did; the caller removes the partial output."""
    done = "nothing was written to " + run.out.uri
    if args.apply and run.snapshot is not None and run.qmgr_name and run.queue:
        done = _moved_report(args, settings, run)
    print(
        f"dlqhandler drain: interrupted: Spark stopped, partial output removed; {done}",
        file=sys.stderr,
    )
    if run.log_file is not None:
        print(f"  Spark log: {run.log_file}", file=sys.stderr)
    return int(ExitCode.INTERRUPTED)


def _moved_report(args: argparse.Namespace, settings: Any, run: _Run) -> str:
    """How many snapshot messages are no longer on the queue (each moved in a
    committed unit of work; an uncommitted one was backed out with its task)."""
    assert run.snapshot is not None
    assert run.qmgr_name
    assert run.queue
    try:
        taken = {m.md.msg_id for m in read_dump(run.snapshot)}
        qm = connect(args, settings, run.qmgr_name)
        try:
            handle = qm.open(run.queue, input=False, browse=True)
            still = sum(1 for m in browse_all(handle) if m.md.msg_id in taken)
            handle.close()
        finally:
            qm.disconnect()
    except (DLQHandlerError, MQIError, OSError) as exc:
        return f"cannot count the messages moved ({exc}); browse {run.queue} to see"
    return (
        f"{len(taken) - still} of the {len(taken)} messages in the snapshot were moved "
        f"off {run.queue} (by this drain or another handler), {still} stay there"
    )


def _print_summary(summary: dict[str, Any], manifest: dict[str, Any], run: _Run) -> None:
    t = summary["totals"]
    print(
        f"Drain ({manifest['mode']}): {t['messages']} messages -> {run.out.uri}"
        + (" (replaced)" if run.out.replaces else "")
    )
    for key in (
        "retried",
        "forwarded",
        "discarded",
        "catch_all",
        "remaining",
        "no_dlh",
        "unmatched",
        "malformed",
    ):  # summary.json also has decoded_in_python, always 0 since the JVM decodes all
        print(f"  {key:<12}{t[key]:>12}")
    if t["malformed"]:
        print(
            f"  {t['malformed']} malformed record(s) were not decoded: they are in no output "
            "file (nothing of them is delivered) and their reasons are in audit/; the first:",
            file=sys.stderr,
        )
        for reason in summary.get("malformed_examples", []):
            print(f"    {reason}", file=sys.stderr)
    print("  by rule line:")
    for r in summary["by_rule"]:
        print(
            f"    line {r['line']:>5}  {r['action']:<8} matched {r['matched']:>10}"
            f"  chosen {r['chosen']:>10}"
        )
    if summary["never_matched"]:
        print(
            "  rules that matched nothing: lines "
            + ", ".join(str(x) for x in summary["never_matched"])
        )
    if summary["shadowed"]:
        print(
            "  rules matched but never chosen (shadowed): lines "
            + ", ".join(str(x) for x in summary["shadowed"])
        )
    for o in manifest["outputs"]:
        print(f"  -> {o['queue']}@{o['qmgr'] or 'LOCAL'}: {o['messages']} messages in {o['file']}")
    if manifest["remaining"].get("file"):
        print(
            f"  -> remaining on the DLQ: {manifest['remaining']['messages']} in "
            f"{manifest['remaining']['file']}"
        )
    for note in run.inputs.notes():
        print(f"  input note: {note}")
    if run.log_file is not None:
        print(f"  Spark log: {run.log_file}")


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
