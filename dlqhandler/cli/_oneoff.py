"""``dlqhandler run`` one-off actions, and the audit trail of any run given --reason.

    dlqhandler run --match 'REASON(MQRC_Q_FULL)' --action retry --reason 'APP.Q fixed'
    dlqhandler run --older-than 7d --action discard --reason 'INC-1234' --dry-run
    dlqhandler run --msgid 414d51... --action fwd:ARCHIVE.Q@QM2 --header no --reason ...

A one-off action needs no rules table: ``--action retry|discard|fwd:QUEUE[@QMGR]``
(with ``--header yes|no`` for ``fwd:``) becomes a one-rule table applied, once,
to the messages the selector (``--msgid``, ``--match``, ``--older-than``,
``--newer-than``; at least one) selects. It must say why (``--reason TEXT``),
unless it is a ``--dry-run``: every action of the run then leaves an audit
record (:mod:`dlqhandler.acting.audit`) on ``--audit-queue`` in the action's own
unit of work (one action per unit of work). A run with a rules table given
``--reason`` is audited the same way. See docs/one-off-actions.md.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any, TextIO

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, AuditTrail
from dlqhandler.acting.audit import os_user
from dlqhandler.cli._reading import escape
from dlqhandler.errors import ConfigError
from dlqhandler.mq.names import validate_qmgr_name, validate_queue_name
from dlqhandler.worker.selection import Selector
from dlqhandler.worker.stats import RunStats

__all__ = [
    "Progress",
    "add_oneoff_options",
    "audit_trail",
    "oneoff_table",
    "say_moved",
    "say_unselected",
]

_ACTIONS = "retry, discard or fwd:QUEUE[@QMGR]"


def add_oneoff_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "one-off actions and the audit trail",
        "--action acts on the selected messages without a rules table, once; it needs "
        "--reason (unless --dry-run), and every action is recorded on the audit queue in "
        "the action's own unit of work. Any run given --reason is audited the same way.",
    )
    group.add_argument(
        "--action",
        metavar="ACTION",
        help=f"act without a rules table: {_ACTIONS} (needs a selector: "
        "--match, --msgid, --older-than or --newer-than)",
    )
    group.add_argument(
        "--header",
        choices=("yes", "no"),
        default=None,
        help="with --action fwd:...: keep the MQDLH (yes, the default) or strip it (no)",
    )
    group.add_argument(
        "--reason",
        metavar="TEXT",
        help="why: written in the audit record of every action of this run",
    )
    group.add_argument(
        "--audit-queue",
        default=DEFAULT_AUDIT_QUEUE,
        metavar="Q",
        help=f"queue the audit records go to (default {DEFAULT_AUDIT_QUEUE};"
        " defined if missing on an embedded queue manager)",
    )


def oneoff_table(args: argparse.Namespace, *, selected: bool) -> str | None:
    """The one-rule table ``--action`` describes (None without --action); ConfigError
    naming the option when the options do not make a usable one-off action."""
    if args.reason is not None and not args.reason.strip():
        raise ConfigError("--reason is empty: say why (it goes into the audit record)")
    if args.audit_queue is not None:
        try:
            validate_queue_name(args.audit_queue, "--audit-queue")
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
    if args.action is None:
        if args.header is not None:
            raise ConfigError("--header goes with --action fwd:QUEUE[@QMGR]")
        return None
    if args.rules is not None:
        raise ConfigError(
            "--action and --rules do not go together: a one-off action needs no rules table"
        )
    if not selected:
        raise ConfigError(
            "--action needs a selector (--match, --msgid, --older-than or "
            "--newer-than) saying which messages to act on"
        )
    if args.reason is None and not args.dry_run:
        raise ConfigError(
            "a one-off action needs --reason TEXT (recorded in the audit "
            "record of each action), unless it is a --dry-run"
        )
    text = args.action.strip()
    kind = text.lower()
    if kind in ("retry", "discard"):
        if args.header is not None:
            raise ConfigError("--header goes with --action fwd:QUEUE[@QMGR]")
        return f"WAIT(NO)\nACTION({kind.upper()})\n"
    if not kind.startswith("fwd:"):
        raise ConfigError(f"--action {text!r} is not an action: {_ACTIONS}")
    queue, _, qmgr = text[4:].partition("@")
    try:
        validate_queue_name(queue, "--action fwd: queue")
        if "@" in text[4:]:
            if not qmgr.strip():
                raise ValueError("--action fwd: queue manager after '@' is empty")
            validate_qmgr_name(qmgr, "--action fwd: queue manager")
    except ValueError as exc:
        raise ConfigError(f"{exc}; write fwd:QUEUE or fwd:QUEUE@QMGR") from exc
    header = (args.header or "yes").upper()
    # Quoted: a name typed on the command line is exact (MQ names are case-sensitive);
    # only a table's own unquoted values are folded to upper case. A valid MQ name holds
    # no quote to double.
    fwdqm = f" FWDQM('{qmgr}')" if qmgr else ""
    return f"WAIT(NO)\nACTION(FWD) FWDQ('{queue}'){fwdqm} HEADER({header})\n"


def audit_trail(args: argparse.Namespace, *, qmgr: str, queue: str) -> AuditTrail | None:
    """The run's audit trail: a one-off action, or any run given --reason (not a dry run:
    it acts on nothing)."""
    if args.dry_run or (args.action is None and args.reason is None):
        return None
    command = ["dlqhandler", *getattr(args, "argv", sys.argv[1:])]
    return AuditTrail(args.audit_queue, args.reason or "", tuple(command), qmgr, queue, os_user())


def say_moved(args: argparse.Namespace, stats: RunStats, *, stopped: bool) -> None:
    """A one-off run's last word on stderr: how many messages it moved (also when
    stopped by a signal, between units of work)."""
    verb = "would be moved (dry run)" if args.dry_run else "moved"
    audited = (
        f", each with its audit record on {args.audit_queue}"
        if not args.dry_run and stats.acted
        else ""
    )
    end = " - stopped between units of work, nothing lost" if stopped else ""
    print(
        f"dlqhandler run: {stats.acted} message(s) {verb}{audited}{end}",
        file=sys.stderr,
        flush=True,
    )


def _selector_words(args: argparse.Namespace) -> str:
    words = [f"--match {args.match!r}"] if args.match else []
    words += [f"--msgid {m}" for m in args.msgid or ()]
    words += [f"--older-than {args.older_than}"] if args.older_than else []
    words += [f"--newer-than {args.newer_than}"] if args.newer_than else []
    return escape(" ".join(words))


def say_unselected(
    args: argparse.Namespace, selector: Selector, stats: RunStats, queue: str
) -> list[bytes]:
    """After a finished one-off pass: each ``--msgid`` that names no message on the queue,
    each one that names a member of a group left whole on the queue (incomplete), each
    one that selected several messages (acted on, all of them: a warning), each group
    acted on whole of which the selector selected only some members (a warning), each
    group a discard left because the selector selected only some of its members, and a
    selector that selected nothing, said on stderr (never a silent "0 moved"). Returns
    those MsgIds and GroupIds (the run then fails: what was selected was not acted on)."""
    missing = selector.missing()
    for msg_id in missing:
        print(
            f"dlqhandler run: no message with MsgId {msg_id.hex()} is on {escape(queue)} "
            "(moved already, or on another queue? qm browse or dlqhandler audit --msgid "
            "shows where it went)",
            file=sys.stderr,
        )
    held = sorted(selector.held_in_group.items())
    for msg_id, group_id in held:
        print(
            f"dlqhandler run: the message with MsgId {msg_id.hex()} is on {escape(queue)} "
            f"but in group {group_id.hex()}, which was left whole: not all of its members "
            "are on the queue (or one has no MQDLH), and a group is moved whole or not at "
            "all; wait for the rest of the group, or see it with qm browse",
            file=sys.stderr,
        )
    verb, dry = ("would be taken", " (dry run)") if args.dry_run else ("was taken", "")
    for msg_id, count in selector.repeated():
        print(
            f"dlqhandler run: warning: --msgid {msg_id.hex()} selected {count} messages on "
            f"{escape(queue)}, not one (an application put them with the same MsgId): the "
            f"action {verb} on all {count}{dry}; to act on one, narrow the selection with "
            "--match or an age that tells them apart (qm browse shows them)",
            file=sys.stderr,
        )
    for group_id, (chosen, members) in sorted(selector.whole_groups.items()):
        print(
            f"dlqhandler run: warning: {_selector_words(args)} selected {chosen} of the "
            f"{members} messages of group {group_id.hex()} on {escape(queue)}: the action "
            f"{verb} on all {members}{dry}, as a group moves whole or not at all (qm browse "
            "shows its members)",
            file=sys.stderr,
        )
    refused = sorted(selector.refused_groups.items())
    left = "would be left (dry run)" if args.dry_run else "was left"
    for group_id, (chosen, members) in refused:
        print(
            f"dlqhandler run: {_selector_words(args)} selected {chosen} of the {members} "
            f"messages of group {group_id.hex()} on {escape(queue)}: a group moves whole or "
            f"not at all, and discarding it would remove {members - chosen} message(s) not "
            f"selected, so the group {left} on the queue; to discard it, select every member "
            "(each --msgid, or a --match they all meet; qm browse shows them)",
            file=sys.stderr,
        )
    if selector.selected == 0:
        print(
            f"dlqhandler run: {_selector_words(args)} selected none of the "
            + ("" if stats.depth_unknown else f"{stats.seen} ")
            + f"message(s) on {escape(queue)}: nothing was done",
            file=sys.stderr,
        )
    return missing + [msg_id for msg_id, _group in held] + [gid for gid, _n in refused]


class Progress:
    """A one-line progress report on a terminal (only when ``stream`` is a tty)."""

    def __init__(
        self, stats: RunStats, stream: TextIO | None = None, interval: float = 0.5
    ) -> None:
        self._stats, self._interval = stats, interval
        self._stream = stream if stream is not None else sys.stderr
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self._stream.isatty():
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _line(self) -> str:
        s = self._stats
        verb = "would act on" if s.dry_run else "moved"
        return f"\r{verb} {s.acted}, failed {s.failed}, not selected {s.not_selected} "

    def _run(self) -> None:
        while not self._done.wait(self._interval):
            self._stream.write(self._line())
            self._stream.flush()

    def __exit__(self, *exc: Any) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
            self._stream.write(self._line() + "\n")
            self._stream.flush()
