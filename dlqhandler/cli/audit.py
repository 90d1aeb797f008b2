"""``dlqhandler audit``: print the audit records one-off actions left (browse only).

    dlqhandler audit [QMGR] [--since T] [--msgid HEX] [--format text|json]
                     [--audit-queue Q] [--backend embedded|ibmmq ...]

The records are browsed, never got: printing them changes nothing. ``--since``
takes a time (``2026-11-26``, ``2026-11-26T14:00``, UTC) or an age (``2h``, ``7d``:
that long ago); ``--msgid`` the dead letter's MsgId (hex). ``--format json``
prints one JSON object a line (the record as documented in
docs/one-off-actions.md, plus ``mq_user``).
"""

from __future__ import annotations

import argparse
import calendar
import json
import sys
import time
from typing import Any

from dlqhandler.acting import DEFAULT_AUDIT_QUEUE, read_audit
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._connect import add_connection_arguments, connect, connection_usage_problem
from dlqhandler.cli.exitcodes import ExitCode, for_mq_reason
from dlqhandler.config import load_settings
from dlqhandler.errors import ConfigError, MQIError
from dlqhandler.logs import configure_logging
from dlqhandler.mq.ages import parse_duration
from dlqhandler.mq.names import validate_qmgr_name, validate_queue_name
from dlqhandler.worker.selection import Selector

__all__ = ["register"]

_TIMES = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d")


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "audit",
        help=COMMANDS["audit"],
        description="Print the audit records on the audit queue, oldest first; nothing is removed.",
    )
    p.add_argument(
        "qmgr", nargs="?", metavar="QMGR", help="queue manager (default: the default one)"
    )
    p.add_argument(
        "--since",
        metavar="T",
        help="only records from T on: a UTC time (2026-11-26, 2026-11-26T14:00) or an age (2h, 7d)",
    )
    p.add_argument("--msgid", metavar="HEX", help="only the records of this dead letter")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json (one object a line)",
    )
    p.add_argument(
        "--audit-queue",
        default=DEFAULT_AUDIT_QUEUE,
        metavar="Q",
        help=f"the audit queue (default {DEFAULT_AUDIT_QUEUE})",
    )
    add_connection_arguments(p)
    p.set_defaults(handler=_audit)


def parse_since(text: str, now: float) -> float:
    """``--since``: a UTC time or an age; ConfigError saying which forms work."""
    for form in _TIMES:
        try:
            return float(calendar.timegm(time.strptime(text.strip().rstrip("Z"), form)))
        except ValueError:
            continue
    try:
        return now - parse_duration(text, "--since")
    except ConfigError as exc:
        if text.strip().startswith("-"):
            raise  # a negative age: parse_duration says so
        raise ConfigError(
            f"--since {text!r} is neither a UTC time (2026-11-26, "
            "2026-11-26T14:00) nor an age (2h, 7d)"
        ) from exc


def _safe(value: object) -> str:
    """A value for a text line: as is when printable, else JSON-escaped (untrusted)."""
    text = "" if value is None else str(value)
    return text if text.isprintable() else json.dumps(text)


def _line(r: dict[str, Any]) -> str:
    if "unreadable" in r:
        return f"(not an audit record: MsgId {r['unreadable']})"
    target = f" -> {_safe(r.get('target'))}" if r.get("target") else ""
    return (
        f"{_safe(r.get('time'))}  {_safe(r.get('os_user'))}/{_safe(r.get('mq_user'))}  "
        f"{_safe(r.get('action')):<7} msgid={_safe(r.get('msgid'))} "
        f"{_safe(r.get('dlh_reason_name'))} destq={_safe(r.get('destq'))}{target}  "
        f"{_safe(r.get('outcome'))}  reason={json.dumps(r.get('reason'))}"
    )


def _audit(args: argparse.Namespace) -> int:
    try:
        validate_queue_name(args.audit_queue, "--audit-queue")
        if args.qmgr:
            validate_qmgr_name(args.qmgr, "QMGR")
        since = parse_since(args.since, time.time()) if args.since else None
        msg_id = next(iter(Selector.parse([args.msgid], None).msg_ids)) if args.msgid else None
    except (ConfigError, ValueError) as exc:
        print(f"dlqhandler audit: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    problem = connection_usage_problem(args)
    if problem is not None:
        print(f"dlqhandler audit: {problem}", file=sys.stderr)
        return int(ExitCode.USAGE)
    settings = load_settings()
    configure_logging(level=settings.log_level)  # events to stderr: stdout is the records
    try:
        qmgr = connect(args, settings, args.qmgr or None)
    except (MQIError, ConfigError) as exc:
        print(f"dlqhandler audit: cannot connect to the queue manager: {exc}", file=sys.stderr)
        return int(ExitCode.CONNECTION_ERROR)
    try:
        q = qmgr.open(args.audit_queue, input=False, browse=True)
        try:
            for record in read_audit(q, since=since, msg_id=msg_id):
                print(
                    json.dumps(record, ensure_ascii=False)
                    if args.format == "json"
                    else _line(record)
                )
        finally:
            q.close()
    except MQIError as exc:
        print(f"dlqhandler audit: cannot browse {args.audit_queue}: {exc}", file=sys.stderr)
        return int(for_mq_reason(exc.reason))
    finally:
        qmgr.disconnect()
    return int(ExitCode.OK)
