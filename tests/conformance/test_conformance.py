"""The rules language as data: every case in ``tests/conformance/*.json``.

Each file is a list of groups::

    {"description": "...", "given": "rules text" | ["line", ...],
     "options": {"input_queue": "...", "triggered": true},   (optional)
     "cases": [case, ...]}

``given`` as a list is joined with newlines and ends with one. A case checks
one or more of:

* ``"ok": bool`` - the table compiles (no errors) or not;
* ``"diagnostics": [{"code", "line", "column"?, "severity"?, "message"?}]`` -
  exactly these diagnostics (``message`` is a substring), except that ``W505``
  (no catch-all) is ignored unless listed; ``"exact": false`` allows others;
* ``"ir": {"path.to[0].value": expected}`` - bits of ``RuleSet.to_json()``;
* ``"message": {KEYWORD: value}`` (see ``messages.DEFAULTS``), ``"attempts": n | [n, ...]`` and
  ``"decision": {"line", "action", "target"?: {"queue", "qmgr"}, "implicit"?,
  "matched"?}`` - what :func:`decide` chooses (``line`` null = implicit IGNORE).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.rules import CODES, PATTERN_FIELDS, compile_rules, decide, resolve_target
from dlqhandler.rules.keywords import ALL_KEYWORDS
from tests.conformance.messages import build_message

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("*.json"))


def _text(given: str | list[str]) -> str:
    return given if isinstance(given, str) else "\n".join(given) + "\n"


def _load() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    out = []
    for path in FILES:
        for g, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            for c, case in enumerate(group["cases"]):
                out.append((f"{path.stem}:{g}:{c}:{group['description'][:40]}", group, case))
    return out


RAW = _load()
CASES = [pytest.param(group, case, id=label) for label, group, case in RAW]


def ir_path(data: Any, path: str) -> Any:
    """``rules[0].predicates[1].pattern`` into the IR's JSON form."""
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        data = data[int(index)] if index else data[name]
    return data


def _check_diagnostics(result: Any, case: dict[str, Any]) -> None:
    expected = case["diagnostics"]
    listed = {e["code"] for e in expected}
    actual = [d for d in result.diagnostics if d.code in listed or d.code != "W505"]
    unmatched = list(actual)
    for e in expected:
        hit = next(
            (
                d
                for d in unmatched
                if d.code == e["code"]
                and d.line == e["line"]
                and e.get("column", d.column) == d.column
                and e.get("severity", d.severity) == d.severity
                and e.get("message", "") in d.message
            ),
            None,
        )
        assert hit is not None, f"expected {e}, got {[str(d) for d in result.diagnostics]}"
        unmatched.remove(hit)
    if case.get("exact", True):
        assert unmatched == [], f"unexpected {[str(d) for d in unmatched]}"


def _check_decision(result: Any, case: dict[str, Any]) -> None:
    assert result.ruleset is not None, [str(d) for d in result.diagnostics]
    message = build_message(case["message"])
    attempts = case.get("attempts", 0)
    want = case["decision"]
    for n in attempts if isinstance(attempts, list) else [attempts]:
        got = decide(result.ruleset, message, n)
        line = got.rule.line if got.rule is not None else None
        assert (line, got.action.kind) == (want["line"], want["action"]), f"attempts={n}"
        if "implicit" in want:
            assert got.implicit == want["implicit"]
        if "matched" in want:
            assert list(got.matched_lines) == want["matched"]
        if "target" in want:
            target = resolve_target(got.rule or got.action, message)
            assert {"queue": target.queue, "qmgr": target.qmgr} == want["target"]


@pytest.mark.parametrize(("group", "case"), CASES)
def test_conformance_case(group: dict[str, Any], case: dict[str, Any]) -> None:
    """A rules table compiles to the diagnostics, IR and decisions the case states."""
    options = group.get("options", {})
    result = compile_rules(_text(group["given"]), source="conformance", **options)
    if "ok" in case:
        assert result.ok == case["ok"], [str(d) for d in result.diagnostics]
    if "diagnostics" in case:
        _check_diagnostics(result, case)
    if "ir" in case:
        assert result.ruleset is not None, [str(d) for d in result.diagnostics]
        data = json.loads(result.ruleset.to_json())
        for path, value in case["ir"].items():
            assert ir_path(data, path) == value, path
    if "decision" in case:
        _check_decision(result, case)


def _all_cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(group, case) for _, group, case in RAW]


def test_every_diagnostic_code_has_a_conformance_case() -> None:
    """Each code in the diagnostics table is expected by at least one case."""
    seen = {d["code"] for _, case in _all_cases() for d in case.get("diagnostics", [])}
    assert set(CODES) - seen == set()


def test_every_keyword_appears_in_a_compiling_case() -> None:
    """Each keyword of the language is used by at least one table that compiles."""
    used: set[str] = set()
    for group, case in _all_cases():
        if case.get("ok") is True or "decision" in case or "ir" in case:
            text = _text(group["given"]).upper()
            used |= {k for k in ALL_KEYWORDS if re.search(rf"\b{k}\s*\(", text)}
    assert set(ALL_KEYWORDS) - used == set()


def test_every_pattern_field_is_decided_on() -> None:
    """Each pattern keyword takes part in at least one decision case."""
    used: set[str] = set()
    for group, case in _all_cases():
        if "decision" in case:
            text = _text(group["given"]).upper()
            used |= {k for k in PATTERN_FIELDS if re.search(rf"\b{k}\s*\(", text)}
    assert set(PATTERN_FIELDS) - used == set()
