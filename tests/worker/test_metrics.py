"""Metrics: the R4HA computation, decision rate, and the HTTP endpoints scraped for real."""

from __future__ import annotations

import math
import urllib.error
import urllib.request

import pytest

from dlqhandler.outcomes import Outcome
from dlqhandler.worker.metrics import R4HA, DecisionRate, HandlerMetrics, MetricsServer


class FakeClock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_r4ha_keeps_48_five_minute_peaks_of_ten_second_samples() -> None:
    """Each 5-minute period contributes its highest 10-s sample; 48 are averaged."""
    r = R4HA()
    t = 0.0
    # 50 periods; in period k the samples are k and a spike of 10*k once.
    for k in range(50):
        for i in range(30):
            r.add_sample(t, 10.0 * k if i == 7 else float(k))
            t += 10
    r.add_sample(t, 0.0)  # closes period 49
    assert len(r.peaks) == 48
    expected = sum(10.0 * k for k in range(2, 50)) / 48
    assert r.average == pytest.approx(expected)


def test_r4ha_before_the_first_period_shows_the_running_peak() -> None:
    """With no completed 5-minute period yet, the average is the running peak."""
    r = R4HA()
    r.add_sample(0, 3.0)
    r.add_sample(10, 5.0)
    assert r.average == 5.0


def test_decision_rate_is_a_sliding_window() -> None:
    """Events older than the window stop counting."""
    d = DecisionRate(window_s=60)
    d.add(0, 30)
    d.add(30, 30)
    assert d.rate(30) == pytest.approx(1.0)
    assert d.rate(75) == pytest.approx(0.5)


def test_inflow_counts_depth_growth_plus_handler_removals() -> None:
    """Inflow over a sample = depth change + messages the handler removed."""
    clock = FakeClock()
    m = HandlerMetrics(clock=clock)
    m.queue_state(100, None)
    for _ in range(50):
        m.decision(3, "FWD", Outcome.OK)
    clock.t += 10
    m.queue_state(150, 12.5)  # 100 arrived: +50 depth, 50 removed
    assert m.inflow_r4ha._value.get() == pytest.approx(10.0)
    assert m.oldest_age._value.get() == 12.5
    assert m.inflow._value.get() == 100  # the same arrivals, as a counter for rate()
    clock.t += 5
    m.queue_state(180, 1.0)  # under 10 s since the last sample: not counted yet
    assert m.inflow._value.get() == 100
    clock.t += 5
    m.queue_state(140, 1.0)  # 10 s on, shrunk by 10 with no removals: nothing arrived
    assert m.inflow._value.get() == 100


def test_an_oldest_age_no_longer_known_is_nan_not_the_last_one() -> None:
    """Once the handler no longer knows the oldest message's age (the message it knew left
    the queue and what is there now no pass of this handler left: another handler holds
    it, or it arrived since), the gauge is NaN, not the last age: a stale 2 hours would
    keep DLQOldestMessageTooOld (age > 3600) firing after the message is gone, while NaN
    makes the comparison false (ops/prometheus/alerts_test.yml holds the alert to it)."""
    clock = FakeClock()
    m = HandlerMetrics(clock=clock)
    m.queue_state(4, 7200.0)
    assert _sample(m, "dlqhandler_dlq_oldest_message_age_seconds") == 7200.0
    clock.t += 10
    m.queue_state(4, None)
    age = _sample(m, "dlqhandler_dlq_oldest_message_age_seconds")
    assert age is not None
    assert math.isnan(age)
    clock.t += 10
    m.queue_state(0, 0.0)
    assert _sample(m, "dlqhandler_dlq_oldest_message_age_seconds") == 0.0


def _sample(m: HandlerMetrics, name: str) -> float | None:
    """The value of one unlabelled series (or labelled: name{...}) in the exposition."""
    for line in m.exposition().decode().splitlines():
        if line.split(" ")[0] == name:
            return float(line.split(" ")[1])
    return None


def test_readiness_and_health_are_metrics_too() -> None:
    """dlqhandler_ready follows /readyz (connected, rules loaded, not holding after an MQ
    error) and dlqhandler_healthy follows /healthz (the loop not stuck), so an alert can
    say which; both are read when scraped."""
    clock = FakeClock()
    m = HandlerMetrics(clock=clock, stuck_after_s=120)
    assert (_sample(m, "dlqhandler_ready"), _sample(m, "dlqhandler_healthy")) == (0.0, 1.0)
    m.connected = True
    m.rules("ab" * 32)
    assert _sample(m, "dlqhandler_ready") == 1.0
    m.hold_after_error("MQRC_Q_FULL")
    assert _sample(m, "dlqhandler_ready") == 0.0
    m.hold_after_error(None)
    assert _sample(m, "dlqhandler_ready") == 1.0
    clock.t += 121  # no beat for longer than stuck_after_s
    assert _sample(m, "dlqhandler_healthy") == 0.0
    m.beat()
    assert _sample(m, "dlqhandler_healthy") == 1.0


def test_reload_results_are_exported_at_zero_before_any_reload() -> None:
    """Both reload results exist at 0 from the start, so increase() over a window counts
    the first failed reload (a series born at 1 would show no increase)."""
    m = HandlerMetrics()
    assert _sample(m, 'dlqhandler_rules_reloads_total{result="success"}') == 0.0
    assert _sample(m, 'dlqhandler_rules_reloads_total{result="failure"}') == 0.0


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, resp.read().decode()


def test_endpoints_serve_metrics_health_and_readiness() -> None:
    """/metrics exposes the named series; /readyz is 503 until connected and loaded."""
    m = HandlerMetrics()
    server = MetricsServer(m, 0).start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        assert _get(base + "/healthz")[0] == 200
        with pytest.raises(urllib.error.HTTPError) as info:
            _get(base + "/readyz")
        assert info.value.code == 503
        info.value.close()
        m.connected = True
        m.rules("ab" * 32)
        assert _get(base + "/readyz")[0] == 200
        m.decision(12, "RETRY", Outcome.OK)
        m.put_failure(2053)
        m.rules("cd" * 32, reloaded=True)
        m.rules("ef" * 32, reloaded=False)
        text = _get(base + "/metrics")[1]
        assert 'dlqhandler_messages_total{action="RETRY",outcome="ok",rule_line="12"} 1.0' in text
        assert 'dlqhandler_put_failures_total{reason="2053"} 1.0' in text
        assert 'dlqhandler_rules_reloads_total{result="success"} 1.0' in text
        assert 'dlqhandler_rules_reloads_total{result="failure"} 1.0' in text
        assert f'dlqhandler_rules_info{{sha256="{"cd" * 32}"}} 1.0' in text
        assert "ab" * 32 not in text  # the replaced table's series is gone
        for name in (
            "dlqhandler_dlq_depth",
            "dlqhandler_dlq_oldest_message_age_seconds",
            "dlqhandler_decisions_per_second",
            "dlqhandler_dlq_inflow_r4ha",
        ):
            assert name in text
    finally:
        server.stop()


def test_metrics_registries_are_per_instance() -> None:
    """Two handlers in one process do not share counters (no global registry)."""
    a, b = HandlerMetrics(), HandlerMetrics()
    a.decision(1, "FWD", Outcome.OK)
    assert b"dlqhandler_messages_total{" not in b.exposition()
