"""Prometheus's own tools for the ops tests: ``promtool`` and ``prometheus`` (Debian's
``prometheus`` package brings both)."""

from __future__ import annotations

import os
import shutil

REQUIRE_ENV = "DLQHANDLER_REQUIRE_PROMETHEUS"


def require_tool(name: str) -> str:
    """The path of ``promtool`` or ``prometheus``; skip when it is missing, unless
    ``$DLQHANDLER_REQUIRE_PROMETHEUS`` is set (as ``.ci/run`` does after installing the
    package): then the test fails."""
    import pytest

    path = shutil.which(name)
    if path is None:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{name} is missing: .ci/run installs it (apt-get install prometheus)")
        pytest.skip(f"{name} is not installed (apt-get install prometheus)")
    return path
