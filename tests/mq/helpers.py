"""Helpers of the MQ data model's tests."""

from __future__ import annotations

from collections.abc import Callable

from dlqhandler.errors import DLQHandlerError

__all__ = ["raised"]


def raised(call: Callable[[], object]) -> DLQHandlerError | None:
    """Run ``call``; return the DLQHandlerError it raised, None if it returned (anything
    else propagates, so a test that expects only our errors sees any other)."""
    try:
        call()
    except DLQHandlerError as exc:
        return exc
    return None
