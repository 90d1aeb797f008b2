"""The outside tools some tests need, and what a test does when one is missing.

A test that needs Java, chromium, Prometheus's tools or ``systemd-analyze`` skips when
the tool is not installed, so that ``make test`` runs on a laptop without them; unless
the tool's ``DLQHANDLER_REQUIRE_*`` switch is set, as ``.ci/run`` sets every one after
installing the tools: then the test fails, and a CI run cannot pass with the checks
silently skipped.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import NoReturn

__all__ = [
    "CHROMIUM",
    "JAVA",
    "PROMETHEUS",
    "SYSTEMD",
    "Requirement",
    "require_java",
    "require_javac",
]


@dataclass(frozen=True)
class Requirement:
    """One outside tool set: the switch that makes its absence a failure, and how to
    install it (a Debian package, as ``.ci/run`` does)."""

    switch: str
    install: str

    def missing(self, what: str) -> NoReturn:
        """Skip the test because ``what`` is missing; fail it when the switch is set."""
        import pytest

        if os.environ.get(self.switch):
            pytest.fail(f"{what}, and ${self.switch} is set: {self.install}", pytrace=False)
        pytest.skip(f"{what} ({self.install})")

    def tool(self, *names: str) -> str:
        """The path of the first of ``names`` on PATH; when none is there, see
        :meth:`missing`."""
        found = [path for path in map(shutil.which, names) if path is not None]
        if not found:
            self.missing(f"{' or '.join(names)} is not installed")
        return found[0]


JAVA = Requirement(
    "DLQHANDLER_REQUIRE_JAVA", "apt-get install openjdk-17-jdk-headless (.ci/run does)"
)
CHROMIUM = Requirement("DLQHANDLER_REQUIRE_CHROMIUM", "apt-get install chromium (.ci/run does)")
PROMETHEUS = Requirement(
    "DLQHANDLER_REQUIRE_PROMETHEUS", "apt-get install prometheus (.ci/run does)"
)
SYSTEMD = Requirement("DLQHANDLER_REQUIRE_SYSTEMD", "apt-get install systemd (.ci/run does)")


def require_java() -> None:
    """A Java runtime for Spark: ``java`` on PATH or ``$JAVA_HOME`` set."""
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        JAVA.missing("no Java runtime (java on PATH or $JAVA_HOME): Spark needs Java 17")


def require_javac() -> None:
    """A JDK's ``javac``, which builds the data source's jar."""
    from dlqhandler.spark._jarbuild import javac

    if javac() is None:
        JAVA.missing("no JDK (javac) to build the jar")
