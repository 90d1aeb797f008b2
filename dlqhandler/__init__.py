"""dlqhandler: a rules-engine dead-letter-queue handler for IBM MQ.

The packages and which way their imports point: docs/architecture.md ("The floors"), held
by tests/test_architecture.py. This module imports none of them."""

__version__ = "0.1.0"
__all__ = ["__version__"]
