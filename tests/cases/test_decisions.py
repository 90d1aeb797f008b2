"""`test` decides as the handler does: the same matcher, on the same message, for random
tables, messages and attempt counts."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from dlqhandler.acting.plan import PLAN_ERRORS, plan, refusal
from dlqhandler.cases import read_cases
from dlqhandler.cases.runner import coverage, outcome, run_as, run_cases
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


_RUN_ACTIONS = [
    "ACTION(RETRY)",
    "ACTION(RETRY) PUTAUT(CTX)",
    "ACTION(FWD) FWDQ(X)",
    "ACTION(FWD) FWDQ(X) HEADER(NO)",
    "ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM) HEADER(NO)",
    "ACTION(FWD) FWDQ(MY.DLQ) FWDQM(&DESTQM)",
    "ACTION(FWD) FWDQ(&DESTQ) PUTAUT(CTX)",
    "ACTION(DISCARD)",
]
_QUEUES = ["", "A", "MY.DLQ", "MY.STATUS", "SYSTEM.DEAD.LETTER.QUEUE", "DLQHANDLER.AUDIT"]


@st.composite
def _run_tables(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        reason = draw(st.sampled_from(["", "REASON(2053) ", "DESTQM(QM1) "]))
        lines.append(reason + draw(st.sampled_from(_RUN_ACTIONS)))
    return "\n".join(lines) + "\n"


@settings(max_examples=400)
@given(
    _run_tables(),
    st.fixed_dictionaries(
        {
            "REASON": st.sampled_from([2053, 2035]),
            "DESTQ": st.sampled_from(_QUEUES),
            "DESTQM": st.sampled_from(["", "QM1", "QM2"]),
            "USERID": st.sampled_from(["", "app1", "a b"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "inputq": st.sampled_from([None, "MY.DLQ"]),
            "inputqm": st.sampled_from([None, "QM1"]),
            "status_queue": st.sampled_from([None, "MY.STATUS"]),
            "max_hops": st.integers(1, 4),
        }
    ),
    st.integers(1, 4),
)
@example(  # a RETRY to the status queue run is given
    "ACTION(RETRY)\n",
    {"REASON": 2053, "DESTQ": "MY.STATUS", "DESTQM": "", "USERID": ""},
    {"inputq": None, "inputqm": None, "status_queue": "MY.STATUS", "max_hops": 4},
    1,
)
@example(  # a FWD to the input DLQ on the local queue manager named by INPUTQM
    "ACTION(FWD) FWDQ(MY.DLQ) FWDQM(&DESTQM)\n",
    {"REASON": 2053, "DESTQ": "A", "DESTQM": "QM1", "USERID": ""},
    {"inputq": "MY.DLQ", "inputqm": "QM1", "status_queue": None, "max_hops": 4},
    1,
)
@example(  # HEADER(NO) puts one MQDLH fewer than the message carries
    "ACTION(FWD) FWDQ(X) HEADER(NO)\n",
    {"REASON": 2053, "DESTQ": "A", "DESTQM": "", "USERID": ""},
    {"inputq": None, "inputqm": None, "status_queue": None, "max_hops": 3},
    3,
)
@example(  # PUTAUT(CTX) with a user id that has a blank in it
    "ACTION(RETRY) PUTAUT(CTX)\n",
    {"REASON": 2053, "DESTQ": "A", "DESTQM": "", "USERID": "a b"},
    {"inputq": None, "inputqm": None, "status_queue": None, "max_hops": 4},
    1,
)
def test_a_case_is_planned_as_run_plans_it(
    table: str, fields: dict[str, Any], setup: dict[str, Any], hops: int
) -> None:
    """For random tables, messages (with HOPS MQDLHs), and ways ``run`` is started
    (INPUTQ, INPUTQM, --status-queue, --max-hops), a case's outcome is what run's own
    planner (acting.plan, with the HandlerOptions run builds) makes of the same message:
    the same refusal reason, or the same queue and queue manager."""
    ruleset = compile_rules(table).ruleset
    assert ruleset is not None
    message = build_message(fields)
    for _ in range(hops - 1):
        assert message.dlh is not None
        message = Message.dead_letter(
            message.md,
            message.body,
            reason=message.dlh.reason,
            dest_q_name=message.dlh.dest_q_name,
            dest_q_mgr_name=message.dlh.dest_q_mgr_name,
        )
    decision = decide(ruleset, message, 0)
    given_setup = {k: v for k, v in setup.items() if v is not None}
    options = HandlerOptions(
        setup["inputq"] or "SYSTEM.DEAD.LETTER.QUEUE",
        max_hops=setup["max_hops"],
        **({"status_queue": setup["status_queue"]} if setup["status_queue"] else {}),
    )
    want_refusal, want_target = None, None
    if decision.action.kind in ("RETRY", "FWD"):
        try:
            out = plan(
                decision,
                message,
                input_queue=options.input_queue,
                local_qmgr=setup["inputqm"] or "",
                max_hops=options.max_hops,
                control_queues=options.control.roles(),
            )
        except PLAN_ERRORS as exc:
            want_refusal = refusal(exc)
        else:
            assert out is not None
            want_target = (out.queue, out.qmgr)
    run = ", ".join(f"{k}: {json.dumps(str(v))}" for k, v in given_setup.items())
    message_text = ", ".join(f"{k}: {json.dumps(v)}" for k, v in fields.items())
    text = (
        f"run: {{{run}}}\ntests:\n  - name: random\n"
        f"    message: {{{message_text}, HOPS: {hops}}}\n    expect: {{action: IGNORE}}\n"
    )
    read = read_cases(text, "random.yaml")
    assert read.ok, [str(d) for d in read.diagnostics]
    (case,) = read.cases
    how = run_as(read.run, ruleset.control)
    got = outcome(Matcher(ruleset), case.message, 0, how)
    assert got.decision == decision
    assert got.refusal == want_refusal
    if want_target is not None:
        assert got.target is not None
        local = "" if got.target.qmgr == how.local_qmgr else got.target.qmgr
        assert (got.target.queue, local) == want_target
