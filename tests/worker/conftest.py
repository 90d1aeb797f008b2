"""Fixtures for the handler's end-to-end tests: a private home with QM1, the CLI in-process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from tests.worker.helpers import DLQ, Ledger

ROOT = Path(__file__).resolve().parents[2]
DLQHANDLER = Path(sys.executable).parent / "dlqhandler"


@pytest.fixture(autouse=True)
def _fresh_structlog() -> Iterator[None]:
    """Each test starts and ends with structlog's defaults (no stream left configured)."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private $DLQHANDLER_HOME holding one embedded queue manager, QM1."""
    path = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(path))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    monkeypatch.delenv("DLQHANDLER_LOG_LEVEL", raising=False)
    create_qmgr(path, "QM1")
    return path


@pytest.fixture
def qm(home: Path) -> Iterator[EmbeddedQueueManager]:
    """An admin connection to QM1 (the test's own; the handler makes its own)."""
    conn = connect("QM1", home=home, user="tester", appl_name="worker-tests")
    yield conn
    conn.disconnect()


@dataclass
class Run:
    """One ``dlqhandler run``: exit code, stdout, stderr, captured log events."""

    rc: int
    out: str
    err: str
    logs: list[dict[str, Any]] = field(default_factory=list)

    def events(self, name: str, **match: Any) -> list[dict[str, Any]]:
        return [e for e in self.logs if e.get("event") == name
                and all(e.get(k) == v for k, v in match.items())]

    def summary(self, label: str) -> int:
        """A count from the printed summary (``label`` as printed, e.g. 'forwarded')."""
        for line in self.out.splitlines():
            if line.strip().startswith(label + " ") or line.strip() == label:
                return int(line.split()[-1])
        raise AssertionError(f"no {label!r} in summary:\n{self.out}")


RunCli = Callable[..., Run]


@pytest.fixture
def run_cli(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """``dlqhandler run`` in-process: rules text in, a :class:`Run` out.

    Logs are captured as events (structlog's ``capture_logs``) unless
    ``rendered=True``, which keeps the real log output on stderr.
    """
    import dlqhandler.cli.run as run_module

    def run(rules: str, *args: str, rendered: bool = False, watch: bool = False) -> Run:
        path = tmp_path / "rules.rul"
        path.write_text(rules, encoding="utf-8")
        argv = ["run", "--rules", str(path), *args]
        if not watch:
            argv.append("--no-watch")
        capsys.readouterr()
        if rendered:
            rc = main(argv)
            captured = capsys.readouterr()
            return Run(rc, captured.out, captured.err)
        with monkeypatch.context() as m:
            m.setattr(run_module, "configure_logging", lambda **_: None)
            with capture_logs() as logs:
                rc = main(argv)
        captured = capsys.readouterr()
        return Run(rc, captured.out, captured.err, list(logs))

    return run


@pytest.fixture
def ledger(qm: EmbeddedQueueManager) -> Callable[[], Ledger]:
    """Call after loading the DLQ: records what is there, to check conservation later."""
    return lambda: Ledger.of(qm, DLQ)


def start_handler(home: Path, rules: Path, *args: str,
                  log: Path | None = None) -> subprocess.Popen[str]:
    """``dlqhandler run`` as a child process (JSON logs to ``log``)."""
    env = {**os.environ, "DLQHANDLER_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    env.pop("DLQHANDLER_QMGR", None)
    stderr = log.open("w") if log is not None else subprocess.DEVNULL
    try:
        return subprocess.Popen([str(DLQHANDLER), "run", "--rules", str(rules),
                                 "--log-format", "json", *args],
                                cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
                                stderr=stderr)
    finally:
        if log is not None:
            stderr.close()  # type: ignore[union-attr]
