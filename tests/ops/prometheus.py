"""Prometheus's own tools for the ops tests: ``promtool`` and ``prometheus`` (Debian's
``prometheus`` package brings both)."""

from __future__ import annotations

from tests.required import PROMETHEUS


def require_tool(name: str) -> str:
    """The path of ``promtool`` or ``prometheus``; skip when it is missing, unless
    ``$DLQHANDLER_REQUIRE_PROMETHEUS`` is set (as ``.ci/run`` does after installing the
    package): then the test fails (:mod:`tests.required`)."""
    return PROMETHEUS.tool(name)
