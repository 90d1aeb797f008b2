"""The command tests' fixtures: one test module per command of ``dlqhandler/cli/``, on the
handler tests' fixtures (defined in :mod:`tests.worker.fixtures`)."""

from tests.worker.fixtures import empty_home, fresh_structlog, home, ledger, qm, run_cli

__all__ = ["empty_home", "fresh_structlog", "home", "ledger", "qm", "run_cli"]
