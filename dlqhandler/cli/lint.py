"""``dlqhandler lint``: check rules tables and report every problem.

Text output, one block per diagnostic::

    rules/x.rul:3:14: error[E101]: unknown keyword RETRIES
      REASON(2053) RETRIES(3) ACTION(RETRY)
                   ^~~~~~~~~~
      hint: did you mean RETRY?

then ``N errors, M warnings in K files``. As compilers do (clang's
``-ferror-limit``), only the first 100 diagnostics of a file are shown, by position, then
how many more there are, by code; ``--error-limit N`` shows more (0: all). Beyond the limit
diagnostics are counted, not kept, so a file of junk costs bounded memory. Control
characters in the echoed source (an ESC in a table) are shown escaped (``\x1b``), never
sent raw to the terminal. ``--format json`` prints
``{"files": [{"path", "rules", "diagnostics": [{"line", "column", "severity",
"code", "message"}]}]}`` (and ``"omitted": {code: count}`` in a file with more
diagnostics than the limit). Exit 0 without errors (warnings allowed unless
``--strict``), 1 with errors, 2 for usage errors or unreadable files. ``-``
reads the table from stdin, as runmqdlq does.

Lint and ``run`` read and check a table the same way: the file's bytes go to
:func:`~dlqhandler.rules.compile_rules` (the encoding rule is
:mod:`dlqhandler.rules.source`'s: UTF-8; other bytes are a warning in a
comment, an error elsewhere, at line:column), with the input queue ``run``
would use for the loop warning W504: ``--input-queue``, else the table's
INPUTQ, else ``SYSTEM.DEAD.LETTER.QUEUE`` (the usual DEADQ).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from typing import Any

from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._reading import ASSUMED_DEADQ, escape, omitted_line, read_table, render
from dlqhandler.cli._types import non_negative_int, queue_name
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.rules import CompileResult, Diagnostic, Severity, compile_rules, explain
from dlqhandler.rules.diagnostics import CODES, DEFAULT_DIAGNOSTIC_LIMIT
from dlqhandler.rules.lexer import source_lines

__all__ = ["ASSUMED_DEADQ", "escape", "omitted_line", "read_table", "register", "render", "run"]

CATCH_ALL_CODE = "W505"


def register(subparsers: Any) -> None:
    """Add the ``lint`` subcommand."""
    p = subparsers.add_parser(
        "lint",
        help=COMMANDS["lint"],
        description="Check runmqdlq rules tables; report every problem with file, line, "
        "column, a stable code and a hint.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="rules table; '-' reads stdin")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    p.add_argument("--strict", action="store_true", help="warnings also fail (exit 1)")
    p.add_argument(
        "--require-catch-all",
        action="store_true",
        help=f"a missing final catch-all FWD rule ({CATCH_ALL_CODE}) is an error",
    )
    p.add_argument(
        "--input-queue",
        metavar="Q",
        type=queue_name,
        help="the dead-letter queue the handler reads (to detect forwarding "
        f"loops; default: the table's INPUTQ, else {ASSUMED_DEADQ})",
    )
    p.add_argument(
        "--triggered",
        action="store_true",
        help="the handler is started by triggering: warn about leftover messages",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="print each compiled rule: pattern, action, and how it is reached",
    )
    p.add_argument(
        "--error-limit",
        type=non_negative_int,
        default=DEFAULT_DIAGNOSTIC_LIMIT,
        metavar="N",
        help="show at most N diagnostics (errors and warnings) per file, then "
        "count the rest, as clang's -ferror-limit (default "
        f"{DEFAULT_DIAGNOSTIC_LIMIT}; 0: no limit)",
    )
    p.set_defaults(handler=run)


@dataclass(frozen=True, slots=True)
class _Checked:
    path: str
    result: CompileResult
    diagnostics: tuple[Diagnostic, ...]  # the ones kept (at most --error-limit)
    errors: int  # every error, shown or not
    warnings: int


def _check(name: str, table: bytes | str, args: argparse.Namespace) -> _Checked:
    path = "<stdin>" if name == "-" else name
    result = compile_rules(
        table,
        source=path,
        input_queue=args.input_queue,
        deadq=ASSUMED_DEADQ,
        triggered=args.triggered,
        max_diagnostics=args.error_limit or None,
    )
    diags = result.diagnostics
    if args.require_catch_all:
        diags = tuple(
            replace(d, severity=Severity.ERROR) if d.code == CATCH_ALL_CODE else d for d in diags
        )
    errors = warnings = 0
    for code, n in result.omitted.items():
        if CODES[code].severity == Severity.ERROR or (
            args.require_catch_all and code == CATCH_ALL_CODE
        ):
            errors += n
        else:
            warnings += n
    errors += sum(d.severity == Severity.ERROR for d in diags)
    warnings += sum(d.severity == Severity.WARNING for d in diags)
    return _Checked(path, result, diags, errors, warnings)


def run(args: argparse.Namespace) -> int:
    """Lint every file; print the report; return the exit code."""
    checked: list[_Checked] = []
    unreadable = False
    for name in args.files:
        try:
            table = read_table(name)
        except OSError as exc:
            print(f"dlqhandler lint: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
            unreadable = True
            continue
        checked.append(_check(name, table, args))
    if args.format == "json":
        _print_json(checked, args.explain)
    else:
        _print_text(checked, args.explain)
    if unreadable:
        return int(ExitCode.USAGE)
    errors = sum(c.errors for c in checked)
    warnings = sum(c.warnings for c in checked)
    if errors or (args.strict and warnings):
        return int(ExitCode.FAILURE)
    return int(ExitCode.OK)


def _print_text(checked: list[_Checked], with_explain: bool) -> None:
    errors = warnings = 0
    for c in checked:
        lines = source_lines(c.result.text)
        for d in c.diagnostics:
            print(render(d, lines))
        more = omitted_line(c.result, c.path)
        if more is not None:
            print(more)
        errors += c.errors
        warnings += c.warnings
        if with_explain and c.result.ruleset is not None:
            print(explain(c.result.ruleset), end="")
    print(f"{errors} errors, {warnings} warnings in {len(checked)} files")


def _print_json(checked: list[_Checked], with_explain: bool) -> None:
    files: list[dict[str, Any]] = []
    for c in checked:
        rs = c.result.ruleset
        entry: dict[str, Any] = {
            "path": c.path,
            "rules": len(rs.rules) if rs is not None else None,
            "diagnostics": [
                {
                    "line": d.line,
                    "column": d.column,
                    "severity": str(d.severity),
                    "code": d.code,
                    "message": d.message,
                }
                for d in c.diagnostics
            ],
        }
        if c.result.omitted:
            entry["omitted"] = dict(sorted(c.result.omitted.items()))
        if with_explain and rs is not None:
            entry["ruleset"] = json.loads(rs.to_json())
        files.append(entry)
    print(json.dumps({"files": files}, indent=2))
