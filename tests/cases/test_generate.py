"""--generate's YAML: arbitrary message fields (quotes, colons, '#', NEL, control
characters, Latin-1) are written so that reading the file back gives the same fields, and
today's decisions pass."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dlqhandler.cases import read_cases
from dlqhandler.cases.generate import LEFT_WHOLE, generate_cases
from dlqhandler.cases.runner import run_cases
from dlqhandler.mq import MQDLH, MQMD, Message
from dlqhandler.mq.groups import in_group
from dlqhandler.rules import Matcher, compile_rules_or_raise, message_fields
from tests.mq.strategies import mqdlhs, mqmds

TABLE = """\
REASON(2053) ACTION(RETRY) RETRY(2)
REPLYQM('?*') ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)
DESTQ(A*) ACTION(DISCARD)
APPLNAME('?*') ACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM) HEADER(NO)
"""


def _dead_letter(md: MQMD, dlh: MQDLH) -> Message:
    # as got from a queue: persistent or not (MQ resolves MQPER_PERSISTENCE_AS_Q_DEF)
    original = md.replace(
        format=dlh.format, coded_char_set_id=819, encoding=546, persistence=md.persistence & 1
    )
    return Message.dead_letter(
        original,
        b"data",
        reason=dlh.reason,
        dest_q_name=dlh.dest_q_name,
        dest_q_mgr_name=dlh.dest_q_mgr_name,
    )


@given(st.lists(st.tuples(mqmds(819), mqdlhs(819)), min_size=1, max_size=6), st.booleans())
def test_generated_cases_read_back_to_the_same_fields_and_pass(
    pairs: list[tuple[MQMD, MQDLH]], distinct: bool
) -> None:
    """Every generated case reads back (no diagnostic) to its message's pattern fields
    (character fields without their trailing blanks, blank ones left out), is named by
    the MsgId in hex (a repeated MsgId gets -2, -3...), and passes against the table. A
    message not in a group gets its case, in order; a group's members come after them,
    all or none (a group run leaves whole is left out)."""
    messages = [_dead_letter(md, dlh) for md, dlh in pairs]
    matcher = Matcher(compile_rules_or_raise(TABLE))
    generated = generate_cases(
        matcher, messages, rules=None, source="dump", table="t.rul", distinct=distinct
    )
    if not generated.cases:  # every message left out: the CLI writes nothing, and says so
        assert sum(generated.skipped.values()) == len(messages)
        return
    read = read_cases(generated.text, "generated.yaml")
    assert read.ok, (generated.text, [str(d) for d in read.diagnostics])
    assert generated.cases == len(read.cases)
    if not distinct:
        singles = [m for m in messages if not in_group(m.md)]
        grouped = read.cases[len(singles) :]
        assert len(grouped) + generated.skipped.get(LEFT_WHOLE, 0) == len(messages) - len(singles)
        for case, message in zip(read.cases, singles, strict=False):
            want = {
                k: (v.rstrip(" ") if isinstance(v, str) else v)
                for k, v in message_fields(message).items()
                if not isinstance(v, str) or v.rstrip(" ")
            }
            assert case.fields == want
            assert case.name.split("-")[0] == message.md.msg_id.hex()
    assert all(r.passed for r in run_cases(matcher, read.cases))


def test_a_message_with_several_headers_is_generated_with_hops_and_its_refusal() -> None:
    """A dead letter carrying several MQDLHs (forwarded with its header, dead-lettered
    again) is written with ``HOPS``; at run's --max-hops (5) a FWD HEADER(YES) of one
    carrying 5 is refused, written as ``refused: FORWARD_LOOP``; both read back and pass."""
    matcher = Matcher(compile_rules_or_raise("ACTION(FWD) FWDQ(APP.OUT)\n"))
    first = Message.dead_letter(
        MQMD(msg_id=b"A" * 24, persistence=1), b"data", reason=2053, dest_q_name="Q"
    )
    messages = []
    for hops in (2, 5):
        m = first
        for _ in range(hops - 1):
            m = Message.dead_letter(m.md, m.body, reason=2053, dest_q_name="Q")
        messages.append(m.with_md(m.md.replace(msg_id=bytes([hops]) * 24)))
    generated = generate_cases(matcher, messages, rules=None, source="d", table="t.rul")
    assert "      HOPS: 2\n" in generated.text
    assert "      HOPS: 5\n" in generated.text
    assert generated.text.count("refused: FORWARD_LOOP") == 1
    read = read_cases(generated.text, "generated.yaml")
    assert read.ok, [str(d) for d in read.diagnostics]
    assert [c.hops for c in read.cases] == [2, 5]
    assert all(r.passed for r in run_cases(matcher, read.cases))


def test_a_persistence_no_message_on_a_queue_has_is_left_out() -> None:
    """A dead letter whose Persistence is MQPER_PERSISTENCE_AS_Q_DEF (2) was never got from
    a queue ("For an MQGET call, the value returned is either MQPER_PERSISTENT or
    MQPER_NOT_PERSISTENT", IBM MQ, Persistence (MQLONG),
    https://www.ibm.com/docs/en/SSFKSJ_9.1.0/com.ibm.mq.ref.dev.doc/q097600_.html): no case
    can hold it, so it is left out and counted, not written as a case run never sees."""
    matcher = Matcher(compile_rules_or_raise("ACTION(DISCARD)\n"))
    messages = [
        Message.dead_letter(MQMD(persistence=p), b"d", reason=2053, dest_q_name="Q")
        for p in (0, 1, 2)
    ]
    generated = generate_cases(matcher, messages, rules=None, source="d", table="t.rul")
    assert (generated.cases, generated.skipped) == (2, {"a field no case can hold": 1})
