"""Every path that moves dead letters puts each message where one reference model says
(issue 33): ``run`` with a table, one-off actions, ``drain`` from a dump, ``drain
--apply`` and ``check``, in generated sequences on the embedded queue manager and a
real SparkSession (:mod:`tests.model.machine`, :mod:`tests.model.reference`).

The bounded profile here runs in ``make test``; the long one is
tests/reliability/test_model_paths.py. Both are deterministic (``derandomize``, no
example database). The bounded profile does not shrink, to stay within its time: a
failure in ``make test`` prints the sequence as generated; ``make reliability`` shrinks.

IBM's pages the model follows (cited by phrase):

* "Rules table conventions"
  (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=zos-rules-table-conventions):
  "Keywords are not case-sensitive"; a value's case folds unless it is quoted;
* "DLQ rules (patterns and actions)"
  (https://www.ibm.com/docs/en/ibm-mq/10.0.x?topic=table-dlq-rules-patterns-actions):
  DESTQ is "the name of the message queue for which the message is destined";
* "How the DLQ rules table is processed" (https://setgetweb.com/p/MQ90/adm/q005700_.htm,
  IBM MQ 9.0): the handler "increments the retry count for a rule by 1 whenever it
  applies that rule"; messages that do not begin with an MQDLH "remain on the DLQ
  indefinitely".
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.model.machine import DLQMachine
from tests.model.reference import DLQ, STATUS, Command, Letter, OneOff, Rule, Table, Value

pytestmark = pytest.mark.spark

BOUNDED = settings(
    max_examples=15,
    stateful_step_count=10,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def test_every_path_puts_each_message_where_the_model_says(spark: Any) -> None:
    """Generated DLQ contents, target states, PROPCTL(FORCE) and command sequences:
    after every command each message is on the DLQ or at exactly one destination
    (with or without its MQDLH, content, context and properties kept) or discarded on
    purpose, where the reference model puts it; attempt counts are the model's; a
    command naming a control queue as a target, or the DLQ as a control queue, is
    refused with exit 2 and moves nothing; check reports such a set-up as an error."""
    run_state_machine_as_test(DLQMachine, settings=BOUNDED)


EVERY = Rule("IGNORE", destq=Value("*"))  # --match 'DESTQ(*)'


def _class_1(m: DLQMachine) -> None:
    m.start([[Letter()]], ["disabled", "normal", "normal", "normal"])  # APP.A put-inhibited
    m.one_off(OneOff(EVERY, "retry"), Command())  # fails: one attempt on record
    m.every_message_where_the_model_says()
    m.target_state("APP.A", "normal")
    m.one_off(OneOff(EVERY, "retry"), Command())  # the administrator's order: it moves
    m.every_message_where_the_model_says()


def _class_2(m: DLQMachine) -> None:
    m.start([[Letter(destq="APP.LOWER", properties=True)]], ["normal"] * 4)
    m.dlq_propctl(force=True)  # the MQDLH now sits behind an MQRFH2
    m.drain_apply(Table((Rule("RETRY", reason="MQRC_Q_FULL"),)), Command())
    m.every_message_where_the_model_says()


def _class_5(m: DLQMachine) -> None:
    m.start([[Letter(reason=2085, destq="APP.MISSING")]], ["normal"] * 4)
    m.one_off(OneOff(EVERY, "fwd:app.lower"), Command())  # exact: app.lower, not APP.LOWER
    m.every_message_where_the_model_says()


def _class_6(m: DLQMachine) -> None:
    m.start([[Letter()]], ["normal"] * 4)
    m.run_table(Table((Rule("RETRY"),)), Command(status_queue=DLQ))


def _class_6_drain(m: DLQMachine) -> None:
    m.start([[Letter()]], ["normal"] * 4)
    m.drain_apply(Table((Rule("RETRY"),)), Command(status_queue=DLQ))


def _class_6_forward(m: DLQMachine) -> None:
    m.start([[Letter()]], ["normal"] * 4)
    m.one_off(OneOff(EVERY, f"fwd:{STATUS}"), Command())


def _class_6_check(m: DLQMachine) -> None:
    m.start([[Letter()]], ["normal"] * 4)
    m.check(Table((Rule("FWD", fwdq=Value(STATUS)),)), STATUS)


@pytest.mark.parametrize(
    "sequence",
    [_class_1, _class_2, _class_5, _class_6, _class_6_drain, _class_6_forward, _class_6_check],
)
def test_the_sequences_of_issue_33(spark: Any, sequence: Any) -> None:
    """The shortest sequences of each wrong-place class of issue 33, as the machine
    runs them (the generated test finds them too, but not in every bounded run): a
    one-off after a failed attempt moves the message (1); drain --apply retries a dead
    letter behind an MQRFH2 (2); fwd:app.lower is exact (5); a control queue that is
    the DLQ (run, drain --apply), or a forward to one, is refused with exit 2, and check
    reports it (6)."""
    machine = DLQMachine()
    try:
        sequence(machine)
        machine.every_message_where_the_model_says()
    finally:
        machine.teardown()
