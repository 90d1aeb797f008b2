"""Fixtures of the handler's end-to-end tests, shared with the reliability suite: a private
home with QM1, an admin connection, the CLI in-process, the conservation ledger.

Defined once here; ``tests/worker/conftest.py``, ``tests/reliability/conftest.py`` and
``tests/cli/conftest.py`` make them available. Helpers that are not fixtures live in
:mod:`tests.worker.helpers`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from dlqhandler.cli import main
from dlqhandler.qmgr import EmbeddedQueueManager, connect, create_qmgr
from tests.worker.helpers import DLQ, Ledger, Run, RunCli

__all__ = ["empty_home", "fresh_structlog", "home", "ledger", "qm", "run_cli"]


@pytest.fixture(autouse=True)
def fresh_structlog() -> Iterator[None]:
    """Each test starts and ends with structlog's defaults (no stream left configured)."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


@pytest.fixture
def empty_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty $DLQHANDLER_HOME (no queue manager yet)."""
    path = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(path))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    monkeypatch.delenv("DLQHANDLER_LOG_LEVEL", raising=False)
    return path


@pytest.fixture
def home(empty_home: Path) -> Path:
    """A private $DLQHANDLER_HOME holding one embedded queue manager, QM1."""
    create_qmgr(empty_home, "QM1")
    return empty_home


@pytest.fixture
def qm(home: Path) -> Iterator[EmbeddedQueueManager]:
    """An admin connection to QM1 (the test's own; the handler makes its own)."""
    conn = connect("QM1", home=home, user="tester", appl_name="worker-tests")
    yield conn
    conn.disconnect()


@pytest.fixture
def run_cli(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> RunCli:
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
