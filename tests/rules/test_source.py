"""How a rules table's bytes are read (dlqhandler/rules/source.py): CR-only line ends are
one error, E111, for a table written that way, and never for bytes that merely hold as
many lone CRs as LFs (random garbage keeps its per-line diagnostics, capped and counted)."""

from __future__ import annotations

import random

from dlqhandler.rules import compile_rules


def test_a_cr_only_table_is_one_e111_even_with_a_stray_lf_at_its_end() -> None:
    """A table whose lines end with CR alone (as classic Mac OS wrote them), with or
    without one LF at its very end, is one error E111."""
    table = "".join(f"DESTQ(Q{i}) ACTION(DISCARD)\r" for i in range(20))
    for text in (table, table + "\n"):
        assert [d.code for d in compile_rules(text).diagnostics] == ["E111"]


def test_random_bytes_are_not_taken_for_cr_only_line_ends() -> None:
    """Bytes with about as many lone CRs as LFs (here more CRs than LFs, which random
    data gives half the time) are junk, not a CR-only table: many diagnostics, no E111."""
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(200_000))
    data = data.replace(b"\n", b"\r", 1)  # one lone CR more than LFs
    result = compile_rules(data, max_diagnostics=100)
    codes = {d.code for d in result.diagnostics}
    assert "E111" not in codes
    assert "E110" not in codes
    assert result.omitted_count > 100
