"""Cases results as words: a failure line, the coverage lines, JUnit XML and JSON data.

A failure names the case file and line, the case, what was expected and what the table
did, with the deciding rule's ``file:line``::

    cases.yaml:12: FAIL a full queue is retried: expected RETRY (rule at demo.rul:3),
        got FWD DEADQ.MANUAL (demo.rul:7)

(one line; cut here to fit).

Text from files (case names, queue names, the table's path) can hold control characters:
the caller passes ``escape`` (the command line's, which shows them as ``\\xNN``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Any

from dlqhandler.cases.model import Expect
from dlqhandler.cases.runner import Coverage, Outcome, Result
from dlqhandler.rules import RuleSet

__all__ = ["coverage_lines", "expected", "failure_line", "got", "json_result", "junit_xml"]

Escape = Callable[[str], str]


def _target(queue: str | None, qmgr: str | None) -> str:
    if queue is None:
        return f" @{qmgr}" if qmgr else ""
    return f" {queue}@{qmgr}" if qmgr else f" {queue}"


def _header(header: bool | None) -> str:
    return "" if header is None else f" HEADER({'YES' if header else 'NO'})"


def expected(e: Expect, table: str) -> str:
    """What a case expects, in words (``RETRY (rule at demo.rul:3)``)."""
    out = e.action + _target(e.fwdq, e.fwdqm) + _header(e.header)
    if e.putaut is not None:
        out += f" PUTAUT({e.putaut})"
    if e.refused is not None:
        out += f" refused by run as {e.refused}"
    if e.rule == "none":
        return out + " (implicit IGNORE: no rule)"
    if e.rule is not None:
        return out + f" (rule at {table}:{e.rule})"
    return out


def got(o: Outcome, table: str, e: Expect | None = None) -> str:
    """What the table did, in words (``FWD DEADQ.MANUAL (demo.rul:7)``); the queue manager
    and the header when the expectation states them."""
    action = o.decision.action
    out: str = action.kind
    if action.kind == "FWD" and o.target is not None:
        show_qmgr = e is not None and e.fwdqm is not None
        out += _target(o.target.queue, o.target.qmgr if show_qmgr else None)
    if o.refusal is not None:
        out += f" refused by run as {o.refusal} ({o.target_problem})"
    if o.depends_on_qmgr is not None:
        out += f" ({o.depends_on_qmgr})"
    if action.kind == "FWD" and e is not None and e.header is not None:
        out += _header(action.header)
    if action.kind in ("RETRY", "FWD") and e is not None and e.putaut is not None:
        out += f" PUTAUT({action.putaut})"
    if o.rule_line is None:
        return out + " (implicit IGNORE: no rule)"
    return out + f" ({table}:{o.rule_line})"


def failure_line(path: str, r: Result, table: str, escape: Escape) -> str:
    """``path:line:column: FAIL name: expected ..., got ...`` (where the case starts, as
    editors and CI annotations read a compiler's messages)."""
    return escape(
        f"{path}:{r.case.line}:{r.case.column}: FAIL {r.case.name}: "
        f"expected {expected(r.case.expect, table)}, got {got(r.outcome, table, r.case.expect)}"
    )


def coverage_lines(ruleset: RuleSet, cov: Coverage, table: str, escape: Escape) -> list[str]:
    """Each rule with the cases it decided, then the rules no case reaches."""
    width = max((len(str(line)) for line, _ in cov.decided), default=1)
    texts = {rule.line: rule.text for rule in ruleset.rules}
    refused = dict(cov.refused)
    head = f"coverage of {table}: {cov.covered} of {len(cov.decided)} rules decided a case"
    lines = [f"{head} ({cov.percent:.1f}%)"]
    for line, n in cov.decided:
        cases = "case " if n == 1 else "cases"
        but = f" ({refused[line]} refused by run)" if line in refused else ""
        lines.append(f"  {table}:{line:<{width}}  {n:>6} {cases}  {texts[line]}{but}")
    none = [line for line, n in cov.decided if not n]
    if none:
        lines.append(f"  rules no case reaches: {', '.join(str(n) for n in none)}")
    only = [line for line in cov.unreached if line not in none]
    if only:
        lines.append(
            f"  rules whose every case run refuses (not covered): {', '.join(map(str, only))}"
        )
    return [escape(s) for s in lines]


def json_result(r: Result) -> dict[str, Any]:
    """A case result for ``--format json``."""
    e, o = r.case.expect, r.outcome
    action = o.decision.action
    return {
        "name": r.case.name,
        "line": r.case.line,
        "column": r.case.column,
        "passed": r.passed,
        "missed": list(r.missed),
        "expected": {
            "action": e.action,
            "rule": e.rule,
            "fwdq": e.fwdq,
            "fwdqm": e.fwdqm,
            "header": None if e.header is None else ("YES" if e.header else "NO"),
            "refused": e.refused,
            "putaut": e.putaut,
        },
        "got": {
            "action": action.kind,
            "rule": o.rule_line if o.rule_line is not None else "none",
            "fwdq": o.target.queue if o.target is not None else None,
            "fwdqm": o.target.qmgr if o.target is not None else None,
            "header": ("YES" if action.header else "NO") if action.kind == "FWD" else None,
            "refused": o.refusal,
            "putaut": action.putaut if action.kind in ("RETRY", "FWD") else None,
            "target_problem": o.target_problem,
            "depends_on_qmgr": o.depends_on_qmgr,
            "matched": list(o.decision.matched_lines),
        },
    }


def junit_xml(
    suites: Sequence[tuple[str, str, Sequence[Result]]], escape: Escape, seconds: float
) -> bytes:
    """JUnit XML: one ``testsuite`` per case file (path, table, results), one
    ``testcase`` per case, a ``failure`` for each failed one."""
    root = ET.Element("testsuites", name="dlqhandler test")
    total = failed = 0
    for path, table, results in suites:
        bad = sum(not r.passed for r in results)
        total += len(results)
        failed += bad
        suite = ET.SubElement(
            root,
            "testsuite",
            name=escape(path),
            tests=str(len(results)),
            failures=str(bad),
            errors="0",
            skipped="0",
        )
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                name=escape(r.case.name),
                classname=escape(path),
                file=escape(path),
                line=str(r.case.line),
            )
            if not r.passed:
                text = failure_line(path, r, table, escape)
                failure = ET.SubElement(
                    case, "failure", message=text, type="missed " + ",".join(r.missed)
                )
                failure.text = text
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", "0")
    root.set("time", f"{seconds:.3f}")
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True)) + b"\n"
