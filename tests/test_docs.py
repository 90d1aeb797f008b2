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


# A measured figure as the README would state one: a ratio (0.781), a rate (2,959 msg/s),
# a time in decimal seconds (40.3 s), a multiple (2.1 times).
# Not part of a longer dotted number (an address, a version).
_FIGURE = re.compile(
    r"(?<![\d.])(?:"
    r"0\.\d+(?![\d.])"
    r"|\d[\d,]*(?:\.\d+)?(?= ?(?:msg/s|MB/s|rules/s|times\b))"
    r"|\d+\.\d+(?= ?s\b)"
    r")"
)


def _stated_figures(text: str) -> list[str]:
    return _FIGURE.findall(text)


def test_readme_states_only_figures_the_generated_results_page_holds() -> None:
    """Every measured figure the README states (a ratio, a rate, a time in decimal seconds,
    a multiple) is one of the figures of docs/performance-results.md, the page `make bench`
    writes with the machine and date, and then the README gives that date; figures from
    elsewhere are not given (docs/performance.md explains them)."""
    page = (ROOT / "docs" / "performance-results.md").read_text(encoding="utf-8")
    measured = re.search(r"^Measured (\d{4}-\d\d-\d\d)T", page, re.MULTILINE)
    assert measured is not None
    table = {
        cell.strip()
        for line in page.splitlines()
        if line.startswith("|")
        for cell in line.strip("|").split("|")
    }
    numbers = {n for cell in table for n in re.findall(r"\d[\d,]*(?:\.\d+)?", cell)}
    readme = README.read_text(encoding="utf-8")
    stated = _stated_figures(readme)
    assert not [f for f in stated if f not in numbers]
    if stated:
        assert measured.group(1) in readme


def test_the_figure_check_sees_figures() -> None:
    """The README check finds the kinds of figure a README would state (so an empty list
    means the README states none, not that the pattern misses them)."""
    text = (
        "drains in 40.3 s as a whole process, 0.63 of Spark's own copy; the warm drain is "
        "2.1 times the script, 2,959 msg/s; exit 2; Python 3.11; RETRYINT 10 s; 127.0.0.1"
    )
    assert _stated_figures(text) == ["40.3", "0.63", "2.1", "2,959"]
