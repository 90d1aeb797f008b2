"""What the CLI tests share: the command tree of a parser."""

from __future__ import annotations

import argparse

__all__ = ["command_parsers"]


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
