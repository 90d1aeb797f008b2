"""Every rules table shipped in ``rules/`` compiles, lints clean and passes its case file."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlqhandler.cli import main
from dlqhandler.rules import compile_rules, decide
from dlqhandler.rules.checks import is_catch_all
from tests.conformance.messages import build_message

RULES_DIR = Path(__file__).resolve().parents[2] / "rules"
TABLES = sorted(RULES_DIR.glob("*.rul"))

# Warnings a shipped table may have, each explained in rules/README.md.
DOCUMENTED_WARNINGS: dict[str, list[tuple[str, int]]] = {
    "ibm-example.rul": [("W104", 29), ("W104", 30)],
}


def test_the_expected_tables_are_shipped() -> None:
    """The four tables the README describes exist, and the README names each."""
    names = {p.name for p in TABLES}
    assert names == {"ibm-example.rul", "zos-example.rul", "default.rul", "demo.rul"}
    readme = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in names)


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_shipped_table_passes_its_case_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each table has ``<name>.cases.yaml`` beside it (its ``rules:`` key names the table),
    named in rules/README.md; `dlqhandler test` passes it with every rule deciding at
    least one case (--fail-under 100)."""
    cases = path.with_suffix(".cases.yaml")
    assert cases.is_file()
    assert f"`{cases.name}`" in (RULES_DIR / "README.md").read_text(encoding="utf-8")
    assert main(["test", str(cases), "--fail-under", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].endswith(" passed, 0 failed")
    assert int(out[-1].split()[0]) >= len(compile_rules(path.read_text()).ruleset.rules)  # type: ignore[union-attr]


def test_every_case_file_has_its_table() -> None:
    """No case file in rules/ is left without the table of its name."""
    for cases in RULES_DIR.glob("*.cases.yaml"):
        assert (RULES_DIR / cases.name.replace(".cases.yaml", ".rul")).is_file()


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_shipped_table_lints_clean(path: Path) -> None:
    """No errors, and only the documented warnings (triggered mode included)."""
    text = path.read_text(encoding="utf-8")
    result = compile_rules(text, source=str(path))
    assert result.ruleset is not None, [str(d) for d in result.diagnostics]
    found = [(d.code, d.line) for d in result.diagnostics]
    assert found == DOCUMENTED_WARNINGS.get(path.name, [])
    triggered = compile_rules(text, source=str(path), triggered=True)
    assert [(d.code, d.line) for d in triggered.diagnostics] == found
    assert all(len(line.rstrip()) <= 72 for line in text.splitlines())
    assert is_catch_all(result.ruleset.rules[-1])


def test_ibm_example_layout_compiles_to_the_canonical_rules() -> None:
    """The source layout (continuations, lower case) gives spec §7.1's canonical rules."""
    rs = compile_rules((RULES_DIR / "ibm-example.rul").read_text(encoding="utf-8")).ruleset
    assert rs is not None
    texts = [r.text for r in rs.rules]
    assert texts[2] == (
        "MSGTYPE(MQMT_REQUEST) REPLYQM(AAAA.*) ACTION(FWD) FWDQ(DEADQ) FWDQM(&REPLYQM)"
    )
    r4 = rs.rules[3]
    assert [(p.keyword, getattr(p, "pattern", None)) for p in r4.predicates] == [
        ("DESTQM", "BBBB.1")
    ]
    assert (r4.action.fwdq, r4.action.fwdqm, r4.action.header) == ("&DESTQ", "BBBB.2", False)
    assert len(rs.rules) == 8


def test_demo_table_targets_stay_on_qm1() -> None:
    """The demo forwards only to local queues; retries, discards and catch-all as described."""
    rs = compile_rules(
        (RULES_DIR / "demo.rul").read_text(encoding="utf-8"), input_queue="SYSTEM.DEAD.LETTER.QUEUE"
    ).ruleset
    assert rs is not None
    assert (rs.control.inputq, rs.control.inputqm) == ("SYSTEM.DEAD.LETTER.QUEUE", "QM1")
    assert all(r.action.fwdqm is None for r in rs.rules)
    full = build_message({"REASON": 2053})
    assert [decide(rs, full, n).action.kind for n in range(5)] == [
        "RETRY",
        "RETRY",
        "RETRY",
        "FWD",
        "IGNORE",
    ]
    assert decide(rs, full, 3).action.fwdq == "DLQ.CATCHALL"
    report = build_message({"REASON": 2085, "MSGTYPE": 4, "PERSIST": 0})
    assert decide(rs, report, 0).action.kind == "DISCARD"
    too_big = decide(rs, build_message({"REASON": 2030}), 0).action
    assert (too_big.fwdq, too_big.header) == ("DLQ.TOOBIG", True)
    bbbb = decide(rs, build_message({"REASON": 2087, "DESTQM": "BBBB.1"}), 0).action
    assert (bbbb.fwdq, bbbb.header) == ("&DESTQ", False)
    assert decide(rs, build_message({"REASON": 2035}), 0).action.fwdq == "DLQ.SECURITY"
