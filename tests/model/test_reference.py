"""The reference model itself, on the specification's own vectors: the string matcher of
runmqdlq (the padded-field rules), the folding of unquoted table values, and rule choice
with the running RETRY total. The model is the oracle of tests/model/test_paths.py, so
it is held to the spec here, never to the code under test.

IBM: "DLQ rules (patterns and actions)"
(https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=table-dlq-rules-patterns-actions) and
"How the DLQ rules table is processed" (https://setgetweb.com/p/MQ90/adm/q005700_.htm:
"If all attempts fail, the DLQ handler searches for the next matching rule in the
table")."""

from __future__ import annotations

import pytest

from tests.model.reference import Letter, Model, OneOff, Place, QueueState, Rule, Table, Value
from tests.model.reference import match_string as match


@pytest.mark.parametrize(
    ("pattern", "value", "length", "matches"),
    [
        ("*", "", 48, True),
        ("?*", "", 48, False),  # ? needs a character that is not padding
        ("?*", "Q1", 48, True),
        ("A*", "A", 48, True),
        ("A*C", "ABC", 48, True),
        ("A*C", "ABCD", 48, False),
        ("*C", "ABC", 48, True),
        ("AB?", "AB", 48, False),
        ("AB?", "ABC", 48, True),
        ("A?C", "A C", 48, True),  # an embedded blank
        ("AB  ", "AB", 48, True),  # trailing blanks match the padding
        (" AB", "AB", 48, False),  # a leading blank is significant
        ("ABC*", "ABCDEFGH", 8, True),
    ],
)
def test_the_string_matcher_follows_the_spec_vectors(
    pattern: str, value: str, length: int, matches: bool
) -> None:
    """§3.2's table: ``*`` any run, ``?`` one character not in the trailing blanks,
    trailing blanks not significant, leading ones significant."""
    assert match(pattern, value, length) is matches


def test_unquoted_values_fold_and_quoted_ones_are_kept() -> None:
    """DESTQ(app.lower) means APP.LOWER; DESTQ('app.lower') means app.lower."""
    lower = Letter("M", destq="app.lower")
    upper = Letter("N", destq="APP.LOWER")
    folded = Rule("IGNORE", destq=Value("app.lower"))
    quoted = Rule("IGNORE", destq=Value("app.lower", quoted=True))
    assert (folded.matches(lower), folded.matches(upper)) == (False, True)
    assert (quoted.matches(lower), quoted.matches(upper)) == (True, False)


def test_rule_choice_walks_the_running_retry_total() -> None:
    """RETRY(2) on line 1 takes attempts 0 and 1, RETRY(3) on line 2 attempts 2 to 4,
    then nothing: the implicit IGNORE; an IGNORE rule is chosen at once; a message
    without an MQDLH matches no rule."""
    first = Rule("RETRY", reason="MQRC_Q_FULL", retry=2)
    second = Rule("FWD", fwdq=Value("HOLD"), retry=3)
    table = Table((first, second))
    m = Letter("M")
    assert [table.choose(m, n) for n in range(6)] == [first] * 2 + [second] * 3 + [None]
    ignore = Rule("IGNORE", reason=2053)
    assert Table((ignore, first)).choose(m, 0) is ignore
    assert table.choose(Letter("P", reason=None), 0) is None


def test_a_run_walks_the_chain_and_a_one_off_ignores_the_count() -> None:
    """A table run on a put-inhibited target spends its retries (two attempts on
    record, the message stays); a one-off retry then moves it once the target takes
    puts, and its success clears the count (issue 33, decision 1)."""
    model = Model(queues={"APP.A": QueueState(put_enabled=False)})
    model.add([Letter("M")])
    assert model.run_table(Table((Rule("RETRY", retry=2),))) is True
    assert (model.place["M"], model.attempts) == (Place("SYSTEM.DEAD.LETTER.QUEUE"), {"M": 2})
    model.queues["APP.A"].put_enabled = True
    model.one_off(OneOff(Rule("IGNORE", destq=Value("*")), "retry"))
    assert (model.place["M"], model.attempts) == (Place("APP.A", header=False), {})


def test_a_queue_manager_named_like_a_plain_local_queue_is_2092() -> None:
    """A put at a queue manager named like a defined local queue that is not USAGE(XMITQ)
    fails with MQRC_XMIT_Q_USAGE_ERROR (2092), as the embedded queue manager answers; a
    name that is no local queue (or one deleted) is MQRC_UNKNOWN_REMOTE_Q_MGR (2087); a
    transmission queue of that name takes the put.

    IBM, 2092 (https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041530_.html):
    "ObjectQMgrName specifies the name of a local queue, but it does not have a Usage
    attribute of MQUS_TRANSMISSION"."""
    model = Model(queues={"PLAIN": QueueState(), "QR": QueueState(xmitq=True)})
    assert model.put_fails("APP.A", "PLAIN") == 2092
    assert model.put_fails("APP.A", "QX") == 2087
    assert model.put_fails("APP.A", "QR") is None
    model.queues["PLAIN"].defined = False
    assert model.put_fails("APP.A", "PLAIN") == 2087
