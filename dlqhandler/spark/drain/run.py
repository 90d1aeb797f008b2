"""A whole drain, from a request to an outcome, printing nothing.

:func:`drain` is what ``dlqhandler drain`` (and ``spark-submit ops/spark/drain.py``)
call once the command line is checked; it owns every resource of the run and releases
it whatever happens:

1. the input: the files the request names, or a snapshot of a queue (browsed into the
   output's staging directory by :func:`dlqhandler.qmgr.snapshot.snapshot_queue`, or a
   scratch directory for an output on a Hadoop filesystem);
2. the table, compiled against the queue it drains (its loop warnings), and for
   ``--apply`` the handler's control queues (:class:`dlqhandler.acting.ControlQueues`);
3. the Spark run (:class:`dlqhandler.spark.lifecycle.SparkRun`): Hadoop inputs listed and
   the output rule checked once Spark can look, then the job
   (:func:`dlqhandler.spark.drain.job.run_drain`) with Ctrl-C cancelling it;
4. the output committed (replacing the old one with ``--overwrite``) or discarded, the
   snapshot and the scratch directory removed, the session stopped.

What came of it is a :class:`DrainOutcome`: its :class:`DrainStatus` and what to tell the
user (the summary and manifest, diagnostics, refusals, the failure, how many messages an
interrupted ``--apply`` moved).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, ControlQueues
from dlqhandler.acting.plan import Landings
from dlqhandler.errors import ConfigError, DLQHandlerError, DumpFormatError, MQIError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.port import QueueManager, browse_all
from dlqhandler.qmgr.snapshot import Snapshot, snapshot_queue
from dlqhandler.rules import CompileResult, RuleSet, compile_rules
from dlqhandler.rules.outgoing import DEFAULT_MAX_HOPS
from dlqhandler.spark.classify import (
    catch_all_loop,
    catch_all_queue,
    offline_input,
    spent_floors,
)
from dlqhandler.spark.files import OutputDir, check_output_dir_hadoop
from dlqhandler.spark.inputs import InputSet, dumps_origin
from dlqhandler.spark.lifecycle import SparkRun, describe

__all__ = ["DrainOutcome", "DrainRequest", "DrainStatus", "QueueSource", "drain"]


class DrainStatus(StrEnum):
    """How a drain ended (the command maps each to its exit code)."""

    OK = "ok"  # committed: every message has its place
    PARTIAL = "partial"  # committed, but actions failed or input records were malformed
    INTERRUPTED = "interrupted"  # Ctrl-C: nothing committed (what --apply moved is said)
    FAILED = "failed"  # a Spark job failed: nothing committed
    ERROR = "error"  # a dlqhandler error while running (one line): nothing committed
    BAD_INPUT = "bad_input"  # an input or the output turned out unusable once Spark looked
    RULES_ERROR = "rules_error"  # the table did not compile
    REFUSED = "refused"  # --apply would put a dead letter on a control queue
    NO_QUEUE = "no_queue"  # the queue manager or the queue could not be browsed


@dataclass(frozen=True)
class QueueSource:
    """Drain a queue: ``connect`` makes a connection (picklable: executors call it for
    ``--apply``), ``queue`` None is the queue manager's DEADQ, ``prepare`` readies the
    queue manager first (the command defines and checks the status queue for
    ``--apply``)."""

    connect: Callable[[], QueueManager]
    qmgr: str
    queue: str | None = None
    apply: bool = False
    status_queue: str | None = None
    status_required: bool = False  # --status-queue given: a missing queue is an error
    prepare: Callable[[QueueManager], None] | None = None


@dataclass(frozen=True)
class DrainRequest:
    """A checked drain: the table's text and where it came from, the output directory
    (:func:`dlqhandler.spark.files.check_output_dir`), the input files or a queue."""

    rules_text: str
    rules_source: str
    output: OutputDir
    inputs: InputSet = field(default_factory=InputSet)
    source: QueueSource | None = None
    catch_all: str | None = None
    max_hops: int = DEFAULT_MAX_HOPS  # run's --max-hops: a message with more MQDLHs stays
    dry_run: bool = False
    overwrite: bool = False
    reads: tuple[tuple[str, str], ...] = ()  # what the output must not hold (option, path)
    master: str | None = None
    partitions: int | None = None
    split_bytes: int = 128 << 20
    verbose: bool = False
    note: Callable[[str], None] = lambda _line: None  # notes found once Spark runs


@dataclass(frozen=True)
class DrainOutcome:
    """What came of a drain. ``problems``: what went wrong, a line each (the rules'
    error diagnostics, refusals, the unusable input or queue, the failure's first line);
    ``details``: more lines about a failure (Spark's reason, where its log is);
    ``moved``: an interrupted ``--apply``'s count of what left the queue."""

    status: DrainStatus
    output: str
    summary: dict[str, Any] | None = None
    manifest: dict[str, Any] | None = None
    replaced: bool = False
    failures: int = 0
    inputs: InputSet = field(default_factory=InputSet)
    problems: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    moved: str | None = None
    log_file: Path | None = None

    def render(self) -> list[str]:
        """The summary a committed drain prints: its totals, the rules' lines, the files
        written (none before it is committed)."""
        summary, manifest = self.summary, self.manifest
        if summary is None or manifest is None:
            return []
        t = summary["totals"]
        lines = [
            f"Drain ({manifest['mode']}): {t['messages']} messages -> {self.output}"
            + (" (replaced)" if self.replaced else "")
        ]
        lines += [f"  {key:<12}{t[key]:>12}" for key in _TOTALS]
        if t.get("failed"):  # --apply: left because their action failed
            lines.append(f"  {'failed':<12}{t['failed']:>12}")
        if t.get("not_connected"):  # --apply: left because a task could not connect
            lines.append(f"  {'not connected':<12}{t['not_connected']:>12}")
        lines.append("  by rule line:")
        lines += [
            f"    line {r['line']:>5}  {r['action']:<8} matched {r['matched']:>10}"
            f"  chosen {r['chosen']:>10}"
            for r in summary["by_rule"]
        ]
        for key, what in _UNUSED:
            if summary[key]:
                lines.append(f"  {what}: lines " + ", ".join(str(x) for x in summary[key]))
        lines += [
            f"  -> {o['queue']}@{o['qmgr'] or 'LOCAL'}: {o['messages']} messages in {o['file']}"
            for o in manifest["outputs"]
        ]
        left = manifest["remaining"]
        if left.get("file"):
            lines.append(f"  -> remaining on the DLQ: {left['messages']} in {left['file']}")
        lines += [f"  input note: {note}" for note in manifest.get("input_notes", ())]
        if manifest.get("input_queue"):  # the DLQ whose loops are refused
            q = manifest["input_queue"]
            lines.append(f"  input queue: {q['queue']}@{q['qmgr'] or 'LOCAL'}")
        if self.log_file is not None:
            lines.append(f"  Spark log: {self.log_file}")
        return lines

    def unknown_report(self) -> list[str]:
        """What an ``--apply`` says of the messages whose commit's outcome is unknown (the
        connection was lost during MQCMIT): each MsgId, neither moved nor failed."""
        named = self.summary.get("unknown_outcome", []) if self.summary is not None else []
        if not named:
            return []
        said = (
            f"  the outcome of the commit of {len(named)} message(s) is unknown (the connection "
            "was lost during MQCMIT): each may or may not have left the queue, counted neither "
            "moved nor failed; look for them on the queue and their targets (audit/ says which):"
        )
        return [said, *(f"    msgid {msgid}" for msgid in named)]

    def not_connected_report(self) -> list[str]:
        """What an ``--apply`` says of the messages it did not act on because a task could
        not connect to the queue manager or open the DLQ (after a lost connection, or at
        its start): they stay on the DLQ, no attempt counted; each reason once."""
        said = self.summary.get("not_connected", []) if self.summary is not None else []
        if not said:
            return []
        n = sum(r["messages"] for r in said)
        head = (
            f"  {n} message(s) were not acted on: a task could not connect to the queue "
            "manager or open the queue (after a commit of unknown outcome, or at its start); "
            "they stay on the queue, no attempt counted; run the drain again when it is back:"
        )
        return [head, *(f"    {r['messages']} message(s): {r['reason']}" for r in said)]

    def failed_report(self) -> list[str]:
        """What an ``--apply`` says of the messages whose action failed (every put tried,
        the catch-all's too, failed or was refused): they stay on the DLQ with their
        attempt counts; the most frequent reasons."""
        said = self.summary.get("failed", []) if self.summary is not None else []
        if not said:
            return []
        n = self.summary["totals"]["failed"] if self.summary is not None else 0
        head = (
            f"  {n} message(s) could not be acted on: their puts failed or were refused; they "
            "stay on the queue, each attempt counted (audit/ has each, outcome failed):"
        )
        return [head, *(f"    {r['messages']} message(s): {r['reason']}" for r in said)]

    def malformed_report(self) -> list[str]:
        """What a committed drain says of the records it could not decode (their reasons
        are in audit/), the first few named."""
        if self.summary is None or not self.summary["totals"]["malformed"]:
            return []
        n = self.summary["totals"]["malformed"]
        said = (
            f"  {n} malformed record(s) were not decoded: they are in no output file (nothing "
            "of them is delivered) and their reasons are in audit/; the first:"
        )
        return [said, *(f"    {why}" for why in self.summary.get("malformed_examples", []))]


# The totals a summary prints (summary.json also has decoded_in_python, 0: the JVM decodes).
_TOTALS: tuple[str, ...] = ("retried", "forwarded", "discarded", "catch_all", "remaining")
_TOTALS += ("no_dlh", "unmatched", "unplaceable", "malformed")
_UNUSED = (
    ("never_matched", "rules that matched nothing"),
    ("shadowed", "rules matched but never chosen (shadowed)"),
)


def drain(request: DrainRequest) -> DrainOutcome:
    """Run the drain the request describes (see the module docstring)."""
    return _Drain(request).run()


class _Drain:
    """The resources of one drain, released by :meth:`run` whatever happens."""

    def __init__(self, request: DrainRequest) -> None:
        self.request = request
        self.out = request.output
        self.inputs = request.inputs
        self.scratch: Path | None = None
        self.snapshot: Snapshot | None = None
        self.spark_run: SparkRun | None = None

    def outcome(self, status: DrainStatus, **more: Any) -> DrainOutcome:
        log = self.spark_run.log_file if self.spark_run is not None else None
        return DrainOutcome(status, self.out.uri, inputs=self.inputs, log_file=log, **more)

    def run(self) -> DrainOutcome:
        committed = False
        try:
            outcome = self._run()
            committed = outcome.status in (DrainStatus.OK, DrainStatus.PARTIAL)
            return outcome
        except KeyboardInterrupt:
            self._stop()  # first: no task may still move a message while we count
            return self._interrupted()
        except BrokenPipeError:
            raise  # a note's stderr closed: the command line's entry ends quietly
        except Exception as exc:
            described = describe(exc)  # while Spark runs: a py4j error asks the JVM
            self._stop()
            if self.spark_run is not None and self.spark_run.interrupted:
                return self._interrupted()
            details = self.spark_run.failure(described) if self.spark_run is not None else []
            return self.outcome(
                DrainStatus.FAILED, problems=(described[0],), details=tuple(details)
            )
        finally:
            if not committed:
                self.out.discard(self.spark_run.spark if self.spark_run is not None else None)
            self._stop()
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)

    def _stop(self) -> None:
        if self.spark_run is not None:
            self.spark_run.stop()

    def _run(self) -> DrainOutcome:
        from dlqhandler.spark.drain.job import DrainConfig, classification_text, run_drain
        from dlqhandler.spark.progress import Progress

        r, source = self.request, self.request.source
        local_qmgr = ""
        origin_notes: tuple[str, ...] = ()
        if source is not None:
            try:
                self.snapshot = self._take_snapshot(source)
            except (MQIError, ConfigError, DLQHandlerError) as exc:
                named = source.queue or "the dead-letter queue"
                also = f" (and open --status-queue {source.status_queue})" if source.apply else ""
                return self.outcome(
                    DrainStatus.NO_QUEUE,
                    problems=(f"cannot browse {named} on {source.qmgr}{also}: {exc}",),
                )
            local_qmgr = self.snapshot.qmgr
        queue = self.snapshot.queue if self.snapshot is not None else None
        result = compile_rules(r.rules_text, source=r.rules_source, input_queue=queue)
        if result.ruleset is None:
            return self.outcome(DrainStatus.RULES_ERROR, problems=_errors(result))
        if source is None:
            # Dumps: the table's INPUTQ names the dead-letter queue they came from, and
            # INPUTQM its queue manager (runmqdlq's control data), so a target that puts
            # a message back there is the loop it is for `run`: never written as a target.
            # Without INPUTQ, the queue their headers say dmpmqmsg unloaded them from
            # (Hadoop files: read once Spark runs, below).
            origin, mixed = (
                dumps_origin(self.inputs.files) if not self.inputs.pending else (None, None)
            )
            queue, local_qmgr = offline_input(result.ruleset, origin)
            if mixed is not None:
                r.note(mixed)
                origin_notes = (mixed,)
        apply = source is not None and source.apply
        if not apply and (said := catch_all_loop(result.ruleset, r.catch_all, queue)):
            return self.outcome(DrainStatus.REFUSED, problems=(said,))
        if source is not None and source.apply and queue:
            refused = _control_refusals(r, source.status_queue or "", result.ruleset, queue)
            refused += _catch_all_loop(source, catch_all_queue(result.ruleset, r.catch_all), queue)
            if refused:
                return self.outcome(DrainStatus.REFUSED, problems=tuple(refused))
        config = DrainConfig(
            output=self.out.staging_path if self.out.local else self.out.staging,
            inputs=self.inputs.files,
            input_notes=(*self.inputs.notes(), *origin_notes),
            snapshot=self.snapshot.path if self.snapshot is not None else None,
            qmgr=source.qmgr if source is not None else None,
            queue=queue,
            catch_all=r.catch_all,
            max_hops=r.max_hops,
            dry_run=r.dry_run,
            apply=apply,
            local_qmgr=local_qmgr,
            status_queue=source.status_queue if apply and source is not None else None,
            # --apply looks each message's attempts up as it acts (the status queue)
            floors=(
                spent_floors(result.ruleset, self.snapshot.spent)
                if self.snapshot is not None and not apply
                else {}
            ),
            partitions=r.partitions,
            split_bytes=r.split_bytes,
        )
        connect = source.connect if apply and source is not None else None
        self.spark_run = spark_run = SparkRun(
            "drain",
            master=r.master,
            partitions=r.partitions,
            verbose=r.verbose,
            warm_sql=[classification_text(result.ruleset, config)],
        )
        spark_run.__enter__()
        spark = spark_run.spark
        try:
            if self.inputs.pending:  # Hadoop inputs are listed now that Spark runs
                before, self.inputs = self.inputs, self.inputs.with_hadoop(spark)
                for line in _new_notes(before, self.inputs):
                    r.note(line)
                if source is None:
                    # Their headers, read through Hadoop, name the DLQ they came from.
                    origin, mixed = dumps_origin(self.inputs.files, spark)
                    queue, local_qmgr = offline_input(result.ruleset, origin)
                    origin_notes = (mixed,) if mixed is not None else ()
                    if mixed is not None:
                        r.note(mixed)
                    if said := catch_all_loop(result.ruleset, r.catch_all, queue):
                        return self.outcome(DrainStatus.REFUSED, problems=(said,))
                config = config.model_copy(
                    update={
                        "inputs": self.inputs.files,
                        "input_notes": (*self.inputs.notes(), *origin_notes),
                        "queue": queue,
                        "local_qmgr": local_qmgr,
                    }
                )
            if not self.out.local:  # the output rule, now that Hadoop can look
                self.out = check_output_dir_hadoop(
                    spark, self.out, overwrite=r.overwrite, reads=list(r.reads)
                )
            with spark_run.cancelling():
                with Progress(spark):
                    drained = run_drain(spark, result.ruleset, config, connect)
                if spark_run.interrupted:
                    raise KeyboardInterrupt
                # Ctrl-C from here on finds the output whole: it is committed and said.
                if self.snapshot is not None:
                    shutil.rmtree(self.snapshot.path.parent, ignore_errors=True)
                self.out.commit(spark)
        except (ConfigError, DumpFormatError) as exc:
            return self.outcome(DrainStatus.BAD_INPUT, problems=(str(exc),))
        except DLQHandlerError as exc:
            return self.outcome(DrainStatus.ERROR, problems=(str(exc),))
        malformed = drained.summary["totals"]["malformed"]
        return self.outcome(
            DrainStatus.PARTIAL if drained.failures or malformed else DrainStatus.OK,
            summary=drained.summary,
            manifest=drained.manifest,
            replaced=self.out.replaces,
            failures=drained.failures,
        )

    def _take_snapshot(self, source: QueueSource) -> Snapshot:
        """The queue browsed into a file of the staging directory (a scratch directory
        here for a Hadoop output: the driver writes it locally)."""
        if self.out.local:
            staging = self.out.staging_path
        else:
            self.scratch = staging = Path(tempfile.mkdtemp(prefix="dlqhandler-drain-"))
        qm = source.connect()
        try:
            if source.prepare is not None:
                source.prepare(qm)
            path = staging / "_snapshot" / "input.dmp"
            if source.apply:  # --apply looks each message's attempts up as it acts
                return snapshot_queue(qm, source.queue, path)
            # the snapshot drain goes on from the attempts on record, as `run` would
            status_queue = source.status_queue or DEFAULT_STATUS_QUEUE
            return snapshot_queue(
                qm,
                source.queue,
                path,
                status_queue=status_queue,
                status_required=source.status_required,
            )
        finally:
            qm.disconnect()

    def _interrupted(self) -> DrainOutcome:
        """What an interrupted drain did (the caller removes the partial output)."""
        source = self.request.source
        moved = None
        if source is not None and source.apply and self.snapshot is not None:
            moved = _moved(source, self.snapshot)
        return self.outcome(DrainStatus.INTERRUPTED, moved=moved)


def _errors(result: CompileResult) -> tuple[str, ...]:
    return tuple(
        f"{d.path}:{d.line}:{d.column}: error[{d.code}]: {d.message}"
        for d in result.diagnostics
        if d.severity == "error"
    )


def _control_refusals(
    r: DrainRequest, status_queue: str, ruleset: RuleSet, queue: str
) -> list[str]:
    """Why ``--apply`` is refused before anything moves: the DLQ, the status queue and the
    audit queue are not three different queues, a rule forwards to the status or audit
    queue, or the catch-all queue is one of them (as ``run`` refuses them)."""
    control = ControlQueues(queue, status_queue, DEFAULT_AUDIT_QUEUE)
    refused = control.refusals(ruleset.rules, source=r.rules_source)
    catch_all = catch_all_queue(ruleset, r.catch_all)
    roles = {queue: "input dead-letter queue (a loop)", **control.roles()}
    if r.catch_all and catch_all in roles:
        refused.append(
            f"--catch-all {catch_all} is the {roles[catch_all]}: name another queue for what "
            "the rules leave"
        )
    return refused


def _catch_all_loop(source: QueueSource, catch_all: str | None, queue: str) -> list[str]:
    """Why ``--apply`` is refused when its catch-all queue (``--catch-all``, or the
    table's last FWD that catches all) resolves to the input DLQ through an alias: every
    message it catches would be put back where it came from (``run`` refuses a rule's
    target that does; the drain's tasks refuse them too)."""
    if not catch_all:
        return []
    qm = source.connect()
    try:
        landings = Landings(qm)
        landing = landings.of(catch_all)
        if landing is None or landing not in (queue, landings.of(queue)):
            return []
    finally:
        qm.disconnect()
    said = (
        f"catch-all queue {catch_all} resolves to {landing}, the queue the input dead-letter "
        f"queue {queue} is (an alias of it): a loop; name another queue for what the rules "
        "leave"
    )
    return [said]


def _new_notes(before: InputSet, after: InputSet) -> list[str]:
    """The notes the Hadoop listing added (files read once though given twice, left out)."""
    return InputSet(
        repeated=after.repeated[len(before.repeated) :],
        left_out=after.left_out[len(before.left_out) :],
    ).notes()


def _moved(source: QueueSource, snapshot: Snapshot) -> str:
    """How many snapshot messages are no longer on the queue (each moved in a committed
    unit of work; an uncommitted one was backed out with its task)."""
    try:
        taken = {m.md.msg_id for m in read_dump(snapshot.path)}
        qm = source.connect()
        try:
            handle = qm.open(snapshot.queue, input=False, browse=True)
            still = sum(1 for m in browse_all(handle) if m.md.msg_id in taken)
            handle.close()
        finally:
            qm.disconnect()
    except (DLQHandlerError, MQIError, OSError) as exc:
        return f"cannot count the messages moved ({exc}); browse {snapshot.queue} to see"
    return (
        f"{len(taken) - still} of the {len(taken)} messages in the snapshot were moved "
        f"off {snapshot.queue} (by this drain or another handler), {still} stay there"
    )
