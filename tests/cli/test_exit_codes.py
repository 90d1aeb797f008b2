"""Exit codes are defined once (cli/exitcodes.py), tabled in the README and at the end of
every command's --help, and no command returns a bare number."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dlqhandler.cli import build_parser
from dlqhandler.cli.exitcodes import EPILOG, MEANINGS, ExitCode
from tests.cli.helpers import command_parsers

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "dlqhandler" / "cli"


def test_readme_table_is_the_exit_code_table() -> None:
    """The README's exit-code table lists exactly the codes, names and meanings defined."""
    rows = re.findall(
        r"^\| (\d+) \| `(\w+)` \| (.+) \|$", (ROOT / "README.md").read_text(), re.MULTILINE
    )
    assert [(int(c), n, t) for c, n, t in rows] == [
        (int(code), code.name, text) for code, text in MEANINGS.items()
    ]
    assert set(MEANINGS) == set(ExitCode)


def test_every_help_ends_with_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` of the program, of every command and of every qm action ends with the
    table, each code on its own line."""
    parsers = command_parsers(build_parser())
    assert {
        "dlqhandler run",
        "dlqhandler lint",
        "dlqhandler drain",
        "dlqhandler decode",
        "dlqhandler qm mqsc",
        "dlqhandler qm dmpmqmsg",
        "dlqhandler samples",
    } <= {name for name, _ in parsers}
    for name, parser in parsers:
        text = parser.format_help()
        assert text.rstrip().endswith(EPILOG.splitlines()[-1].strip()), name
        for code in ExitCode:
            assert re.search(rf"^ +{int(code)}  ", text, re.MULTILINE), (name, code)


def test_no_command_returns_a_bare_number() -> None:
    """The command modules return ExitCode members, never integer literals."""
    for path in CLI.glob("*.py"):
        if path.name == "exitcodes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                assert not isinstance(node.value.value, int), f"{path.name}:{node.lineno}"
