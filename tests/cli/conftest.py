"""The command tests' fixtures: one test module per command of ``dlqhandler/cli/``, on the
handler tests' fixtures (defined in :mod:`tests.worker.fixtures`), plus the two that the
``lint`` and ``test`` command tests share: a file writer and ``dlqhandler test`` in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.capture import CaptureResult

from dlqhandler.cli import main
from tests.cli.helpers import DlqTest, Write
from tests.worker.fixtures import empty_home, fresh_structlog, home, ledger, qm, run_cli

__all__ = ["dlq_test", "empty_home", "fresh_structlog", "home", "ledger", "qm", "run_cli", "write"]


@pytest.fixture
def write(tmp_path: Path) -> Write:
    """Write a UTF-8 file (a rules table, a case file) under tmp_path and return its path."""

    def _write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return _write


@pytest.fixture
def dlq_test(capsys: pytest.CaptureFixture[str]) -> DlqTest:
    """``dlqhandler test ARGV`` in-process: its exit code is held to ``code`` and what it
    printed (stdout and stderr, taken from capsys) is returned."""

    def _run(*argv: str, code: int) -> CaptureResult[str]:
        assert main(["test", *argv]) == code
        return capsys.readouterr()

    return _run
