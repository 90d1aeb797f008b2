"""A real Prometheus scrapes a running ``dlqhandler run``: every dashboard query and every
alert expression returns data, with the values the handler's own counters say.

Debian's ``prometheus`` (the same package as ``promtool``) is started on a free loopback
port with a 1-second scrape and evaluation interval, loading ops/prometheus/alerts.yml; it
scrapes a handler (``--metrics-port 0``, WAIT(YES)) on an embedded queue manager with a
known backlog. Everything talks to 127.0.0.1 only; every wait is bounded; both processes
are stopped at the end.
"""

from __future__ import annotations

import json
import math
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from tests.ops.prometheus import require_tool
from tests.ops.test_ops_files import ALERTS, DASHBOARD, alert_names, promql_expressions
from tests.worker.helpers import (
    Ledger,
    dead_letter,
    define,
    json_events,
    load,
    start_handler,
    terminate,
)

RULES = (
    "RETRYINT(60) WAIT(YES)\n"
    "DESTQ(APP.*) ACTION(FWD) FWDQ(CATCH)\n"
    "DESTQ(BLK.*) ACTION(FWD) FWDQ(BLOCKED)\n"
    "DESTQ(OLD.*) ACTION(DISCARD)\n"
)
RELOADED = RULES.replace("FWDQ(CATCH)", "FWDQ(CATCH2)")
BROKEN = "RETRYINT(60) WAIT(MAYBE)\nACTION(FWDD)\n"
# Grafana's variables, as Grafana fills them in for one handler over the last 5 minutes.
RATE_INTERVAL, RANGE = "1m", "5m"

Labels = frozenset[tuple[str, str]]
Series = dict[Labels, float]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return str(resp.read().decode())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until(condition: Callable[[], Any], what: str, timeout: float = 30) -> Any:
    """Poll ``condition`` until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = condition()
        except (OSError, urllib.error.URLError):
            got = None
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class Prom:
    """The HTTP API of the Prometheus this test started (loopback only)."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def api(self, path: str, **params: str) -> Any:
        query = urllib.parse.urlencode(params)
        body = json.loads(_get(f"{self.base}/api/v1/{path}?{query}"))
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str) -> Series:
        data = self.api("query", query=expr)
        assert data["resultType"] == "vector", (expr, data)
        return {
            frozenset((k, v) for k, v in r["metric"].items() if k != "__name__"): float(
                r["value"][1]
            )
            for r in data["result"]
        }


def handler_samples(port: int) -> dict[tuple[str, Labels], float]:
    """What the handler's /metrics says right now, by (series name, labels)."""
    text = _get(f"http://127.0.0.1:{port}/metrics")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def L(**labels: str) -> Labels:
    return frozenset(labels.items())


@pytest.fixture
def prometheus_binary() -> str:
    """Debian's prometheus server (skipped or failed as require_tool says)."""
    return require_tool("prometheus")


@pytest.fixture
def qm(tmp_path: Path) -> Iterator[EmbeddedQueueManager]:
    """QM1 in a private home (tmp_path/home), and the test's own connection to it."""
    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    conn = connect("QM1", home=home, user="tester", appl_name="prometheus-test")
    yield conn
    conn.disconnect()


def test_real_prometheus_evaluates_the_dashboard_and_the_alerts(
    prometheus_binary: str, qm: EmbeddedQueueManager, tmp_path: Path
) -> None:
    """A real Prometheus scraping a running handler: every query of the Grafana dashboard
    returns data equal to what the handler's /metrics says at the same moment (gauges and
    counters exactly; rates positive for each series that grew while scraped, increases
    within Prometheus's extrapolation of the known counts); every alert rule loads and
    evaluates with health ok; the alerts the backlog must trigger are pending or firing,
    and for the others, threshold comparisons that are silent by design, the underlying
    (left-hand) expression is evaluated and matches the handler instead."""
    home = tmp_path / "home"
    prom_proc: subprocess.Popen[bytes] | None = None
    handler = None
    try:
        define(qm, "CATCH", "CATCH2")
        define(qm, "BLOCKED", put="DISABLED")
        # Batch 1, on the DLQ before the handler starts: 2 forwarded, 1 discarded, 1 blocked.
        batch1 = load(
            qm,
            [dead_letter(f"app{i}", destq="APP.Q") for i in range(2)]
            + [dead_letter("old0", destq="OLD.Q"), dead_letter("blk0", destq="BLK.Q")],
        )
        book = Ledger.of(qm)
        rules = tmp_path / "prod.rul"
        rules.write_text(RULES)
        log = tmp_path / "handler.log"
        handler = start_handler(home, rules, "--no-watch", "--metrics-port", "0", log=log)
        [started] = _until(
            lambda: [e for e in json_events(log) if e["event"] == "metrics_started"],
            "the handler's metrics_started event",
        )
        hport = started["port"]
        instance = f"127.0.0.1:{hport}"

        pport = _free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(
            json.dumps(
                {  # JSON is YAML
                    "global": {
                        "scrape_interval": "1s",
                        "scrape_timeout": "1s",
                        "evaluation_interval": "1s",
                    },
                    "rule_files": [str(ALERTS)],
                    "scrape_configs": [
                        {"job_name": "dlqhandler", "static_configs": [{"targets": [instance]}]}
                    ],
                }
            )
        )
        with (tmp_path / "prometheus.log").open("wb") as plog:
            prom_proc = subprocess.Popen(
                [
                    prometheus_binary,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{pport}",
                ],
                cwd=tmp_path,
                stdout=plog,
                stderr=subprocess.STDOUT,
            )
        prom = Prom(pport)
        _until(
            lambda: prom_proc.poll() is None and _get(prom.base + "/-/ready"),
            "Prometheus to be ready",
        )
        # Batch 1 done and seen by Prometheus before batch 2, so every counter grows while
        # scraped (a series first scraped at its final value has no rate).
        _until(
            lambda: (
                prom.query('dlqhandler_messages_total{action="FWD",outcome="ok"}').get(
                    L(
                        instance=instance,
                        job="dlqhandler",
                        rule_line="2",
                        action="FWD",
                        outcome="ok",
                    )
                )
                == 2
            ),
            "Prometheus to scrape batch 1",
        )
        time.sleep(1.5)  # one more scrape at those values
        # Batch 2, while it runs: one message for each rule line and outcome. The ledger
        # takes them as put (priority given, so the stored message is the same).
        batch2 = load(
            qm,
            [
                dead_letter("app2", destq="APP.Q", priority=0),
                dead_letter("old1", destq="OLD.Q", priority=0),
                dead_letter("blk1", destq="BLK.Q", priority=0),
            ],
        )
        book.original.update({m.md.msg_id: m for m in batch2})
        rules.write_text(RELOADED)
        handler.send_signal(signal.SIGHUP)
        _until(
            lambda: (
                handler_samples(hport).get(("dlqhandler_rules_reloads_total", L(result="success")))
                == 1
            ),
            "the good reload",
        )
        rules.write_text(BROKEN)
        handler.send_signal(signal.SIGHUP)

        def settled() -> bool:
            h = handler_samples(hport)
            return (
                h.get(("dlqhandler_rules_reloads_total", L(result="failure"))) == 1
                and h.get(("dlqhandler_put_failures_total", L(reason="2051"))) == 2
                and h.get(("dlqhandler_dlq_inflow_messages_total", L())) == len(batch2)
                and h.get(("dlqhandler_dlq_depth", L())) == 2
            )

        # The handler samples the DLQ every 10 s: inflow counts batch 2 at the next sample.
        _until(settled, "the handler to count batch 2, the reloads and the inflow")
        check_everything(prom, hport, instance)
    finally:
        if prom_proc is not None:
            prom_proc.terminate()
            try:
                prom_proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                prom_proc.kill()
                prom_proc.wait(timeout=10)
        out = terminate(handler, timeout=30) if handler is not None else ""
    # PARTIAL: the BLK.Q messages could not be forwarded; nothing lost or duplicated.
    assert handler.returncode == 6, out
    book.check(
        ["CATCH", "CATCH2", "BLOCKED"], discarded=[batch1[2].md.msg_id, batch2[1].md.msg_id]
    )  # the OLD.Q ones


def check_everything(prom: Prom, hport: int, instance: str) -> None:
    """Compare Prometheus with the handler until they agree (a gauge may change between
    the handler's sample and the next scrape, so this retries for a few seconds)."""
    deadline = time.monotonic() + 15
    while True:
        before = handler_samples(hport)
        try:
            check_dashboard(prom, before, instance)
            check_alerts(prom, before, instance)
            after = handler_samples(hport)
            assert after == before, "the handler's metrics moved during the comparison"
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _near(got: Series, want: Series, *, tol: float = 1e-9) -> None:
    assert set(got) == set(want), (got, want)
    for labels, value in want.items():
        assert math.isclose(got[labels], value, rel_tol=tol, abs_tol=tol), (labels, got, want)


def check_dashboard(prom: Prom, h: dict[tuple[str, Labels], float], instance: str) -> None:
    """Every query of the dashboard, with $instance set to this handler."""
    inst = L(instance=instance)

    def g(name: str, **labels: str) -> float:
        return h[(name, L(**labels))]

    msgs = {k[1]: v for k, v in h.items() if k[0] == "dlqhandler_messages_total"}
    # The counters behind the rates: the known backlog, in the handler and in Prometheus.
    assert msgs == {
        L(rule_line="2", action="FWD", outcome="ok"): 3,
        L(rule_line="3", action="FWD", outcome="failed"): 2,
        L(rule_line="4", action="DISCARD", outcome="ok"): 2,
    }
    _near(
        prom.query("dlqhandler_messages_total"),
        {labels | inst | {("job", "dlqhandler")}: v for labels, v in msgs.items()},
    )
    _near(
        prom.query("dlqhandler_put_failures_total"),
        {L(reason="2051", instance=instance, job="dlqhandler"): 2},
    )
    by_action = {
        frozenset((a, b) for a, b in labels if a in ("action", "outcome")) for labels in msgs
    }
    by_line = {frozenset((a, b) for a, b in labels if a == "rule_line") for labels in msgs}
    assert len(by_action) == 3
    assert len(by_line) == 3
    [sha] = [dict(k[1])["sha256"] for k in h if k[0] == "dlqhandler_rules_info"]

    depth, age = g("dlqhandler_dlq_depth"), g("dlqhandler_dlq_oldest_message_age_seconds")
    r4ha, rate = g("dlqhandler_dlq_inflow_r4ha"), g("dlqhandler_decisions_per_second")
    assert depth == 2
    assert age > 3600
    assert r4ha > 0
    assert rate > 0
    exact: dict[str, Series] = {
        'sum(dlqhandler_dlq_depth{instance=~"$instance"})': {L(): depth},
        'max(dlqhandler_dlq_oldest_message_age_seconds{instance=~"$instance"})': {L(): age},
        'sum(dlqhandler_dlq_inflow_r4ha{instance=~"$instance"})': {L(): r4ha},
        'sum(dlqhandler_decisions_per_second{instance=~"$instance"})': {L(): rate},
        'sum by (instance) (dlqhandler_dlq_depth{instance=~"$instance"})': {inst: depth},
        'sum by (instance) (dlqhandler_dlq_inflow_r4ha{instance=~"$instance"})': {inst: r4ha},
        'max by (instance) (dlqhandler_dlq_oldest_message_age_seconds{instance=~"$instance"})': {
            inst: age
        },
        'sum by (instance) (dlqhandler_decisions_per_second{instance=~"$instance"})': {inst: rate},
        'count(count by (sha256) (dlqhandler_rules_info{instance=~"$instance"}))': {L(): 1},
        'max by (instance, sha256) (dlqhandler_rules_info{instance=~"$instance"})': {
            L(instance=instance, sha256=sha): 1
        },
    }
    # Rates: one series per label set the handler has, each positive (every one grew
    # while scraped: batch 2 has a message for each rule line and outcome).
    rates: dict[str, set[Labels]] = {
        'sum by (action, outcome) (rate(dlqhandler_messages_total{instance=~"$instance"}'
        "[$__rate_interval]))": by_action,
        'topk(10, sum by (rule_line) (rate(dlqhandler_messages_total{instance=~"$instance"}'
        "[$__rate_interval])))": by_line,
        'sum by (reason) (rate(dlqhandler_put_failures_total{instance=~"$instance"}'
        "[$__rate_interval]))": {L(reason="2051")},
    }
    # Increases of the reload counters (0 -> 1 each while scraped): Prometheus
    # extrapolates to the window's end, so within a few per cent of the true count.
    increases: dict[str, Series] = {
        'sum(increase(dlqhandler_rules_reloads_total{instance=~"$instance"}[$__range]))': {
            L(): g("dlqhandler_rules_reloads_total", result="success")
            + g("dlqhandler_rules_reloads_total", result="failure")
        },
        'sum(increase(dlqhandler_rules_reloads_total{instance=~"$instance", '
        'result="failure"}[$__range]))': {
            L(): g("dlqhandler_rules_reloads_total", result="failure")
        },
        'sum by (result) (increase(dlqhandler_rules_reloads_total{instance=~"$instance"}'
        "[$__rate_interval]))": {
            L(result=r): g("dlqhandler_rules_reloads_total", result=r)
            for r in ("success", "failure")
        },
    }
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs = promql_expressions(dashboard)
    for expr in exprs:
        if expr.startswith("label_values("):  # the $instance variable: the label API
            assert expr == "label_values(dlqhandler_dlq_depth, instance)"
            values = prom.api("label/instance/values", **{"match[]": "dlqhandler_dlq_depth"})
            assert values == [instance]
            continue
        promql = (
            expr.replace("$instance", instance)
            .replace("$__rate_interval", RATE_INTERVAL)
            .replace("$__range", RANGE)
        )
        got = prom.query(promql)
        assert got, f"no data: {expr}"
        if expr in exact:
            _near(got, exact[expr])
        elif expr in rates:
            assert set(got) == rates[expr], (expr, got)
            assert all(v > 0 for v in got.values()), (expr, got)
        elif expr in increases:
            _near(got, increases[expr], tol=0.15)
        else:
            raise AssertionError(f"the test has no expectation for the dashboard query {expr}")
    assert set(exprs) - {"label_values(dlqhandler_dlq_depth, instance)"} == (
        set(exact) | set(rates) | set(increases)
    )


def check_alerts(prom: Prom, h: dict[tuple[str, Labels], float], instance: str) -> None:
    """Every rule loaded with health ok; each alert's expression evaluated."""
    target = {"instance": instance, "job": "dlqhandler"}
    tl = frozenset(target.items())
    groups = prom.api("rules")["groups"]
    rules = {r["name"]: r for g in groups for r in g["rules"]}
    assert set(rules) == set(alert_names())
    for rule in rules.values():
        assert rule["health"] == "ok", rule
    text = ALERTS.read_text(encoding="utf-8")
    depth = h[("dlqhandler_dlq_depth", L())]
    age = h[("dlqhandler_dlq_oldest_message_age_seconds", L())]
    # Alerts the backlog triggers: their whole expression returns the handler's values.
    firing: dict[str, tuple[str, Series, float]] = {
        "DLQNotEmpty": ("dlqhandler_dlq_depth > 0", {tl: depth}, 1e-9),
        "DLQOldestMessageTooOld": (
            "dlqhandler_dlq_oldest_message_age_seconds > 3600",
            {tl: age},
            1e-9,
        ),
        "DLQRulesReloadFailed": (
            'increase(dlqhandler_rules_reloads_total{result="failure"}[15m]) > 0',
            {tl | {("result", "failure")}: 1},
            0.15,
        ),
    }
    # Silent ones are threshold comparisons: their left-hand side is evaluated instead.
    underlying: dict[str, list[tuple[str, Series]]] = {
        "DLQHandlerDown": [
            ('up{job="dlqhandler"}', {tl: 1}),
            ("dlqhandler_healthy", {tl: h[("dlqhandler_healthy", L())]}),
        ],
        "DLQHandlerMissing": [('up{job="dlqhandler"}', {tl: 1})],
        "DLQHandlerNotReady": [("dlqhandler_ready", {tl: h[("dlqhandler_ready", L())]})],
        # a known depth (a number equals itself): the NaN of a refused inquiry is not
        "DLQDepthUnknown": [("dlqhandler_dlq_depth", {tl: depth})],
        "DLQInflowAboveAverage": [
            ("dlqhandler_dlq_inflow_r4ha", {tl: h[("dlqhandler_dlq_inflow_r4ha", L())]})
        ],
    }
    assert h[("dlqhandler_healthy", L())] == 1
    assert h[("dlqhandler_ready", L())] == 1
    for name, (expr, want, tol) in firing.items():
        assert expr in text, name  # the rule's own expression, not a paraphrase
        _near(prom.query(expr), want, tol=tol)
    for name, exprs in underlying.items():
        for expr, want in exprs:
            assert expr in text, name
            _near(prom.query(expr), want)
    # Rates have no exact counterpart in /metrics: the put failures (1 -> 2 while scraped)
    # and the inflow counter (0 -> 3, batch 2) give positive rates, so the put alert's
    # whole expression returns data and the inflow alert's left side is positive.
    put_rising = "sum by (job, instance, reason) (rate(dlqhandler_put_failures_total[5m])) > 0"
    inflow = "rate(dlqhandler_dlq_inflow_messages_total[10m])"
    assert put_rising in text
    assert inflow in text
    assert set(prom.query(put_rising)) == {tl | {("reason", "2051")}}
    got = prom.query(inflow)
    assert set(got) == {tl}
    assert got[tl] > 0
    assert set(firing) | set(underlying) | {"DLQPutFailuresRising"} == set(rules)
    # Prometheus's own view: pending for those with a `for:`, firing for the reload.
    states = {(a["labels"]["alertname"], a["state"]) for a in prom.api("alerts")["alerts"]}
    assert states == {
        ("DLQNotEmpty", "pending"),
        ("DLQOldestMessageTooOld", "pending"),
        ("DLQPutFailuresRising", "pending"),
        ("DLQRulesReloadFailed", "firing"),
    }
