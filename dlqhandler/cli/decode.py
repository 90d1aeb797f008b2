"""``dlqhandler decode FILE``: one line per message of a dmpmqmsg file.

Shows what runmqdlq would match on: the MQDLH reason, destination and original
format, the persistence and the length; a message that does not start with a
valid MQDLH says why. ``--format json`` prints one JSON object per line; for a
message whose MQDLH is followed by an MQRFH2 (a JMS message dead-lettered with its
properties in the data) the object holds its ``properties`` (name: type and value),
or ``properties_error`` saying what is wrong with the header and where. A dead
letter with the MQRFH2 in front of its MQDLH (got from a DLQ defined
``PROPCTL(FORCE)``) shows the MQDLH behind it and the header's ``properties``, and
``"rfh2_in_front": true``; a damaged header in front is the message's ``error``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._types import non_negative_int
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import DecodeError, DumpFormatError, MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq.constants import reason_name, value_to_name
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.mq.properties import Property, format_float
from dlqhandler.mq.rfh2 import MQFMT_RF_HEADER_2, decode_rfh2, dt_of, properties_of

__all__ = ["describe", "register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "decode",
        help=COMMANDS["decode"],
        description="Decode a dmpmqmsg (qload) file: index, MsgId, MQDLH reason, "
        "DestQName@DestQMgrName, original Format, persistence and length.",
    )
    parser.add_argument("file", help="a dmpmqmsg file ('-' for standard input)")
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text columns (default) or one JSON object per line",
    )
    parser.add_argument(
        "--limit", type=non_negative_int, metavar="N", help="stop after N messages (0 or more)"
    )
    parser.set_defaults(handler=run)


def describe(index: int, message: Message) -> dict[str, Any]:
    """The decoded summary of one message (what both output formats print)."""
    md = message.md
    row: dict[str, Any] = {"index": index, "msg_id": md.msg_id.hex().upper()}
    try:
        decoded = decode_dead_letter(md, message.body)
    except MalformedMessageError as exc:
        row["error"] = str(exc)
        return row
    dlh = decoded.dlh
    assert dlh is not None
    if md.format == MQFMT_RF_HEADER_2:
        row["rfh2_in_front"] = True  # i25: the MQRFH2 a PROPCTL(FORCE) DLQ puts first
        row["properties"] = _properties(decoded.properties)
    row.update(
        reason=dlh.reason,
        reason_name=reason_name(dlh.reason),
        dest_q_name=dlh.dest_q_name,
        dest_q_mgr_name=dlh.dest_q_mgr_name,
        format=dlh.format,
        persistence=md.persistence,
        length=len(message.body),
    )
    if dlh.format == MQFMT_RF_HEADER_2:  # i25: the properties of an MQRFH2 behind the MQDLH
        try:
            rfh2, _ = decode_rfh2(
                decoded.body,
                encoding=dlh.encoding,
                ccsid=dlh.coded_char_set_id,
                start=MQDLH_LENGTH_1,
            )
        except DecodeError as exc:
            row["properties_error"] = f"{exc} (at byte {exc.offset} of the message data)"
        else:
            row["properties"] = _properties(properties_of(rfh2.folders))
    return row


def _properties(props: Iterable[Property]) -> dict[str, Any]:
    return {p.name: {"type": dt_of(p.type), "value": _json_value(p.value)} for p in props}


def _json_value(value: object) -> object:
    """A property value as JSON holds it: bytes in hexadecimal, NaN and infinities as
    the text Java writes."""
    if isinstance(value, bytes):
        return value.hex().upper()
    if isinstance(value, float) and not math.isfinite(value):
        return format_float(value)
    return value


def _text(row: dict[str, Any]) -> str:
    head = f"{row['index']:>6}  {row['msg_id']}"
    if "error" in row:
        return f"{head}  no valid MQDLH: {row['error']}"
    persistence = value_to_name("MQPER", row["persistence"]) or str(row["persistence"])
    dest = f"{row['dest_q_name']}@{row['dest_q_mgr_name']}"
    return (
        f"{head}  {row['reason_name']:<28} {dest:<36} {row['format'] or '-':<8} "
        f"{persistence.removeprefix('MQPER_'):<14} {row['length']:>7}"
    )


def _rows(args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    source = sys.stdin.buffer if args.file == "-" else args.file
    for index, message in enumerate(read_dump(source, name=args.file), 1):
        if args.limit is not None and index > args.limit:
            return
        yield describe(index, message)


def run(args: argparse.Namespace) -> int:
    render: Callable[[dict[str, Any]], str] = _text if args.format == "text" else json.dumps
    out = sys.stdout
    try:
        for row in _rows(args):
            out.write(render(row) + "\n")
        out.flush()
    except DumpFormatError as exc:
        out.flush()
        print(f"dlqhandler decode: {exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except BrokenPipeError:
        raise  # `dlqhandler decode big.dmp | head`: the CLI's entry ends quietly
    except OSError as exc:
        print(f"dlqhandler decode: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return int(ExitCode.USAGE)
    return int(ExitCode.OK)
