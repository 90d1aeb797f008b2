"""dlqhandler: a rules-engine dead-letter-queue handler for IBM MQ."""

__version__ = "0.1.0"
__all__ = ["__version__"]
