"""The long profile of the model test (issue 33): the machine of
:mod:`tests.model.machine` on many more and longer sequences, with more drains per
sequence, shrinking a failure to its shortest sequence. Sizes: ``DLQ_REL_MODEL_EXAMPLES``
(default 50 sequences), ``DLQ_REL_MODEL_STEPS`` (default 20 steps each),
``DLQ_REL_MODEL_DRAINS`` (default 2 drain steps per sequence; each starts Spark jobs)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from tests.model import machine
from tests.reliability.knobs import Figures, knob
from tests.spark.conftest import spark

__all__ = ["spark"]

pytestmark = pytest.mark.spark


@pytest.mark.reliability
@pytest.mark.timeout(3600)  # generating and shrinking sequences with drains: minutes
def test_every_path_puts_each_message_where_the_model_says_at_length(
    spark: Any, figures: Figures, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As tests/model/test_paths.py, on DLQ_REL_MODEL_EXAMPLES sequences of up to
    DLQ_REL_MODEL_STEPS commands: after every command each message is where the reference
    model puts it (or discarded on purpose), once, with its content, context and
    properties; attempt counts are the model's; control-queue mistakes are refused."""
    examples = knob("DLQ_REL_MODEL_EXAMPLES", 50)
    steps = knob("DLQ_REL_MODEL_STEPS", 20)
    monkeypatch.setattr(
        machine, "POOLS", replace(machine.POOLS, drains=knob("DLQ_REL_MODEL_DRAINS", 2))
    )
    run_state_machine_as_test(
        machine.DLQMachine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    figures(model_sequences=examples, model_steps=steps)
