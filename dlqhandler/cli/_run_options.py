"""``dlqhandler run`` options beyond runmqdlq's: selection, pacing and metrics.

* ``--msgid HEX`` (repeatable) and ``--match 'KEYWORD(value) ...'`` select the
  messages this run may act on (both given: both must hold); every other
  message is left untouched, and no attempt is counted for it. With a selector
  the run ends after one full pass, unless the table says WAIT(YES): then it
  stays resident, handling only what the selector selects. ``--older-than 7d`` /
  ``--newer-than 2h`` select by the time since a message was dead-lettered (the
  MQDLH's PutDate/PutTime).
* ``--max-rate N``: act on at most N messages a second (a token bucket with
  bursts of N). The handler commits its open unit of work before it waits for
  a token, so a low rate never holds messages uncommitted.
* ``--metrics-port N [--metrics-host H]``: Prometheus ``/metrics``, ``/healthz``
  (the process is alive and its loop not stuck) and ``/readyz`` (connected, a
  rules table loaded). Port 0 takes a free port; the ``metrics_started`` event
  says which.
"""

from __future__ import annotations

import argparse
from typing import Any

from dlqhandler.errors import ConfigError
from dlqhandler.worker.metrics import HandlerMetrics, MetricsServer
from dlqhandler.worker.selection import Selector

__all__ = ["add_run_options", "check_run_options", "start_metrics"]


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The selection, pacing and metrics options (see the module docstring)."""
    group = parser.add_argument_group(
        "selection, pacing and metrics",
        "With --msgid or --match only the selected messages are acted on (others are "
        "left untouched, no attempt counted) and the run ends after one pass, unless the "
        "table says WAIT(YES).",
    )
    group.add_argument(
        "--msgid",
        action="append",
        metavar="HEX",
        help="act only on the message with this MsgId (hex, up to 24 bytes, "
        "NUL padded; repeatable)",
    )
    group.add_argument(
        "--match",
        metavar="PATTERN",
        help="act only on messages this rules-table pattern matches, e.g. "
        "'REASON(MQRC_Q_FULL) DESTQ(APP.*)'",
    )
    group.add_argument(
        "--older-than",
        metavar="AGE",
        help="act only on messages dead-lettered at least AGE ago (MQDLH "
        "PutDate/PutTime), e.g. 7d, 12h, 30m, 90s, 2w",
    )
    group.add_argument(
        "--newer-than", metavar="AGE", help="act only on messages dead-lettered at most AGE ago"
    )
    group.add_argument(
        "--max-rate",
        type=float,
        metavar="N",
        help="act on at most N messages per second (bursts of N); the unit "
        "of work is committed before any wait",
    )
    group.add_argument(
        "--metrics-port",
        type=int,
        metavar="N",
        help="serve /metrics, /healthz and /readyz on port N (0: a free "
        "port, logged in the metrics_started event)",
    )
    group.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        metavar="H",
        help="address the metrics server listens on (default 127.0.0.1; "
        "0.0.0.0 for every interface)",
    )


def check_run_options(args: argparse.Namespace) -> Selector:
    """The selector the options describe; ConfigError naming the option if unusable."""
    if args.max_rate is not None and not args.max_rate > 0:
        raise ConfigError(f"--max-rate {args.max_rate:g} must be a positive number")
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        raise ConfigError(f"--metrics-port {args.metrics_port} is not a TCP port")
    return Selector.parse(
        args.msgid, args.match, older_than=args.older_than, newer_than=args.newer_than
    )


def start_metrics(args: argparse.Namespace, log: Any) -> tuple[HandlerMetrics, MetricsServer]:
    """Start the metrics server (OSError when the address cannot be bound)."""
    metrics = HandlerMetrics()
    server = MetricsServer(metrics, args.metrics_port, host=args.metrics_host).start()
    host = args.metrics_host if ":" not in args.metrics_host else f"[{args.metrics_host}]"
    log.info(
        "metrics_started",
        host=args.metrics_host,
        port=server.port,
        url=f"http://{host}:{server.port}/metrics",
    )
    return metrics, server
