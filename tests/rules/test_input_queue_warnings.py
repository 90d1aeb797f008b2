"""The loop warnings against the DLQ a handler reads, added to a compiled table without
compiling it again (``CompileResult.for_input_queue``, what ``dlqhandler run`` does once it
has connected), are exactly what compiling with that input queue gives."""

from __future__ import annotations

import pytest

from dlqhandler.rules import compile_rules

TABLES = [
    "ACTION(FWD) FWDQ(DLQ)\n",
    "INPUTQ(DLQ) ACTION(FWD) FWDQ(DLQ)\nACTION(FWD) FWDQ(OTHER)\n",
    "REASON(MQRC_Q_FULL) ACTION(RETRY)\nACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n",
    "ACTION(FWD) FWDQ(DLQ) FWDQM(QM2)\nDESTQ(A) ACTION(FWD) FWDQ(DLQ)\nACTION(DISCARD)\n",
    "INPUTQM(QM1) ACTION(FWD) FWDQ(DLQ) FWDQM(QM1)\n",
    "ACTION(FWD) FWDQ(&DESTQ)\n",
    "ACTION(IGNORE)\nACTION(FWD) FWDQ(DLQ)\n",  # shadowed: W501 and W504 both
    "ACTION(FWD) FWDQ(\n",  # errors: no ruleset, nothing to add
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("queue", ["DLQ", "SYSTEM.DEAD.LETTER.QUEUE", "OTHER"])
@pytest.mark.parametrize("triggered", [False, True])
def test_for_input_queue_is_compiling_with_that_queue(table: str, queue: str, triggered) -> None:
    """Same diagnostics, same order, same table, for every table and queue."""
    once = compile_rules(table, source="t.rul", triggered=triggered).for_input_queue(queue)
    again = compile_rules(table, source="t.rul", input_queue=queue, triggered=triggered)
    assert once.diagnostics == again.diagnostics
    assert once.ruleset == again.ruleset


def test_run_compiles_its_table_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dlqhandler run` compiles its table once: before connecting (errors: exit 3, nothing
    touched); the loop warning against the DLQ it then reads (the queue manager's DEADQ,
    named nowhere in the table) is still said, without a second compile (issue 37)."""
    import dlqhandler.cli.run as run_module
    from dlqhandler.cli import main
    from dlqhandler.qmgr import create_qmgr

    home = tmp_path / "home"
    monkeypatch.setenv("DLQHANDLER_HOME", str(home))
    monkeypatch.delenv("DLQHANDLER_QMGR", raising=False)
    create_qmgr(home, "QM1")
    calls: list[str] = []
    real = run_module.compile_rules

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("source", ""))
        return real(*args, **kwargs)

    monkeypatch.setattr(run_module, "compile_rules", counting)
    monkeypatch.setattr(run_module, "configure_logging", lambda **_: None)
    table = tmp_path / "t.rul"
    table.write_text("WAIT(NO)\nACTION(FWD) FWDQ(SYSTEM.DEAD.LETTER.QUEUE)\n")

    assert main(["run", "--rules", str(table), "--no-watch"]) == 0
    assert calls == [str(table)]
    assert "W504" in capsys.readouterr().err
