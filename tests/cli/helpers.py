"""What the CLI tests share: the command tree of a parser, the shipped files the ``test``
command tests read, and the types of the fixtures of ``tests/cli/conftest.py``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from _pytest.capture import CaptureResult

__all__ = ["BACKLOG", "DEMO", "ROOT", "DlqTest", "Write", "command_parsers"]

ROOT = Path(__file__).resolve().parents[2]
BACKLOG = ROOT / "samples" / "backlog-small.dmp"
DEMO = ROOT / "rules" / "demo.rul"

Write = Callable[[str, str], str]
"""The ``write`` fixture: write (name, text) under tmp_path, return the path."""


class DlqTest(Protocol):
    """The ``dlq_test`` fixture: ``dlqhandler test ARGV`` held to an exit code."""

    def __call__(self, *argv: str, code: int) -> CaptureResult[str]: ...


def command_parsers(
    parser: argparse.ArgumentParser, path: str = "dlqhandler"
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every (sub)command's parser, with its command line (``dlqhandler qm create``...)."""
    out = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                out += command_parsers(child, f"{path} {name}")
    return out
