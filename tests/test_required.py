"""The ``DLQHANDLER_REQUIRE_*`` switches (tests/required.py): a missing outside tool
skips its tests unless the switch is set, then fails them; ``.ci/run`` installs every
tool and sets every switch, so CI cannot pass with those tests skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import required
from tests.required import Requirement

ROOT = Path(__file__).resolve().parents[1]
SWITCHES = {  # JAVA, CHROMIUM, PROMETHEUS, SYSTEMD
    r.switch: r for r in vars(required).values() if isinstance(r, Requirement)
}


def test_a_missing_tool_skips_without_the_switch_and_fails_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the switch unset a missing tool skips the test, naming the tool and how to
    install it; with the switch set it fails the test; a tool on PATH is returned."""
    need = Requirement("DLQHANDLER_REQUIRE_TEST_ONLY", "apt-get install nothing")
    monkeypatch.delenv(need.switch, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no-such-tool-36 is not installed"):
        need.tool("no-such-tool-36")
    monkeypatch.setenv(need.switch, "1")
    with pytest.raises(pytest.fail.Exception, match=r"\$DLQHANDLER_REQUIRE_TEST_ONLY is set"):
        need.tool("no-such-tool-36")
    assert need.tool("no-such-tool-36", "sh").endswith("/sh")


def test_java_is_required_when_the_switch_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without java on PATH and without $JAVA_HOME the Spark tests skip, or fail when
    $DLQHANDLER_REQUIRE_JAVA is set."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("DLQHANDLER_REQUIRE_JAVA", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Java runtime"):
        required.require_java()
    monkeypatch.setenv("DLQHANDLER_REQUIRE_JAVA", "1")
    with pytest.raises(pytest.fail.Exception, match="no Java runtime"):
        required.require_java()


def test_ci_sets_every_switch_after_installing_the_tools() -> None:
    """`.ci/run` exports each switch tests/required.py defines (and no other), each after
    the line that installs its Debian package when its tool is missing."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    exported = {
        m.group(1): i
        for i, line in enumerate(lines)
        if (m := re.match(r"export (DLQHANDLER_REQUIRE_\w+)=1\b", line))
    }
    assert (
        set(exported)
        == set(SWITCHES)
        == {
            "DLQHANDLER_REQUIRE_JAVA",
            "DLQHANDLER_REQUIRE_CHROMIUM",
            "DLQHANDLER_REQUIRE_PROMETHEUS",
            "DLQHANDLER_REQUIRE_SYSTEMD",
        }
    )
    packages = {
        "DLQHANDLER_REQUIRE_JAVA": "openjdk-17-jdk-headless",
        "DLQHANDLER_REQUIRE_CHROMIUM": "chromium",
        "DLQHANDLER_REQUIRE_PROMETHEUS": "prometheus",
        "DLQHANDLER_REQUIRE_SYSTEMD": "systemd",
    }
    for switch, at in exported.items():
        installs = [
            i
            for i, line in enumerate(lines)
            if "apt-get install" in line and line.rstrip("; }").endswith(packages[switch])
        ]
        assert installs, switch
        assert installs[0] < at, switch
        assert packages[switch] in SWITCHES[switch].install
