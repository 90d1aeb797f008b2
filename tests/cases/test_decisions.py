"""`test` decides as the handler does: the same matcher, on the same message, for random
tables, messages and attempt counts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.acting.plan import PLAN_ERRORS, plan, refusal
from dlqhandler.cases import read_cases
from dlqhandler.cases.runner import coverage, outcome, run_cases
from dlqhandler.mq import Message
from dlqhandler.rules import Decision, Matcher, compile_rules, decide
from dlqhandler.worker import HandlerOptions
from tests.conformance.messages import build_message
from tests.rules.strategies import messages, tables


def _case_text(fields: dict[str, Any], attempts: int, expect: dict[str, Any]) -> str:
    message = ", ".join(f"{k}: {json.dumps(v)}" for k, v in fields.items())
    wanted = ", ".join(f"{k}: {json.dumps(v)}" for k, v in expect.items())
    return (
        "tests:\n  - name: random\n"
        f"    message: {{{message}}}\n    attempts: {attempts}\n    expect: {{{wanted}}}\n"
    )


def _refused_by_run(inputq: str | None, decision: Decision, message: Message) -> str | None:
    """The reason ``run``'s own planner (acting.plan, with run's default queues) refuses
    the decision for, or None (an IGNORE is not planned: the message stays)."""
    if decision.action.kind == "IGNORE":
        return None
    try:
        plan(
            decision,
            message,
            input_queue=inputq or "SYSTEM.DEAD.LETTER.QUEUE",
            local_qmgr="",
            max_hops=HandlerOptions("Q").max_hops,
            control_queues=HandlerOptions("Q").control.roles(),
        )
    except PLAN_ERRORS as exc:
        return refusal(exc)
    return None


@given(tables, messages(), st.integers(0, 8))
def test_the_case_decision_is_the_handlers(
    table: str, fields: dict[str, Any], attempts: int
) -> None:
    """A case's message, read from YAML, gets the decision the handler's matcher gives the
    same message built directly (cached and uncached matcher alike), and the refusal
    run's planner gives it (a RETRY to a blank DestQName...); a case expecting that
    decision passes, and one expecting another action fails."""
    ruleset = compile_rules(table).ruleset
    if ruleset is None:
        return
    handler = decide(ruleset, build_message(fields), attempts)
    uncached = Matcher(ruleset, cache_size=0)
    expect: dict[str, Any] = {
        "action": handler.action.kind,
        "rule": handler.rule.line if handler.rule is not None else "none",
    }
    refused = _refused_by_run(ruleset.control.inputq, handler, build_message(fields))
    if refused is not None:
        expect["refused"] = refused
    read = read_cases(_case_text(fields, attempts, expect), "random.yaml")
    assert read.ok, [str(d) for d in read.diagnostics]
    (case,) = read.cases
    got = outcome(Matcher(ruleset), case.message, case.attempts).decision
    assert (got.rule, got.action, got.matched_lines, got.implicit) == (
        handler.rule,
        handler.action,
        handler.matched_lines,
        handler.implicit,
    )
    assert uncached.decide(case.message, attempts) == got
    (result,) = run_cases(Matcher(ruleset), read.cases)
    assert result.passed
    other = next(a for a in ("RETRY", "FWD", "DISCARD", "IGNORE") if a != handler.action.kind)
    wrong = read_cases(_case_text(fields, attempts, {"action": other}), "wrong.yaml")
    (failed,) = run_cases(Matcher(ruleset), wrong.cases)
    assert failed.missed == (("action",) if refused is None else ("action", "refused"))
    counts = dict(coverage(ruleset, [result]).decided)
    assert sum(counts.values()) == (0 if handler.rule is None else 1)
