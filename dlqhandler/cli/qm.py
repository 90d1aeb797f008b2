"""``dlqhandler qm``: administer embedded queue managers, the way IBM's tools do.

* ``qm create NAME [--deadq Q]`` (crtmqm), ``qm delete NAME`` (dltmqm),
  ``qm list`` (dspmq);
* ``qm mqsc NAME`` (runmqsc): MQSC commands from standard input;
* ``qm dmpmqmsg -m NAME (-i Q | -I Q | -o Q) -f FILE|-``: as IBM's dmpmqmsg,
  ``-i`` unloads by browsing (the messages stay), ``-I`` unloads destructively
  and ``-o`` loads, by default with set-all context (``-C A``) so every MQMD
  field, MsgId and context included, is kept;
* ``qm runmqtrm -m NAME [-q INITQ]`` (runmqtrm): a trigger monitor that starts
  the applications of process definitions when trigger messages arrive
  (:mod:`dlqhandler.qmgr.embedded.runmqtrm`); ``--once`` and ``--wait SECONDS`` end it
  for tests and cron-like use, SIGTERM/SIGINT stop it cleanly;
* ``qm put`` and ``qm browse`` for quick manual work.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from types import FrameType

from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._dmpmqmsg import (
    Context,
    Counts,
    LoadStopped,
    MessageRange,
    existing_file,
    load,
    open_file,
    parse_range,
    print_counts,
    unload,
)
from dlqhandler.cli._log_options import add_log_options, log_json
from dlqhandler.cli._types import (
    MQLONG_MAX,
    bounded_int,
    non_negative_float,
    non_negative_int,
    positive_int,
    qmgr_name,
    qmgr_name_or_blank,
    queue_name,
    queue_name_or_blank,
)
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.config import load_settings
from dlqhandler.errors import DecodeError, MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.mq.properties import Property, make_property
from dlqhandler.mq.rfh2 import dt_of, typed_property
from dlqhandler.qmgr import (
    EmbeddedQueueManager,
    PutOptions,
    connect,
    create_qmgr,
    delete_qmgr,
    list_qmgrs,
    run_mqsc,
)
from dlqhandler.qmgr.embedded.qmgrs import DEFAULT_DEADQ, INITIATION_QUEUE
from dlqhandler.qmgr.embedded.runmqtrm import MonitorOptions, TriggerMonitor
from dlqhandler.qmgr.port import browse_all
from dlqhandler.qmgr.snapshot import UnloadStoppedError

__all__ = ["register"]

_CONTEXTS: dict[str, Context] = {"A": "set_all", "a": "pass_all", "d": "default"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``qm`` and its actions, in the order ``dlqhandler qm --help`` lists them."""
    parser = subparsers.add_parser(
        "qm",
        help=COMMANDS["qm"],
        description="Embedded queue managers under $DLQHANDLER_HOME/qmgrs.",
    )
    sub = parser.add_subparsers(dest="qm_command", metavar="ACTION", required=True)

    p = sub.add_parser("create", help="create a queue manager (crtmqm)")
    p.add_argument("name", type=qmgr_name)
    p.add_argument(
        "--deadq",
        "-u",
        default=DEFAULT_DEADQ,
        metavar="Q",
        type=queue_name,
        help=f"its dead-letter queue (default {DEFAULT_DEADQ})",
    )
    p.set_defaults(handler=_create)

    p = sub.add_parser("delete", help="delete a queue manager and its messages (dltmqm)")
    p.add_argument("name", type=qmgr_name)
    p.set_defaults(handler=_delete)

    p = sub.add_parser(
        "list",
        help="list queue managers and their status (dspmq)",
        description="STATUS(Running) while a process is connected, "
        "STATUS(Ended unexpectedly) when a connected process died "
        "(its work is recovered by the next connection), else "
        "STATUS(Ended normally), as dspmq.",
    )
    p.set_defaults(handler=_list)

    p = sub.add_parser("mqsc", help="run MQSC commands from standard input (runmqsc)")
    p.add_argument(
        "name", nargs="?", type=qmgr_name, help="queue manager (default $DLQHANDLER_QMGR)"
    )
    p.add_argument(
        "-v", dest="verify", action="store_true", help="verify the commands only; change nothing"
    )
    p.set_defaults(handler=_mqsc)

    _register_dmpmqmsg(sub)
    _register_runmqtrm(sub)
    _register_put(sub)

    p = sub.add_parser("browse", help="list the messages on a queue (non-destructive)")
    p.add_argument("-m", dest="qmgr", metavar="QMGR", type=qmgr_name)
    p.add_argument("-q", dest="queue", required=True, metavar="QUEUE", type=queue_name)
    p.add_argument("--limit", type=non_negative_int, metavar="N")
    p.set_defaults(handler=_browse)


def _register_dmpmqmsg(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``qm dmpmqmsg``: unload a queue to a file or load a file onto a queue, as IBM's dmpmqmsg."""
    p = sub.add_parser(
        "dmpmqmsg",
        help="unload or load a queue (dmpmqmsg)",
        description="-i browses (messages stay), -I gets destructively, "
        "-o loads; as IBM's dmpmqmsg.",
    )
    p.add_argument("-m", dest="qmgr", metavar="QMGR", type=qmgr_name)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "-i", dest="browse_q", metavar="QUEUE", type=queue_name, help="unload by browsing"
    )
    which.add_argument(
        "-I", dest="get_q", metavar="QUEUE", type=queue_name, help="unload destructively"
    )
    which.add_argument(
        "-o", dest="load_q", metavar="QUEUE", type=queue_name, help="load onto QUEUE"
    )
    named = p.add_mutually_exclusive_group(required=True)
    named.add_argument(
        "-f",
        dest="file",
        metavar="FILE",
        help="the file ('-', 'stdout' or 'stdin' for the standard streams); an unload "
        "never overwrites an existing file",
    )
    named.add_argument(
        "-F",
        dest="forced_file",
        metavar="FILE",
        help="as -f, and an unload overwrites FILE if it exists",
    )
    p.add_argument(
        "-C",
        dest="context",
        choices=sorted(_CONTEXTS),
        default="A",
        help="load context: A set all (default), a pass all, d default",
    )
    p.add_argument(
        "-t",
        dest="per_uow",
        type=positive_int,
        default=200,
        metavar="N",
        help="messages per unit of work (default 200)",
    )
    p.add_argument(
        "-r",
        dest="range",
        type=parse_range,
        default=None,
        metavar="RANGE",
        help="(-o only) load only these messages of the file, numbered from 1: "
        "x, x..y, "
        "x.. (x onwards), ..y, x#n (n from x), #n (the first n); "
        "resumes a load that stopped, without duplicates",
    )
    p.add_argument(
        "-d",
        dest="mode",
        choices=("A", "p", "t"),
        default=None,
        help="data lines: A invariant strings, p printable, t text (lossy)",
    )
    p.set_defaults(handler=_dmpmqmsg)


def _register_runmqtrm(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``qm runmqtrm``: the trigger monitor."""
    p = sub.add_parser(
        "runmqtrm",
        help="run a trigger monitor (runmqtrm)",
        description="Get trigger messages from an initiation queue and start "
        "each one's process APPLICID with the MQTMC2 as its "
        "argument, as IBM's runmqtrm does on UNIX (no shell).",
    )
    p.add_argument(
        "-m",
        dest="qmgr",
        metavar="QMGR",
        type=qmgr_name,
        help="queue manager (default $DLQHANDLER_QMGR)",
    )
    p.add_argument(
        "-q",
        dest="initq",
        default=INITIATION_QUEUE,
        metavar="INITQ",
        type=queue_name,
        help=f"initiation queue (default {INITIATION_QUEUE})",
    )
    p.add_argument(
        "--wait",
        type=non_negative_float,
        default=None,
        metavar="SECONDS",
        help="end when no trigger message arrives within SECONDS (default: wait forever)",
    )
    p.add_argument(
        "--once", action="store_true", help="end after one trigger message (and its application)"
    )
    p.add_argument(
        "--stop-timeout",
        type=non_negative_float,
        default=30.0,
        metavar="SECONDS",
        help="when stopping, wait this long for started applications (default 30)",
    )
    add_log_options(p)
    p.set_defaults(handler=_runmqtrm)


def _register_put(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``qm put``: put test messages, optionally as dead letters."""
    p = sub.add_parser("put", help="put test messages (optionally as dead letters)")
    p.add_argument("-m", dest="qmgr", metavar="QMGR", type=qmgr_name)
    p.add_argument("-q", dest="queue", required=True, metavar="QUEUE", type=queue_name)
    data = p.add_mutually_exclusive_group()
    data.add_argument("--data", default="", help="message text (UTF-8)")
    data.add_argument("--file", type=Path, help="message data from a file")
    p.add_argument("--count", type=positive_int, default=1, help="messages (1 or more)")
    p.add_argument(
        "--priority",
        type=bounded_int(-1, 9),
        default=-1,
        help="0-9, or -1 for the queue's default (MQPRI_PRIORITY_AS_Q_DEF)",
    )
    p.add_argument("--persistent", action="store_true")
    p.add_argument(
        "--format", default="MQSTR", type=_format, help="MQMD Format (default MQSTR, 8 at most)"
    )
    p.add_argument(
        "--expiry",
        type=_expiry,
        default=-1,
        help="tenths of a second, 1 or more; -1 never expires (MQEI_UNLIMITED)",
    )
    p.add_argument("--reply-to-q", default="", type=queue_name_or_blank)
    p.add_argument(
        "--dlq-reason",
        type=bounded_int(0, MQLONG_MAX),
        metavar="N",
        help="wrap the data in an MQDLH with this reason (a dead letter)",
    )
    p.add_argument(
        "--dest", default="", metavar="Q", type=queue_name_or_blank, help="MQDLH DestQName"
    )
    p.add_argument(
        "--dest-qmgr",
        default="",
        metavar="QMGR",
        type=qmgr_name_or_blank,
        help="MQDLH DestQMgrName",
    )
    p.add_argument(
        "--property",
        dest="properties",
        action="append",
        default=[],
        type=_property_arg,
        metavar="NAME[:TYPE]=VALUE",
        help="a message property (repeatable); TYPE as in an MQRFH2: string"
        " (default), boolean, bin.hex, i1, i2, i4, i8, r4, r8, or null"
        " (NAME:null, no value)",
    )
    p.set_defaults(handler=_put)


def _expiry(text: str) -> int:
    """MQMD Expiry: tenths of a second (1 to MQLONG's maximum) or -1 (MQEI_UNLIMITED)."""
    return -1 if text.strip() == "-1" else bounded_int(1, MQLONG_MAX)(text)


def _format(text: str) -> str:
    """MQMD Format: an MQCHAR8, so 8 characters at most (MQRC_FORMAT_ERROR otherwise)."""
    if len(text) > 8:
        raise argparse.ArgumentTypeError(
            f"{text!r} is {len(text)} characters long: an MQMD Format has 8 at most"
        )
    return text


def _home() -> Path:
    return load_settings().home


@contextlib.contextmanager
def _connected(name: str | None) -> Iterator[EmbeddedQueueManager]:
    settings = load_settings()
    # The queue manager logs events (trigger messages written...): to the process's
    # stderr, never mixed into what these commands print on stdout.
    configure_logging(
        level=settings.log_level, json=settings.log_json, stream=sys.__stderr__ or sys.stderr
    )
    qm = connect(name, settings=settings)
    try:
        yield qm
    finally:
        qm.disconnect()


def _create(args: argparse.Namespace) -> int:
    paths = create_qmgr(_home(), args.name, deadq=args.deadq)
    print(f"IBM MQ queue manager '{args.name}' created.")
    print(f"Directory '{paths.root}' created.")
    print(f"Dead-letter queue '{args.deadq}' defined.")
    return int(ExitCode.OK)


def _delete(args: argparse.Namespace) -> int:
    delete_qmgr(_home(), args.name)
    print(f"IBM MQ queue manager '{args.name}' deleted.")
    return int(ExitCode.OK)


def _list(args: argparse.Namespace) -> int:
    for qm in list_qmgrs(_home()):
        print(f"{f'QMNAME({qm.name})':<58}STATUS({qm.status})")
    return int(ExitCode.OK)


def _mqsc(args: argparse.Namespace) -> int:
    text = sys.stdin.read()
    with _connected(args.name) as qm:
        result = run_mqsc(text, qm.admin(), sys.stdout, qmgr_name=qm.name, verify=args.verify)
    sys.stdout.flush()
    for failure in result.failures:
        kind = "syntax error" if failure.syntax else "failed"
        print(
            f"dlqhandler: MQSC command {failure.number} at line {failure.line} {kind}: "
            f"{failure.message}",
            file=sys.stderr,
        )
    return int(ExitCode.OK if result.ok else ExitCode.FAILURE)


def _runmqtrm(args: argparse.Namespace) -> int:
    """The trigger monitor: SIGTERM and SIGINT set the stop event it checks (exit 0 after
    SIGTERM, the service manager's stop; 130 after Ctrl-C, as every command)."""
    settings = load_settings()
    configure_logging(
        level=args.log_level or settings.log_level,
        json=log_json(args, settings),
        stream=sys.__stderr__ or sys.stderr,
    )
    options = MonitorOptions(
        initq=args.initq, wait=args.wait, once=args.once, stop_timeout=args.stop_timeout
    )
    stop = threading.Event()
    interrupted: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGINT:
            interrupted.append(signum)
        stop.set()

    try:
        qm = connect(args.qmgr, settings=settings)
    except MQIError as exc:
        print(f"dlqhandler: error: {exc}", file=sys.stderr)
        return int(ExitCode.CONNECTION_ERROR)
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        monitor = TriggerMonitor(qm, options, stop=stop)
        try:
            monitor.run()
        except MQIError as exc:
            print(f"dlqhandler: error: {exc}", file=sys.stderr)
            return int(ExitCode.MQ_ERROR if monitor.opened else ExitCode.CONNECTION_ERROR)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        qm.disconnect()
    # SIGTERM is the service manager's orderly stop; Ctrl-C a person's interrupt (130).
    return int(ExitCode.INTERRUPTED if interrupted else ExitCode.OK)


def _dmpmqmsg(args: argparse.Namespace) -> int:
    """Load or unload; IBM's Read/Written counts are printed on every exit."""
    force = args.forced_file is not None
    if force:
        args.file = args.forced_file
    refused = _dmpmqmsg_refusal(args, force=force)
    if refused is not None:
        print(f"dlqhandler qm dmpmqmsg: {refused}", file=sys.stderr)
        return int(ExitCode.USAGE)
    counts = Counts()
    selected: MessageRange = args.range or MessageRange()
    try:
        if args.load_q:
            _load_file(args, selected, counts)
        else:
            _unload_queue(args, counts, overwrite=force)
    except LoadStopped as exc:
        print(f"dlqhandler qm dmpmqmsg: {exc.problem}", file=sys.stderr)
        print(
            f"dlqhandler qm dmpmqmsg: the load stopped: {counts.written_msgs} message(s) "
            f"committed to {args.load_q}; no message from index {exc.first_not_loaded} "
            f"on was loaded. Fix the cause, then resume without duplicates with: "
            f"-r {selected.resume_from(exc.first_not_loaded)}",
            file=sys.stderr,
        )
        return int(ExitCode.INTERRUPTED if exc.interrupted else ExitCode.PARTIAL)
    except BrokenPipeError:
        raise  # an unload to a closed stdout (-f - | head): the CLI's entry ends quietly
    except OSError as exc:
        print(
            f"dlqhandler qm dmpmqmsg: cannot {'open' if args.load_q else 'open or write'}"
            f" {args.file}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return int(ExitCode.USAGE)
    finally:
        print_counts(counts)
    return int(ExitCode.OK)


def _dmpmqmsg_refusal(args: argparse.Namespace, *, force: bool) -> str | None:
    """Why these options are refused before anything is touched, or None."""
    if args.range is not None and not args.load_q:
        # IBM's -r also selects on an unload; this one does not (yet): refused rather
        # than ignored, which would unload (with -I: remove) every message.
        return (
            "-r selects messages of a load (-o) only; an unload "
            "(-i, -I) takes the whole queue: leave out -r, or unload and then load "
            "the range you want"
        )
    if args.get_q and args.mode == "t":
        # -dt is not byte-exact (CR LF comes back as LF, a message gains a final LF, binary
        # bytes gain line ends): a destructive unload in it loses what it removes.
        return (
            "-I removes the messages, and -d t writes text that does "
            "not load back byte for byte (line ends and binary data change): unload with "
            "-I and the default hex (or -d A, -d p), or read them as text with -i -d t"
        )
    if not args.load_q and not force and existing_file(args.file):
        # IBM's dmpmqmsg asks before overwriting a file named by -f ("Using -F on a target
        # file forces output to a file if it already exists"); this one cannot ask.
        return (
            f"{args.file} exists and -f does not overwrite a file: "
            "name a new file, or give -F to overwrite it"
        )
    return None


def _load_file(args: argparse.Namespace, selected: MessageRange, counts: Counts) -> None:
    """-o: the file's messages (those of -r) onto the queue, -t of them a unit of work."""
    # The file is opened before connecting: a wrong name changes nothing.
    with open_file(args.file, write=False) as stream:
        counts.read_files = 1
        if args.range is not None:
            print(args.range.describe(), file=sys.stderr)
        with _connected(args.qmgr) as qm:
            load(
                qm,
                args.load_q,
                stream,
                name=args.file,
                context=_CONTEXTS[args.context],
                per_uow=args.per_uow,
                selected=selected,
                counts=counts,
            )


def _unload_queue(args: argparse.Namespace, counts: Counts, *, overwrite: bool) -> None:
    """-i (browse) or -I (get, -t of them a unit of work): the queue's messages to the
    file; a destructive unload stopped by a full disk or Ctrl-C cuts the file back to what
    was committed."""
    queue, destructive = args.browse_q or args.get_q, args.get_q is not None
    with _connected(args.qmgr) as qm:
        # The queue is opened before the file is touched: a queue that cannot be
        # unloaded (a wrong name, no authority) leaves an existing file as it was.
        qm.open(queue, input=destructive, browse=not destructive).close()
        try:
            with open_file(args.file, write=True, overwrite=overwrite) as stream:
                unload(
                    qm,
                    queue,
                    stream,
                    destructive=destructive,
                    per_uow=args.per_uow,
                    mode=args.mode or "hex",
                    counts=counts,
                )
        except UnloadStoppedError:
            raise  # an MQ error: the unload backed out and cut the file itself
        except BaseException:  # a full disk, Ctrl-C: the stream may not flush
            if destructive:
                _cut_back(qm, args.file, queue, counts)
            raise


def _cut_back(qm: EmbeddedQueueManager, name: str, queue: str, counts: Counts) -> None:
    """A destructive unload (-I) that failed: the batch in hand is backed out (its
    messages stay on the queue), and the file is cut back to the messages removed, so
    that loading it never puts a message that is still on the queue a second time."""
    with contextlib.suppress(MQIError):
        qm.backout()
    kept = f"the others stay on {queue}"
    if existing_file(name) and counts.removed_bytes is not None:
        with contextlib.suppress(OSError):
            os.truncate(name, counts.removed_bytes)
            kept += f" ({name} was cut back to the messages removed)"
    elif counts.read_msgs > counts.removed_msgs:
        kept += (
            f"; the stream holds {counts.read_msgs - counts.removed_msgs} more after them, "
            "which stay on the queue too: do not load those"
        )
    print(
        f"dlqhandler qm dmpmqmsg: the unload stopped: {counts.removed_msgs} message(s) were "
        f"removed from {queue} and are in {name}; {kept}",
        file=sys.stderr,
    )


def _put(args: argparse.Namespace) -> int:
    data = args.file.read_bytes() if args.file else args.data.encode("utf-8")
    md = MQMD(
        format=args.format,
        priority=args.priority,
        persistence=int(args.persistent),
        expiry=args.expiry,
        reply_to_q=args.reply_to_q,
    )
    props = tuple(args.properties)
    message = Message(md, data, None, props)
    with _connected(args.qmgr) as qm:
        if args.dlq_reason is not None:
            message = Message.dead_letter(
                md,
                data,
                reason=args.dlq_reason,
                dest_q_name=args.dest,
                dest_q_mgr_name=args.dest_qmgr or qm.name,
                put_appl_name="dlqhandler qm put",
                properties=props,
            )
        for _ in range(args.count):
            put = qm.put1(args.queue, message, PutOptions(syncpoint=False, context="default"))
            print(f"put {put.msg_id.hex().upper()} to {args.queue}")
    return int(ExitCode.OK)


def _browse(args: argparse.Namespace) -> int:
    with _connected(args.qmgr) as qm:
        q = qm.open(args.queue, input=False, browse=True)
        index = 0
        for index, message in enumerate(islice(browse_all(q), args.limit), 1):
            print(_describe(index, message))
        q.close()
        print(f"{index} message(s) on {args.queue}")
    return int(ExitCode.OK)


def _property_arg(text: str) -> Property:
    """``NAME[:TYPE]=VALUE`` (or ``NAME:null``) as a checked property (IBM's rules)."""
    spec, eq, value = text.partition("=")
    name, _, dt = spec.partition(":")
    if not eq and dt != "null":
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME[:TYPE]=VALUE")
    try:
        prop = typed_property(name, dt or "string", value)
        return make_property(prop.name, prop.type, prop.value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    except MQIError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def _describe_properties(message: Message) -> str:
    """One line per property: name (type) = value; text from a message shown escaped."""
    return "".join(
        f"\n        {p.name if p.name.isprintable() else repr(p.name)}"
        f" ({dt_of(p.type)}) = {p.value!r}"
        for p in message.properties
    )


def _describe(index: int, message: Message) -> str:
    return _describe_md(index, message) + _describe_properties(message)


def _describe_md(index: int, message: Message) -> str:
    md = message.md
    head = (
        f"{index:>6}  {md.msg_id.hex().upper()}  pri {md.priority}  "
        f"{'persistent' if md.persistence == 1 else 'non-persistent':<14} "
        f"{len(message.body):>7} bytes  {md.format or '-':<8} BOC {md.backout_count}"
    )
    if md.format == "MQDEAD":
        try:
            dlh = decode_dead_letter(md, message.body).dlh
        except DecodeError as exc:
            return f"{head}  bad MQDLH: {exc}"
        if dlh is not None:
            return f"{head}  reason {dlh.reason} dest {dlh.dest_q_name}@{dlh.dest_q_mgr_name}"
    return head
