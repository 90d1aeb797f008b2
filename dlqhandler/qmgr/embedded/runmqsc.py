"""Run MQSC commands against an embedded queue manager, printing what runmqsc prints.

Supported: DEFINE/ALTER/DELETE/CLEAR/DISPLAY QLOCAL (DISPLAY QUEUE too, with
generic names, attribute lists, ALL and WHERE), DEFINE/ALTER/DELETE/DISPLAY
PROCESS, ALTER/DISPLAY/PING QMGR, SET/DELETE/DISPLAY AUTHREC and END.

Output follows runmqsc: a numbered echo of each command (``     1 : ...``),
the AMQ message, DISPLAY attributes in two 40-character columns, and the
closing summary (``N MQSC commands read.``...). One deliberate difference: a
DISPLAY that asks for attributes shows them after the object name without
``TYPE(QLOCAL)`` unless TYPE or ALL is asked for.

This module reads the commands, checks the object name, sends each command to
its object type's module (:mod:`.mqsc_queues`, :mod:`.mqsc_processes`,
:mod:`.mqsc_qmgr`, :mod:`.mqsc_authrecs`; what they share about attributes is
in :mod:`.mqsc_attrs`) and writes the echo, the messages and the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

from dlqhandler.errors import DLQHandlerError
from dlqhandler.qmgr.embedded.admin import Admin, AdminError, valid_name
from dlqhandler.qmgr.embedded.mqsc import Command, MQSCSyntaxError, parse, split_commands
from dlqhandler.qmgr.embedded.mqsc_attrs import Action, Planner, syntax
from dlqhandler.qmgr.embedded.mqsc_authrecs import AUTHREC_COMMANDS
from dlqhandler.qmgr.embedded.mqsc_models import MODEL_COMMANDS
from dlqhandler.qmgr.embedded.mqsc_processes import PROCESS_COMMANDS
from dlqhandler.qmgr.embedded.mqsc_qmgr import QMGR_COMMANDS
from dlqhandler.qmgr.embedded.mqsc_queues import QUEUE_COMMANDS

__all__ = ["Failure", "MQSCResult", "run_mqsc"]

_AMQ8405 = "AMQ8405I: Syntax error detected at or near end of command segment below:-"


@dataclass(frozen=True, slots=True)
class Failure:
    """A command that did not work: where it was and what runmqsc said."""

    number: int
    line: int
    text: str
    message: str
    syntax: bool


@dataclass(slots=True)
class MQSCResult:
    """Counts for runmqsc's summary, and every failure."""

    read: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def syntax_errors(self) -> int:
        return sum(1 for f in self.failures if f.syntax)

    @property
    def failed(self) -> int:
        return sum(1 for f in self.failures if not f.syntax)

    @property
    def ok(self) -> bool:
        return not self.failures


_PLANNERS: dict[tuple[str, str], Planner] = {
    **QUEUE_COMMANDS,
    **PROCESS_COMMANDS,
    **QMGR_COMMANDS,
    **AUTHREC_COMMANDS,
    **MODEL_COMMANDS,
}


def _plan(cmd: Command, admin: Admin | None) -> Action:
    """Check ``cmd`` now; the action it returns acts on ``admin`` when run."""
    if cmd.name is not None and "*" not in cmd.name and not valid_name(cmd.name):
        raise syntax(cmd, None, f"{cmd.name!r} is not a valid object name")
    if cmd.name is not None and "*" in cmd.name and cmd.verb != "DISPLAY":
        raise syntax(cmd, None, "a generic name is only valid on DISPLAY")
    planner = _PLANNERS.get((cmd.verb, cmd.objtype))
    if planner is None:
        raise syntax(cmd, None, f"{cmd.verb} {cmd.objtype} is not supported")

    def adm() -> Admin:
        assert admin is not None
        return admin

    return planner(cmd, adm)


def _summary(result: MQSCResult, *, verify: bool) -> list[str]:
    n = result.read
    lines = ["One MQSC command read." if n == 1 else f"{n} MQSC commands read."]
    s = result.syntax_errors
    lines.append(
        "No commands have a syntax error."
        if s == 0
        else "One command has a syntax error."
        if s == 1
        else f"{s} commands have a syntax error."
    )
    if not verify:
        f = result.failed
        lines.append(
            "All valid MQSC commands were processed."
            if f == 0
            else "One valid MQSC command could not be processed."
            if f == 1
            else f"{f} valid MQSC commands could not be processed."
        )
    return lines


def _one(admin: Admin | None, cmd: Command, *, verify: bool) -> list[str]:
    action = _plan(cmd, admin)
    return [] if verify else action()


def run_mqsc(
    source: str, admin: Admin | None, out: TextIO, *, qmgr_name: str, verify: bool = False
) -> MQSCResult:
    """Run (or with ``verify``, only check) MQSC text; write runmqsc's output to ``out``."""
    admin = None if verify else admin
    result = MQSCResult()
    out.write(f"Starting MQSC for queue manager {qmgr_name}.\n\n\n")
    for number, (line, text) in enumerate(split_commands(source), start=1):
        out.write(f"{number:6d} : {text}\n")
        lines: list[str]
        counted = False
        try:
            cmd = parse(text, line)
            if cmd.verb == "END":
                break
            result.read += 1
            counted = True
            lines = _one(admin, cmd, verify=verify)
        except MQSCSyntaxError as exc:
            result.read += 0 if counted else 1
            result.failures.append(Failure(number, line, text, exc.detail, syntax=True))
            lines = [_AMQ8405, exc.segment, f"({exc.detail})"]
        except AdminError as exc:
            result.failures.append(Failure(number, line, text, str(exc), syntax=False))
            lines = [str(exc)]
        except DLQHandlerError as exc:
            message = f"AMQ8101S: IBM MQ error has occurred: {exc}"
            result.failures.append(Failure(number, line, text, message, syntax=False))
            lines = [message]
        out.writelines(f"{x}\n" for x in lines)
    out.writelines(f"{x}\n" for x in _summary(result, verify=verify))
    return result
