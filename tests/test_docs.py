"""README.md and docs/: a front door that stays short, links that resolve, nothing outside
the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))


def test_readme_starts_with_the_two_commands_and_stays_short() -> None:
    """The README opens with `make demo` and `make test` as its set-up commands and stays
    well under 300 lines (the rest lives in docs/)."""
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```\n(.*?)```", text, re.DOTALL)
    assert first_block is not None
    assert first_block.group(1) == "make demo\nmake test\n"
    assert len(text.splitlines()) < 300


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_relative_links_resolve(page: Path) -> None:
    """Every relative Markdown link of the README and of docs/ names a file that exists."""
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
    relative = [t for t in targets if "://" not in t]
    missing = [t for t in relative if not (page.parent / t).exists()]
    assert not missing


@pytest.mark.parametrize(
    "path",
    [
        "ops/systemd/dlqhandler.service",
        "ops/systemd/dlqhandler.env.example",
        "ops/grafana/dlqhandler-dashboard.json",
        "ops/mqsc/dlq-queues.mqsc",
        "ops/mqsc/dlq-triggered.mqsc",
        "ops/spark/submit.sh",
    ],
)
def test_readme_names_the_production_files(path: str) -> None:
    """The README's production section names each shipped ops file, and each exists."""
    assert path in README.read_text(encoding="utf-8")
    assert (ROOT / path).is_file()


def test_nothing_refers_outside_the_repository() -> None:
    """No tracked file names the shared folder beside the checkout or the absolute path of
    the machine it was written on: a clone is the whole project."""
    found = subprocess.run(
        ["git", "grep", "-n", "-E", r"\.\./shared|/wor[k]/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 1, found.stdout
