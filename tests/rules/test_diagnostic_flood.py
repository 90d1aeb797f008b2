"""A table of junk must not flood the terminal, the log or memory (issue 28).

As compilers do, ``lint`` and ``run`` show the first 100 diagnostics by position, then how
many more there are, by code; the compiler keeps at most that many (the rest are counted),
so memory for diagnostics is bounded. Control characters in echoed source lines are shown
escaped. The counts, the exit codes and the diagnostics shown are those of the uncapped
compile.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.rules import Severity, compile_rules
from dlqhandler.rules.diagnostics import BoundedDiagnostics, Diagnostic

HEADER = re.compile(r"^\S+:\d+:\d+: (error|warning)\[[EW]\d{3}\]: ", re.MULTILINE)
MORE = re.compile(r": (\d+) more diagnostics not shown \(([^)]*)\)")
SUMMARY = re.compile(r"^(\d+) errors, (\d+) warnings in 1 files$", re.MULTILINE)


def _junk(size: int, seed: int = 28) -> bytes:
    """Seeded junk: random bytes with a newline now and then, ESC and NUL included."""
    rng = random.Random(seed)
    out = bytearray(rng.randbytes(size))
    for i in range(0, size, 97):
        out[i] = 0x0A
    return bytes(out)


@pytest.fixture(scope="module")
def junk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("junk") / "junk.rul"
    path.write_bytes(_junk(200_000))
    return path


def test_bounded_collector_keeps_the_first_by_position_in_bounded_space() -> None:
    """Fed 20,000 diagnostics in random order, the collector never holds more than
    2 x limit + 16, keeps exactly the first 100 by position and counts the rest by code."""
    rng = random.Random(5)
    every = [
        Diagnostic("t.rul", line, col, Severity.ERROR, f"E10{line % 9 + 1}", "m")
        for line in range(1, 2001)
        for col in range(1, 11)
    ]
    shuffled = every[:]
    rng.shuffle(shuffled)
    bounded = BoundedDiagnostics(100)
    most = 0
    for d in shuffled:
        bounded.append(d)
        most = max(most, len(bounded))
    assert most <= 2 * 100 + 16
    ordered = sorted(every, key=Diagnostic.sort_key)
    assert bounded.kept() == tuple(ordered[:100])
    assert bounded.omitted == Counter(d.code for d in ordered[100:])
    assert bounded.errors == len(every)


def test_a_capped_compile_is_the_start_of_the_full_one(junk: Path) -> None:
    """compile_rules(max_diagnostics=100) of 200 KB of junk keeps 100 diagnostics, the first
    100 of the uncapped compile, and counts the others by code: same errors and warnings."""
    data = junk.read_bytes()
    full = compile_rules(data, source="junk.rul")
    capped = compile_rules(data, source="junk.rul", max_diagnostics=100)
    assert len(full.diagnostics) > 5000
    assert capped.diagnostics == full.diagnostics[:100]
    assert dict(capped.omitted) == dict(Counter(d.code for d in full.diagnostics[100:]))
    for severity in Severity:
        assert capped.count(severity) == full.count(severity)
    assert capped.ruleset is None


def test_a_table_under_the_limit_is_compiled_exactly_as_before() -> None:
    """A table with fewer diagnostics than the limit: the same diagnostics, none omitted,
    and the same compiled rules."""
    table = (
        "REASON(2053)ACTION(DISCARD)\nDESTQ(lower) ACTION(IGNORE)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\nACTION(FWD) FWDQ(DLQ.CATCHALL)\n"
    )
    full = compile_rules(table)
    capped = compile_rules(table, max_diagnostics=100)
    assert capped.diagnostics == full.diagnostics
    assert len(full.diagnostics) >= 2
    assert capped.omitted == {}
    assert capped.ruleset == full.ruleset


def test_lint_of_junk_shows_100_then_a_count(
    junk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """lint of junk prints 100 diagnostics, one line counting the rest by code, and the
    summary of the uncapped compile (--error-limit 0 shows every one); exit 1."""
    assert main(["lint", str(junk)]) == 1
    out = capsys.readouterr().out
    assert len(HEADER.findall(out)) == 100
    more = MORE.search(out)
    assert more is not None
    assert "\x1b" not in out
    assert main(["lint", "--error-limit", "0", str(junk)]) == 1
    everything = capsys.readouterr().out
    shown = len(HEADER.findall(everything))
    assert int(more[1]) == shown - 100
    assert MORE.search(everything) is None
    summary = SUMMARY.search(out)
    assert summary is not None
    assert summary.groups() == SUMMARY.findall(everything)[0]
    assert len(out) < len(everything) / 20


def test_error_limit_and_json(junk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--error-limit 5 shows 5; --format json lists 100 diagnostics and the omitted ones by
    code, adding up to the uncapped count."""
    assert main(["lint", "--error-limit", "5", str(junk)]) == 1
    assert len(HEADER.findall(capsys.readouterr().out)) == 5
    assert main(["lint", "--format", "json", str(junk)]) == 1
    data = json.loads(capsys.readouterr().out)["files"][0]
    assert len(data["diagnostics"]) == 100
    full = compile_rules(junk.read_bytes(), source=str(junk))
    assert 100 + sum(data["omitted"].values()) == len(full.diagnostics)


def test_error_limit_refuses_a_negative_number(
    junk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--error-limit -1 is a usage error (exit 2)."""
    with pytest.raises(SystemExit) as exc:
        main(["lint", "--error-limit", "-1", str(junk)])
    assert exc.value.code == 2
    assert "argument --error-limit" in capsys.readouterr().err


def test_require_catch_all_counts_a_missing_catch_all_beyond_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """150 rules, each with a long-line warning, and no catch-all: W505 is on the last line,
    beyond the first 100 shown, and --require-catch-all still makes it an error (exit 1)."""
    rules = "".join(
        f"DESTQ(Q{i:03d}.{'A' * 38}) APPLNAME({'B' * 20}) ACTION(DISCARD)\n" for i in range(150)
    )
    path = tmp_path / "long.rul"
    path.write_text(rules)
    assert main(["lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "W505 x1" in out
    assert main(["lint", "--require-catch-all", str(path)]) == 1
    summary = SUMMARY.search(capsys.readouterr().out)
    assert summary is not None
    assert summary[1] == "1"


def test_control_characters_in_echoed_lines_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ESC (and a CR) in a table reaches neither lint's nor run's output raw: shown as
    \\x1b, with the caret still under it; JSON output escapes it too."""
    path = tmp_path / "esc.rul"
    path.write_bytes(b"REASON(2053) ACTION(IGNORE) APPLNAME(\x1b[2J\rX)\n")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\r" not in out
    lines = out.splitlines()
    echoed = next(i for i, line in enumerate(lines) if line.startswith("  REASON"))
    assert lines[echoed] == "  REASON(2053) ACTION(IGNORE) APPLNAME(\\x1b[2J\\x0dX)"
    caret = lines[echoed + 1].index("^")
    assert lines[echoed][caret : caret + 4] == "\\x1b"
    assert main(["lint", "--format", "json", str(path)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert json.loads(out)["files"][0]["diagnostics"]
    assert main(["run", "--rules", str(path), "--dry-run"]) == 3
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\\x1b" in err


def test_run_on_junk_prints_100_then_a_count(
    junk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """run with a junk table: 100 diagnostics on stderr, a count of the rest (pointing at
    lint --error-limit 0), AMQ8758 with the full error count, exit 3, nothing connected."""
    monkeypatch.setenv("DLQHANDLER_HOME", str(tmp_path / "home"))
    assert main(["run", "--rules", str(junk), "--dry-run"]) == 3
    err = capsys.readouterr().err
    assert len(HEADER.findall(err)) == 100
    assert "lint --error-limit 0" in err
    full = compile_rules(junk.read_bytes(), source=str(junk))
    assert f"{full.count(Severity.ERROR)} errors detected in input" in err
    assert len(err) < 200_000
