"""The table of diagnostic codes feeds the messages, and each example produces its code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dlqhandler.rules import CODES, Severity, compile_rules
from dlqhandler.rules.diagnostics import make_diagnostic

PKG = Path(__file__).resolve().parents[2] / "dlqhandler" / "rules"


@pytest.mark.parametrize("code", sorted(CODES))
def test_each_code_is_produced_by_its_example(code: str) -> None:
    """Compiling the example of a code reports that code, with that code's severity."""
    info = CODES[code]
    result = compile_rules(
        info.example, source="example", triggered=info.triggered, input_queue=info.input_queue
    )
    found = [d for d in result.diagnostics if d.code == code]
    assert found, [str(d) for d in result.diagnostics]
    assert all(d.severity == info.severity for d in found)
    assert all(d.message and "{" not in d.message for d in found)


def test_codes_are_well_formed() -> None:
    """E codes are errors, W codes warnings; each has a summary, a message and an example."""
    for code, info in CODES.items():
        assert re.fullmatch(r"[EW][1-5]\d\d", code)
        assert info.code == code
        assert info.severity == (Severity.ERROR if code[0] == "E" else Severity.WARNING)
        assert info.summary
        assert info.message
        assert info.example


def test_every_code_used_in_the_source_is_in_the_table() -> None:
    """No stage emits a code the table does not describe."""
    used: set[str] = set()
    for path in PKG.glob("*.py"):
        if path.name != "diagnostics.py":
            used |= set(re.findall(r'"([EW][1-5]\d\d)"', path.read_text(encoding="utf-8")))
    assert used - set(CODES) == set()
    assert set(CODES) - used == set(), "codes in the table that nothing produces"


def test_make_diagnostic_fills_templates() -> None:
    """Messages and hints are the table's templates filled with the given fields."""
    d = make_diagnostic("E101", "t.rul", 3, 14, keyword="RETRIES", suggestion="did you mean RETRY?")
    assert str(d) == "t.rul:3:14: error[E101]: unknown keyword RETRIES"
    assert d.hint == "did you mean RETRY?"
    assert d.severity == "error"


def test_did_you_mean() -> None:
    """Unknown keywords and values come with the most likely intended spelling."""
    result = compile_rules(
        "REASON(2053) RETRIES(3) ACTION(RETRY)\nACT(IGNORE)\n"
        "ACTION(FORWARD) FWDQ(X)\nACTION(FWD) FWDQ(X) HEADER(Y)\n"
        "RETRYI(5)\n"
    )
    hints = {(d.line, d.code): d.hint for d in result.diagnostics}
    assert hints[(1, "E101")] == "did you mean RETRY?"
    assert hints[(2, "E101")] == "did you mean ACTION?"
    assert hints[(3, "E310")] == "did you mean FWD?"
    assert hints[(4, "E310")] == "did you mean YES?"
    assert hints[(5, "E101")] == "did you mean RETRYINT?"
