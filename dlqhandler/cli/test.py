"""``dlqhandler test``: a rules table's intended behaviour, written as data, checked.

    dlqhandler test [TABLE] CASES.yaml [CASES.yaml ...] [--junit FILE] [--coverage]
                    [--fail-under PCT] [--format text|json] [RUN OPTIONS]
    dlqhandler test TABLE --generate DUMP [--output CASES.yaml] [--distinct] [RUN OPTIONS]

The first argument is the table unless it ends in ``.yaml`` or ``.yml``; without a TABLE,
each case file's ``rules:`` key (relative to the case file) names its table. The table is
read and compiled as ``lint`` and ``run`` do (:mod:`dlqhandler.cli._reading`); the case
files are read by :func:`dlqhandler.cases.read_cases`, their problems shown as ``lint``
shows a table's (``file:line:col``, the line, a caret, did-you-mean, control characters
escaped, at most ``--error-limit`` per file). Each case's message is decided by the
matcher ``run`` uses and its put planned as ``run`` plans it (:mod:`dlqhandler.cases.
runner`), for ``run`` started as the case file's ``run:`` key says, overridden by the RUN
OPTIONS (``--inputq``, ``--inputqm``, ``--status-queue``, ``--audit-queue``,
``--max-hops``); a table ``run`` would not start with so (:class:`~dlqhandler.acting.
ControlQueues`) runs no case.

Text output: a line per failed case, ``--coverage`` lines, and last ``N passed, M
failed``. Exit codes (:class:`~dlqhandler.cli.exitcodes.ExitCode`): ``OK`` (0) when every
case passes, ``FAILURE`` (1) when a case fails or coverage is under ``--fail-under``,
``USAGE`` (2) for a case file that is not valid or cannot be read (and bad arguments, and
a run that would not start),
``RULES_ERROR`` (3) when the table does not compile.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dlqhandler.acting import ControlQueues
from dlqhandler.cases import (
    CaseFile,
    Result,
    RunAs,
    RunSetup,
    check_rule_lines,
    coverage,
    generate_cases,
    read_cases,
    run_as,
    run_cases,
)
from dlqhandler.cases.diagnostics import case_diagnostic
from dlqhandler.cases.render import coverage_lines, failure_line, json_result, junit_xml
from dlqhandler.cli._commands import COMMANDS
from dlqhandler.cli._reading import ASSUMED_DEADQ, escape, omitted_line, read_table, render
from dlqhandler.cli._types import non_negative_int, positive_int, qmgr_name, queue_name
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats import read_dump
from dlqhandler.formats.dmpmqmsg import dump_origin
from dlqhandler.mq import Message
from dlqhandler.mq.groups import in_group
from dlqhandler.mq.message import decode_dead_letter
from dlqhandler.rules import (
    CompileResult,
    Diagnostic,
    Matcher,
    RuleSet,
    Severity,
    compile_rules,
)
from dlqhandler.rules.checks import RuleSite
from dlqhandler.rules.diagnostics import DEFAULT_DIAGNOSTIC_LIMIT
from dlqhandler.rules.lexer import source_lines

__all__ = ["register", "run"]

_PROG = "dlqhandler test"
_CASE_SUFFIXES = (".yaml", ".yml")


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 100:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{value:g} is not a percentage from 0 to 100")
    return value


def register(subparsers: Any) -> None:
    """Add the ``test`` subcommand."""
    p = subparsers.add_parser(
        "test",
        help=COMMANDS["test"],
        description="Check what a rules table does with the messages of case files "
        "(YAML), with the matcher `run` uses; or write today's decisions on a "
        "dmpmqmsg backlog as a case file (--generate). The first argument is the "
        "table unless it ends in .yaml or .yml; without it, each case file's rules: "
        "key names its table. See docs/test.md.",
    )
    p.add_argument(
        "files", nargs="+", metavar="TABLE|CASES.yaml", help="the rules table, then case files"
    )
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML (one testcase per case)")
    p.add_argument("--coverage", action="store_true", help="show how many cases each rule decided")
    p.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PCT",
        help="fail (exit 1) when fewer than PCT%% of the rules decided a case",
    )
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    p.add_argument(
        "--generate",
        metavar="DUMP",
        help="write cases from a dmpmqmsg file: today's decision for each message",
    )
    p.add_argument(
        "--output",
        metavar="CASES.yaml",
        help="with --generate: the file to write (default: stdout)",
    )
    p.add_argument(
        "--distinct",
        action="store_true",
        help="with --generate: one case per distinct decision path, not per message",
    )
    started = p.add_argument_group(
        "how run is started",
        "The queues and the hop limit of the `dlqhandler run` the cases hold the table to, "
        "over each case file's run: key (default: run's own, the table's INPUTQ/INPUTQM, "
        "else SYSTEM.DEAD.LETTER.QUEUE as the queue manager's DEADQ).",
    )
    started.add_argument("--inputq", type=queue_name, metavar="Q", help="run's INPUTQ")
    started.add_argument("--inputqm", type=qmgr_name, metavar="QM", help="run's INPUTQM")
    started.add_argument(
        "--status-queue", type=queue_name, metavar="Q", help="run's --status-queue"
    )
    started.add_argument("--audit-queue", type=queue_name, metavar="Q", help="run's --audit-queue")
    started.add_argument("--max-hops", type=positive_int, metavar="N", help="run's --max-hops")
    p.add_argument(
        "--error-limit",
        type=non_negative_int,
        default=DEFAULT_DIAGNOSTIC_LIMIT,
        metavar="N",
        help="show at most N problems per file, as lint does "
        f"(default {DEFAULT_DIAGNOSTIC_LIMIT}; 0: no limit)",
    )
    p.set_defaults(handler=run)


class _UsageError(Exception):
    """A bad command line or an unreadable file: said on stderr, exit 2."""


@dataclass
class _Table:
    """A rules table the cases run against, compiled once."""

    path: str  # as shown in failure lines
    ruleset: RuleSet
    matcher: Matcher
    sites: tuple[RuleSite, ...] = ()  # where each rule is written (its continuation lines)
    results: list[Result] = field(default_factory=list)


def run(args: argparse.Namespace) -> int:
    """Test the case files, or generate one; print the outcome; return the exit code."""
    try:
        if args.generate is not None:
            return _generate(args)
        return _test(args)
    except _UsageError as exc:
        print(f"{_PROG}: {escape(str(exc))}", file=sys.stderr)
        return int(ExitCode.USAGE)


def _split(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """(TABLE or None, case files) from the positional arguments."""
    files: list[str] = list(args.files)
    if args.generate is not None:
        if len(files) != 1 or files[0].lower().endswith(_CASE_SUFFIXES):
            raise _UsageError(
                "--generate DUMP takes the rules table alone: test TABLE --generate DUMP"
            )
        for option in ("junit", "coverage", "fail_under"):
            if getattr(args, option) not in (None, False):
                raise _UsageError(
                    f"--{option.replace('_', '-')} checks cases; it does not go with --generate"
                )
        return files[0], []
    if args.output is not None or args.distinct:
        raise _UsageError("--output and --distinct go with --generate DUMP")
    if files[0].lower().endswith(_CASE_SUFFIXES):
        return None, files
    if len(files) == 1:
        raise _UsageError(f"give a case file after the table: test {files[0]} CASES.yaml")
    return files[0], files[1:]


def _show(diagnostics: Sequence[Diagnostic], text: str) -> None:
    lines = source_lines(text)
    for d in diagnostics:
        print(render(d, lines), file=sys.stderr)


def _read_case_files(names: list[str], table_given: bool, limit: int | None) -> list[CaseFile]:
    read: list[CaseFile] = []
    for name in names:
        try:
            data = Path(name).read_bytes()
        except OSError as exc:
            raise _UsageError(f"cannot read case file {name}: {exc.strerror or exc}") from exc
        read.append(read_cases(data, name, table_given=table_given, limit=limit))
    return read


def _compile(name: str, limit: int | None, *, quiet: bool = False) -> CompileResult:
    """The compiled table, read and compiled as lint does. A table that does not compile
    has its diagnostics shown (unless ``quiet``) and raises :class:`_TableError`; one that
    cannot be read raises OSError."""
    table = read_table(name)
    shown = "<stdin>" if name == "-" else name
    result = compile_rules(table, source=shown, deadq=ASSUMED_DEADQ, max_diagnostics=limit)
    if result.ruleset is None and quiet:
        raise _TableError(f"{escape(shown)}: the table does not compile")
    if result.ruleset is None:
        _show(result.diagnostics, result.text)
        more = omitted_line(result, shown, how="`dlqhandler lint --error-limit 0` shows all")
        if more is not None:
            print(more, file=sys.stderr)
        errors = result.count(Severity.ERROR)
        raise _TableError(f"{escape(shown)}: {errors} errors; the table does not compile")
    return result


class _TableError(Exception):
    """A table that does not compile (its diagnostics already shown): exit 3."""


def _tables(
    table: str | None, files: list[CaseFile], limit: int | None, *, quiet: bool = False
) -> tuple[dict[str, _Table], list[str], list[Diagnostic]]:
    """Each case file's table (compiled once each), and problems naming a table that
    cannot be read (at the file's ``rules:`` key). ``quiet``: for case files that are not
    valid, whose problems these add to; a table that does not compile, or a TABLE that
    cannot be read, is then left out, said once the case files are valid."""
    compiled: dict[str, _Table] = {}
    names: list[str] = []
    problems: list[Diagnostic] = []
    for f in files:
        if table is not None:
            name = table
        elif f.rules is None:  # C108, reported by read_cases
            names.append("")
            continue
        else:
            name = os.path.normpath(Path(f.path).parent / f.rules)
            name = "./-" if name == "-" else name  # a file named -, never stdin
        names.append(name)
        if name in compiled:
            continue
        try:
            result = _compile(name, limit, quiet=quiet)
        except _TableError:
            if not quiet:
                raise
            continue
        except OSError as exc:
            if table is not None and quiet:
                continue
            if table is not None:
                raise _UsageError(
                    f"cannot read rules table {table}: {exc.strerror or exc}"
                ) from exc
            at = f.rules_at
            assert at is not None
            problems.append(
                case_diagnostic(
                    "C109",
                    f.path,
                    at.line,
                    at.column,
                    end_column=at.end_column,
                    table=name,
                    why=exc.strerror or str(exc),
                )
            )
            continue
        assert result.ruleset is not None
        compiled[name] = _Table(name, result.ruleset, Matcher(result.ruleset), result.sites)
    return compiled, names, problems


def _test(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    limit = args.error_limit or None
    table, names = _split(args)
    if args.junit is not None:
        for name in [*names, *([table] if table is not None else [])]:
            if name != "-" and _same_file(args.junit, name):
                raise _UsageError(f"--junit {args.junit} is {name}: it would be overwritten")
    files = _read_case_files(names, table is not None, limit)
    bad = [f for f in files if not f.ok]
    if bad:
        # every problem, not the first: the rules: tables and rule lines are checked too
        tables, table_of, problems = _tables(table, files, limit, quiet=True)
        for f, name in zip(files, table_of, strict=True):
            if name in tables:
                problems += check_rule_lines(
                    f, tables[name].ruleset, name, sites=tables[name].sites
                )
        return _invalid(files, args, problems)
    try:
        tables, table_of, problems = _tables(table, files, limit)
    except _TableError as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        if args.format == "json":
            error = {"error": str(exc), "passed": 0, "failed": 0}
            print(json.dumps(error))
        return int(ExitCode.RULES_ERROR)
    for f, name in zip(files, table_of, strict=True):
        if name in tables:
            problems += check_rule_lines(f, tables[name].ruleset, name, sites=tables[name].sites)
    if problems:
        by_file = {f.path: f for f in files}
        for path in dict.fromkeys(d.path for d in problems):
            _show([d for d in problems if d.path == path], by_file[path].text)
        return _summary_of_invalid(len(problems), args, problems)
    hows = [
        run_as(_given(args).over(f.run), tables[name].ruleset.control)
        for f, name in zip(files, table_of, strict=True)
    ]
    refused = [
        (f, why)
        for f, name, how in zip(files, table_of, hows, strict=True)
        for why in _start_refusals(how, tables[name].ruleset, name)
    ]
    if refused:
        for f, why in refused:
            print(escape(f"{_PROG}: {f.path}: run would not start: {why}"), file=sys.stderr)
        print(f"{_PROG}: no case was run", file=sys.stderr)
        if args.format == "json":
            errors = [{"path": f.path, "run_would_not_start": why} for f, why in refused]
            print(json.dumps({"errors": errors, "passed": 0, "failed": 0}, indent=2))
        return int(ExitCode.USAGE)
    suites: list[tuple[str, str, list[Result]]] = []
    for f, name, how in zip(files, table_of, hows, strict=True):
        t = tables[name]
        results = run_cases(t.matcher, f.cases, how)
        t.results += results
        suites.append((f.path, name, results))
    return _report(args, tables, suites, time.perf_counter() - started, hows)


def _given(args: argparse.Namespace) -> RunSetup:
    """How run is started, as the command line's options say (None: not said)."""
    return RunSetup(args.inputq, args.inputqm, args.status_queue, args.audit_queue, args.max_hops)


def _from_dump(given: RunSetup, ruleset: RuleSet, dump: str) -> RunSetup:
    """``given``, with the queue manager and queue the dump was unloaded from (its
    ``* Qmgr``/``* Queue`` header lines) as INPUTQ and INPUTQM where neither the command
    line nor the table names them, as the drain takes them: the cases are then of ``run``
    on that queue manager, and a put back onto its DLQ is refused as ``run`` refuses it
    (without INPUTQM such a case could not be decided)."""
    if dump == "-":
        return given
    try:
        origin = dump_origin(dump)
    except OSError:
        return given  # reading the dump says so
    if origin is None:
        return given
    qmgr, queue = origin
    inputq = given.inputq or ruleset.control.inputq or None
    named_qm = not (given.inputqm or ruleset.control.inputqm) and qmgr and inputq in (None, queue)
    return dataclasses.replace(
        given,
        inputq=given.inputq if inputq is not None else queue,
        inputqm=qmgr if named_qm else given.inputqm,
    )


def _start_refusals(how: RunAs, ruleset: RuleSet, table: str) -> list[str]:
    """Why ``run`` started as ``how`` says would refuse this table before moving anything
    (exit 2, as ``run``): the input DLQ, status and audit queues not three queues, or a
    rule forwarding to a control queue outright (:meth:`ControlQueues.refusals`)."""
    control = ControlQueues(how.input_queue, how.status_queue, how.audit_queue)
    return control.refusals(ruleset.rules, source=table)


def _invalid(files: list[CaseFile], args: argparse.Namespace, more: list[Diagnostic]) -> int:
    """Show every problem of the case files (``more``: those found with their tables, a
    ``rules:`` that cannot be read, a ``rule:`` line where no rule starts), by file and
    line; exit 2."""
    count = 0
    every: list[Diagnostic] = []
    for f in files:
        found = sorted(
            [*f.diagnostics, *(d for d in more if d.path == f.path)],
            key=lambda d: (d.line, d.column),
        )
        if not found and f.ok:
            continue
        limit = args.error_limit or None
        left_out = Counter(f.omitted)
        if limit is not None and len(found) > limit:  # --error-limit, per file
            left_out.update(d.code for d in found[limit:])
            found = found[:limit]
        _show(found, f.text)
        omitted = omitted_line_of(replace(f, omitted=dict(left_out)))
        if omitted is not None:
            print(omitted, file=sys.stderr)
        count += len(found) + left_out.total()
        every += found
    return _summary_of_invalid(count, args, every)


def omitted_line_of(f: CaseFile) -> str | None:
    """The case-file twin of :func:`~dlqhandler.cli._reading.omitted_line`."""
    if not f.omitted:
        return None
    by_code = ", ".join(f"{code} x{n}" for code, n in sorted(f.omitted.items()))
    n = sum(f.omitted.values())
    return f"{escape(f.path)}: {n} more problems not shown ({by_code}); --error-limit 0 shows all"


def _summary_of_invalid(count: int, args: argparse.Namespace, shown: list[Diagnostic]) -> int:
    problems = "problem" if count == 1 else "problems"
    print(f"{_PROG}: {count} {problems} in case files; no case was run", file=sys.stderr)
    if args.format == "json":
        print(
            json.dumps(
                {"errors": [_json_diagnostic(d) for d in shown], "passed": 0, "failed": 0}, indent=2
            )
        )
    return int(ExitCode.USAGE)


def _json_diagnostic(d: Diagnostic) -> dict[str, Any]:
    return {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "code": d.code,
        "message": d.message,
        "hint": d.hint,
    }


def _report(
    args: argparse.Namespace,
    tables: dict[str, _Table],
    suites: list[tuple[str, str, list[Result]]],
    seconds: float,
    hows: list[RunAs],
) -> int:
    passed = sum(r.passed for _, _, rs in suites for r in rs)
    failed = sum(not r.passed for _, _, rs in suites for r in rs)
    covs = {name: coverage(t.ruleset, t.results) for name, t in tables.items()}
    under = [
        name
        for name, c in covs.items()
        if args.fail_under is not None and c.percent < args.fail_under
    ]
    if args.junit is not None:
        if any(_same_file(args.junit, name) for name in tables):  # a table named by rules:
            raise _UsageError(f"--junit {args.junit} is a rules table: it would be overwritten")
        _write(args.junit, junit_xml(suites, escape, seconds))
    if args.format == "json":
        out: dict[str, Any] = {
            "files": [
                {
                    "path": p,
                    "table": t,
                    "run": dataclasses.asdict(how),
                    "cases": [json_result(r) for r in rs],
                }
                for (p, t, rs), how in zip(suites, hows, strict=True)
            ],
            "passed": passed,
            "failed": failed,
        }
        if args.coverage or args.fail_under is not None:
            out["coverage"] = [
                {
                    "table": name,
                    "rules": [{"line": line, "cases": n} for line, n in c.decided],
                    "covered": c.covered,
                    "total": len(c.decided),
                    "percent": round(c.percent, 2),
                    "unreached": list(c.unreached),
                    "under_fail_under": name in under,
                }
                for name, c in covs.items()
            ]
        print(json.dumps(out, indent=2))
    else:
        for path, table, results in suites:
            for r in results:
                if not r.passed:
                    print(failure_line(path, r, table, escape))
        if args.coverage:
            for name, c in covs.items():
                print("\n".join(coverage_lines(tables[name].ruleset, c, name, escape)))
        for name in under:
            print(
                escape(
                    f"coverage of {name} is {covs[name].percent:.1f}%, under --fail-under "
                    f"{args.fail_under:g}%"
                )
            )
        print(f"{passed} passed, {failed} failed")
    return int(ExitCode.FAILURE if failed or under else ExitCode.OK)


def _write(name: str, data: bytes) -> None:
    """Write a file whole or not at all (a temporary file beside it, then renamed)."""
    target = Path(name)
    try:
        fd, aside = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(aside, target)
        except BaseException:
            Path(aside).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise _UsageError(f"cannot write {name}: {exc.strerror or exc}") from exc


def _dead_letters(path: str, skipped: dict[str, int]) -> Iterator[Message]:
    """The messages of a dmpmqmsg file, MQDLH decoded as ``run`` decodes a got one;
    a message that does not start with one is counted and left out, but for a group
    member (given as read: its group stays whole, which generate_cases says)."""
    for raw in read_dump(path):
        try:
            yield decode_dead_letter(raw.md, raw.body, raw.properties)
        except MalformedMessageError:
            if in_group(raw.md):  # its group stays whole: generate_cases leaves it out
                yield raw
                continue
            skipped["no MQDLH"] = skipped.get("no MQDLH", 0) + 1


def _same_file(a: str, b: str) -> bool:
    """Whether two names are one existing file (a name that does not exist is no other)."""
    try:
        same = os.path.samefile(a, b)
    except OSError:
        same = False
    return same


def _generate(args: argparse.Namespace) -> int:
    table, _ = _split(args)
    assert table is not None
    limit = args.error_limit or None
    if args.output is not None:
        for other, what in ((table, "the rules table"), (args.generate, "the dump")):
            if other != "-" and _same_file(args.output, other):
                raise _UsageError(f"--output {args.output} is {what}: it would be overwritten")
    try:
        ruleset = _compile(table, limit).ruleset
        assert ruleset is not None
    except OSError as exc:
        raise _UsageError(f"cannot read rules table {table}: {exc.strerror or exc}") from exc
    except _TableError as exc:
        print(f"{_PROG}: {exc}", file=sys.stderr)
        return int(ExitCode.RULES_ERROR)
    setup = _from_dump(_given(args), ruleset, args.generate)
    refused = _start_refusals(run_as(setup, ruleset.control), ruleset, table)
    if refused:  # the cases would be of a run that does not start: none is written
        for why in refused:
            print(escape(f"{_PROG}: run would not start: {why}"), file=sys.stderr)
        return int(ExitCode.USAGE)
    # Relative to the file written; on stdout, whose file may be saved anywhere, absolute
    # (a relative name would then name another table, or none).
    if table == "-":
        rules = None
    elif args.output is not None:
        rules = os.path.relpath(table, Path(args.output).parent)
    else:
        rules = os.path.abspath(table)
    skipped: dict[str, int] = {}
    try:
        generated = generate_cases(
            Matcher(ruleset),
            _dead_letters(args.generate, skipped),
            rules=rules,
            source=args.generate,
            table=table,
            distinct=args.distinct,
            setup=setup,
        )
    except OSError as exc:
        raise _UsageError(f"cannot read {args.generate}: {exc.strerror or exc}") from exc
    left = sum(skipped.values())  # not dead letters: never given to generate_cases
    for why, n in generated.skipped.items():
        skipped[why] = skipped.get(why, 0) + n
    out = sum(skipped.values())  # every message left out, by the reader or generate_cases
    note = ", ".join(f"{n} {why}" for why, n in skipped.items())
    if not generated.cases:  # `tests: []` would pass whatever the table does
        print(
            escape(
                f"{_PROG}: no case from the {generated.messages + left} messages of "
                f"{args.generate}: every one was left out ({note}); nothing written"
            ),
            file=sys.stderr,
        )
        return int(ExitCode.FAILURE)
    problem = _round_trip_problem(generated.text, ruleset)
    if problem is not None:
        print(f"{_PROG}: {escape(problem)}; nothing written", file=sys.stderr)
        return int(ExitCode.FAILURE)
    if args.output is None:
        sys.stdout.write(generated.text)
    else:
        _write(args.output, generated.text.encode("utf-8"))
    print(
        escape(
            f"{_PROG}: {generated.cases} cases from {generated.messages + left} messages of "
            f"{args.generate}"
            + (f" to {args.output}" if args.output else "")
            + (f"; {out} left out ({note})" if out else "")
        ),
        file=sys.stderr,
    )
    return int(ExitCode.OK)


def _round_trip_problem(text: str, ruleset: RuleSet) -> str | None:
    """Why the generated cases do not read back and pass (with the ``run:`` they were
    written with), or None: a snapshot that does not hold would be a bug, said before
    anything is written."""
    read = read_cases(text, "<generated>")
    if not read.ok:
        return f"the generated cases do not read back: {read.diagnostics[0]}"
    for r in run_cases(Matcher(ruleset), read.cases, run_as(read.run, ruleset.control)):
        if not r.passed:
            return f"a generated case does not pass: {failure_line('<generated>', r, '', escape)}"
    return None
