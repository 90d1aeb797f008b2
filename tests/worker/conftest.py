"""The handler tests' fixtures (defined in :mod:`tests.worker.fixtures`)."""

from tests.worker.fixtures import fresh_structlog, home, ledger, qm, run_cli

__all__ = ["fresh_structlog", "home", "ledger", "qm", "run_cli"]
