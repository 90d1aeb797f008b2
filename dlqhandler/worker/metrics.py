"""Prometheus metrics, health endpoints and the rolling 4-hour average of DLQ inflow.

Every metric lives in the :class:`HandlerMetrics` instance's own registry (no
process-global singletons), served with ``/healthz`` and ``/readyz`` by
:class:`MetricsServer`. Labels have bounded cardinality: rule line, action,
outcome and reason code, never queue names or anything else taken from messages.

The inflow average follows z/OS WLM's rolling four-hour average (R4HA): a sample
every 10 seconds; every 5 minutes the highest sample of those 5 minutes is kept;
the last 48 kept values (4 hours) are averaged.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from dlqhandler.outcomes import Outcome

__all__ = ["R4HA", "DecisionRate", "HandlerMetrics", "MetricsServer"]


class R4HA:
    """Rolling 4-hour average of 5-minute peaks of 10-second samples (WLM's method)."""

    SAMPLE_S = 10.0
    PERIOD_S = 300.0
    KEEP = 48

    def __init__(self) -> None:
        self.peaks: deque[float] = deque(maxlen=self.KEEP)
        self._period_start: float | None = None
        self._period_peak = 0.0

    def add_sample(self, now: float, value: float) -> None:
        """Record one 10-second sample (a rate, e.g. messages/second)."""
        if self._period_start is None:
            self._period_start = now
        while now - self._period_start >= self.PERIOD_S:
            self.peaks.append(self._period_peak)
            self._period_peak = 0.0
            self._period_start += self.PERIOD_S
        self._period_peak = max(self._period_peak, value)

    @property
    def average(self) -> float:
        """Average of the kept peaks (the current period's peak until one is kept)."""
        if not self.peaks:
            return self._period_peak
        return sum(self.peaks) / len(self.peaks)


class DecisionRate:
    """Decisions per second over a sliding window (default 60 s)."""

    def __init__(self, window_s: float = 60.0) -> None:
        self.window_s = window_s
        self._events: deque[tuple[float, int]] = deque()

    def add(self, now: float, n: int = 1) -> None:
        self._events.append((now, n))
        self._trim(now)

    def rate(self, now: float) -> float:
        self._trim(now)
        return sum(n for _t, n in self._events) / self.window_s

    def _trim(self, now: float) -> None:
        while self._events and now - self._events[0][0] > self.window_s:
            self._events.popleft()


class HandlerMetrics:
    """The handler's metrics and readiness, in a registry of its own."""

    def __init__(
        self, *, clock: Callable[[], float] = time.time, stuck_after_s: float = 120.0
    ) -> None:
        self.clock = clock
        self.stuck_after_s = stuck_after_s
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.messages = Counter(
            "dlqhandler_messages",
            "Messages handled, by rule line, action and outcome",
            ["rule_line", "action", "outcome"],
            registry=r,
        )
        self.put_failures = Counter(
            "dlqhandler_put_failures", "Failed puts by MQ reason", ["reason"], registry=r
        )
        self.depth = Gauge(
            "dlqhandler_dlq_depth", "Current depth of the dead-letter queue", registry=r
        )
        self.oldest_age = Gauge(
            "dlqhandler_dlq_oldest_message_age_seconds",
            "Age of the oldest message on the DLQ (since dead-lettered)",
            registry=r,
        )
        self.decision_rate = Gauge(
            "dlqhandler_decisions_per_second",
            "Decisions per second over the last minute",
            registry=r,
        )
        self.reloads = Counter(
            "dlqhandler_rules_reloads", "Rules table reloads by result", ["result"], registry=r
        )
        for result in ("success", "failure"):  # at 0 from the start: increase() sees the 1st
            self.reloads.labels(result)
        self.rules_info = Gauge(
            "dlqhandler_rules_info", "The rules table in force (value 1)", ["sha256"], registry=r
        )
        self.inflow_r4ha = Gauge(
            "dlqhandler_dlq_inflow_r4ha",
            "Rolling 4-hour average of DLQ inflow (messages/s), WLM-style",
            registry=r,
        )
        self.inflow = Counter(
            "dlqhandler_dlq_inflow_messages",
            "Messages that arrived on the DLQ (depth growth plus this "
            "handler's removals, counted every 10 s sample)",
            registry=r,
        )
        self.ready_gauge = Gauge(
            "dlqhandler_ready",
            "1 when /readyz answers ready (connected, rules loaded, not holding after an MQ error)",
            registry=r,
        )
        self.ready_gauge.set_function(lambda: float(self.ready()))
        self.healthy_gauge = Gauge(
            "dlqhandler_healthy",
            "1 when /healthz answers 200 (the handler loop is not stuck)",
            registry=r,
        )
        self.healthy_gauge.set_function(lambda: float(self.alive()))
        self._rate = DecisionRate()
        self._r4ha = R4HA()
        self._last_sample: tuple[float, int] | None = None
        self._removed_since_sample = 0
        self._sha: str | None = None
        self._lock = threading.Lock()
        self.connected = False
        self.rules_loaded = False
        self._beat: float | None = None
        self.holding_after: str | None = None  # the MQ error a triggered run holds after

    # -- events from the handler -------------------------------------------------
    def decision(self, rule_line: int | None, action: str, outcome: Outcome) -> None:
        line = str(rule_line) if rule_line is not None else "none"
        self.messages.labels(line, action, outcome.value).inc()
        with self._lock:
            self._rate.add(self.clock())
            if outcome is Outcome.OK:
                self._removed_since_sample += 1

    def put_failure(self, reason: int | str | None) -> None:
        """A failed attempt: the MQ reason code, or the name of a refusal made before any
        put (``FORWARD_LOOP``, ``INVALID_TARGET``...)."""
        self.put_failures.labels(str(reason) if reason is not None else "none").inc()

    def beat(self) -> None:
        """The handler loop is making progress (called between MQ calls)."""
        self._beat = self.clock()

    def hold_after_error(self, reason: str | None) -> None:
        """The loop ended on an MQ error and holds the DLQ open (a triggered run's guard
        against an immediate re-trigger), or (None) no longer does."""
        self.holding_after = reason
        self.beat()

    def alive(self) -> bool:
        """False once the loop has not beaten for ``stuck_after_s`` (True before it starts)."""
        beat = self._beat
        return beat is None or self.clock() - beat <= self.stuck_after_s

    def ready(self) -> bool:
        """Connected, the rules table loaded, and not holding after an MQ error."""
        return self.connected and self.rules_loaded and self.holding_after is None

    def rules(self, sha256: str, *, reloaded: bool | None = None) -> None:
        """Set the table in force; ``reloaded`` True/False counts a reload result."""
        if reloaded is not None:
            self.reloads.labels("success" if reloaded else "failure").inc()
        if reloaded is False:
            return
        with self._lock:
            if self._sha is not None and self._sha != sha256:
                self.rules_info.remove(self._sha)
            self._sha = sha256
        self.rules_info.labels(sha256).set(1)
        self.rules_loaded = True

    def depth_unknown(self) -> None:
        """The DLQ's depth could not be inquired: depth and oldest age are NaN (no data),
        never a stale or zero value that would read as an empty queue."""
        self.depth.set(math.nan)
        self.oldest_age.set(math.nan)

    def queue_state(self, depth: int, oldest_age_s: float | None) -> None:
        """Depth and oldest age (None: not known, e.g. what is on the queue was left by
        no pass of this handler: another handler holds it, or it arrived since); also
        feeds the inflow samples (every >= 10 s).

        An unknown age is NaN, never the last known one: a stale age would keep
        DLQOldestMessageTooOld firing after that message left the queue (NaN > x is
        false in PromQL).
        Inflow over an interval = depth change + messages this handler removed.
        """
        now = self.clock()
        self.depth.set(depth)
        self.oldest_age.set(math.nan if oldest_age_s is None else max(0.0, oldest_age_s))
        with self._lock:
            self.decision_rate.set(self._rate.rate(now))
            if self._last_sample is None:
                self._last_sample = (now, depth)
                self._removed_since_sample = 0
                return
            t0, d0 = self._last_sample
            if now - t0 < R4HA.SAMPLE_S:
                return
            arrived = max(0, depth - d0 + self._removed_since_sample)
            self.inflow.inc(arrived)
            self._r4ha.add_sample(now, arrived / (now - t0))
            self._last_sample = (now, depth)
            self._removed_since_sample = 0
        self.inflow_r4ha.set(self._r4ha.average)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class MetricsServer:
    """``/metrics``, ``/healthz`` (process alive and the loop not stuck) and ``/readyz``
    (connected and rules loaded) on one port, in a daemon thread."""

    def __init__(self, metrics: HandlerMetrics, port: int, host: str = "127.0.0.1") -> None:
        self.metrics = metrics
        handler = _make_handler(metrics)
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="dlqhandler-metrics"
        )

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _make_handler(metrics: HandlerMetrics) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/metrics"):
                self._send(200, metrics.exposition(), CONTENT_TYPE_LATEST)
            elif self.path.startswith("/healthz"):
                alive, holding = metrics.alive(), metrics.holding_after
                body = (
                    b"stuck\n"
                    if not alive
                    else b"ok\n"
                    if holding is None
                    else f"holding after MQ error {holding}\n".encode()
                )
                self._send(200 if alive else 503, body, "text/plain")
            elif self.path.startswith("/readyz"):
                holding = metrics.holding_after
                ready = metrics.ready()
                body = (
                    b"ready\n"
                    if ready
                    else b"not ready\n"
                    if holding is None
                    else f"not ready: holding after MQ error {holding}\n".encode()
                )
                self._send(200 if ready else 503, body, "text/plain")
            else:
                self._send(404, b"not found\n", "text/plain")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # scrapes are not events worth logging

    return _Handler
