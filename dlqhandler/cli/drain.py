"""``dlqhandler drain``: the bulk backlog drain on Spark.

    dlqhandler drain --rules FILE --output DIR (--input PATH... | -m QMGR [--queue Q])
                     [--catch-all QUEUE] [--dry-run] [--apply] [--master URL]
                     [--partitions N]

The same arguments work under ``spark-submit ops/spark/drain.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dlqhandler.cli._connect import connection_factory, ensure_queue, resolve_qmgr_name
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import load_settings
from dlqhandler.errors import ConfigError, DLQHandlerError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.logs import configure_logging
from dlqhandler.qmgr.attempts import DEFAULT_STATUS_QUEUE
from dlqhandler.qmgr.embedded.manager import connect as connect_embedded
from dlqhandler.qmgr.port import browse_all
from dlqhandler.rules import compile_rules

__all__ = ["main", "register", "snapshot_queue"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", type=Path, required=True, metavar="FILE", help="rules table")
    p.add_argument("--output", type=Path, required=True, metavar="DIR",
                   help="output directory (dmpmqmsg files, audit/, manifest.json)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", nargs="+", metavar="PATH",
                     help="dmpmqmsg files, directories or globs")
    src.add_argument("-m", "--qmgr", metavar="QMGR",
                     help="take a snapshot of a queue on this embedded queue manager")
    p.add_argument("--queue", metavar="Q", help="queue to snapshot (default: the QM's DEADQ)")
    p.add_argument("--catch-all", metavar="QUEUE",
                   help="send everything that would stay on the DLQ here, with its MQDLH")
    p.add_argument("--dry-run", action="store_true",
                   help="only classify: write audit/ and summary.json")
    p.add_argument("--apply", action="store_true",
                   help="carry out the actions on the queue manager given with -m")
    p.add_argument("--status-queue", default=DEFAULT_STATUS_QUEUE, metavar="Q",
                   help="with --apply: the queue of attempt counts shared with dlqhandler run "
                        f"(default {DEFAULT_STATUS_QUEUE}; defined if missing)")
    p.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    p.add_argument("--partitions", type=int, metavar="N",
                   help="Spark shuffle partitions, and at most N tasks writing the outputs"
                        " (default: one per input split)")
    p.add_argument("--split-mb", type=int, default=8, metavar="MB",
                   help="input split size in MiB (default 8)")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "drain", help="bulk drain of a DLQ backlog on Spark",
        description="Classify a DLQ backlog with a rules table on Spark and write the "
                    "results as dmpmqmsg files (or apply them to a queue manager).")
    _add_arguments(p)
    p.set_defaults(handler=_drain)


def snapshot_queue(settings: Any, qmgr_name: str, queue: str | None, out: Path, *,
              status_queue: str | None = None) -> tuple[Path, str, str]:
    """Browse the queue into a dmpmqmsg file (the drain's input); for --apply,
    define the status queue first if it is missing."""
    qm = connect_embedded(qmgr_name, settings=settings)
    try:
        if status_queue:
            ensure_queue(qm, status_queue, descr="dlqhandler attempt counts")
        info = qm.inquire()
        q_name = queue or info.dead_letter_q_name
        handle = qm.open(q_name, input=False, browse=True)
        snap_dir = out / "_snapshot"
        snap_dir.mkdir(parents=True, exist_ok=True)
        path = snap_dir / "input.dmp"
        with path.open("wb") as stream, DumpWriter(stream, qmgr=info.name, queue=q_name) as w:
            for msg in browse_all(handle):
                w.write(msg)
        handle.close()
        return path, q_name, info.name
    finally:
        qm.disconnect()


def _drain(args: argparse.Namespace) -> int:
    from dlqhandler.spark.job import DrainConfig, run_drain
    from dlqhandler.spark.session import get_session

    settings = load_settings()
    configure_logging(level=settings.log_level)
    try:
        text = args.rules.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"dlqhandler drain: cannot read rules table: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    snapshot = None
    qmgr_name = queue = None
    local = ""
    if args.qmgr is not None:
        qmgr_name = resolve_qmgr_name(settings, args.qmgr)
        snapshot, queue, local = snapshot_queue(settings, qmgr_name, args.queue, args.output,
                                           status_queue=args.status_queue if args.apply
                                           else None)
    elif args.apply:
        print("dlqhandler drain: --apply acts on a queue: give -m QMGR as the input",
              file=sys.stderr)
        return int(ExitCode.USAGE)
    result = compile_rules(text, source=str(args.rules), input_queue=queue)
    for d in result.diagnostics:
        if d.severity == "error":
            print(f"{d.path}:{d.line}:{d.column}: error[{d.code}]: {d.message}", file=sys.stderr)
    if result.ruleset is None:
        return int(ExitCode.RULES_ERROR)
    config = DrainConfig(output=args.output, inputs=tuple(args.input or ()), snapshot=snapshot,
                         qmgr=qmgr_name, queue=queue, catch_all=args.catch_all,
                         dry_run=args.dry_run, apply=args.apply, local_qmgr=local,
                         status_queue=args.status_queue if args.apply else None,
                         partitions=args.partitions, split_bytes=max(1, args.split_mb) << 20)
    connect = connection_factory(settings, qmgr_name) if args.apply and qmgr_name else None
    spark = get_session(args.master, partitions=args.partitions)
    try:
        drained = run_drain(spark, result.ruleset, config, connect)
    except ConfigError as exc:
        print(f"dlqhandler drain: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except DLQHandlerError as exc:
        print(f"dlqhandler drain: {exc}", file=sys.stderr)
        return int(ExitCode.FAILURE)
    _print_summary(drained.summary, drained.manifest)
    return int(ExitCode.PARTIAL if drained.failures else ExitCode.OK)


def _print_summary(summary: dict[str, Any], manifest: dict[str, Any]) -> None:
    t = summary["totals"]
    print(f"Drain ({manifest['mode']}): {t['messages']} messages")
    for key in ("retried", "forwarded", "discarded", "catch_all", "remaining", "no_dlh",
                "unmatched"):
        print(f"  {key:<12}{t[key]:>12}")
    print("  by rule line:")
    for r in summary["by_rule"]:
        print(f"    line {r['line']:>5}  {r['action']:<8} matched {r['matched']:>10}"
              f"  chosen {r['chosen']:>10}")
    if summary["never_matched"]:
        print("  rules that matched nothing: lines "
              + ", ".join(str(x) for x in summary["never_matched"]))
    if summary["shadowed"]:
        print("  rules matched but never chosen (shadowed): lines "
              + ", ".join(str(x) for x in summary["shadowed"]))
    for o in manifest["outputs"]:
        print(f"  -> {o['queue']}@{o['qmgr'] or 'LOCAL'}: {o['messages']} messages in "
              f"{o['file']}")
    if manifest["remaining"].get("file"):
        print(f"  -> remaining on the DLQ: {manifest['remaining']['messages']} in "
              f"{manifest['remaining']['file']}")


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

