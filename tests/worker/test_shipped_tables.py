"""The rules tables shipped in rules/, run on the shipped backlog."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dlqhandler.errors import MalformedMessageError
from dlqhandler.formats import read_dump
from dlqhandler.mq import decode_dead_letter
from dlqhandler.qmgr import EmbeddedQueueManager
from dlqhandler.rules import RuleSet, compile_rules, decide, resolve_target
from tests.worker.helpers import (
    DLQ,
    ROOT,
    Ledger,
    RunCli,
    define,
    depth,
    load,
    start_handler,
    terminate,
    until,
)

BACKLOG = ROOT / "samples" / "backlog-small.dmp"


def _table(name: str) -> tuple[str, RuleSet]:
    text = (ROOT / "rules" / name).read_text()
    ruleset = compile_rules(text, source=name).ruleset
    assert ruleset is not None
    return text, ruleset


def _expected(ruleset: RuleSet, book: Ledger) -> tuple[dict[bytes, str], set[bytes]]:
    """Where each message must end when every put succeeds, and which are discarded."""
    where: dict[bytes, str] = {}
    discard: set[bytes] = set()
    for key, m in book.original.items():
        try:
            msg = decode_dead_letter(m.md, m.body)
        except MalformedMessageError:
            where[key] = DLQ
            continue
        decision = decide(ruleset, msg, 0)
        if decision.action.kind == "DISCARD":
            discard.add(key)
        elif decision.action.kind == "IGNORE":
            where[key] = DLQ
        else:
            assert decision.rule is not None
            target = resolve_target(decision.rule, msg)
            where[key] = (
                target.queue if target.qmgr in ("", "QM1") else (f"{target.queue}@{target.qmgr}")
            )
    return where, discard


def _load_backlog(
    qm: EmbeddedQueueManager, ruleset: RuleSet, extra: tuple[str, ...]
) -> tuple[Ledger, dict[bytes, str], set[bytes]]:
    load(qm, read_dump(BACKLOG))
    book = Ledger.of(qm)
    where, discard = _expected(ruleset, book)
    define(qm, *sorted({q for q in where.values() if q != DLQ and "@" not in q} | set(extra)))
    return book, where, discard


def _assert_placed(book: Ledger, where: dict[bytes, str], discard: set[bytes]) -> None:
    targets = sorted({q for q in where.values() if q != DLQ})
    book.check(targets, discarded=discard)
    wrong = {
        k.hex(): (book.where(m), where[k])
        for k, m in book.original.items()
        if k not in discard and book.where(m) != where[k]
    }
    assert not wrong


def test_demo_table_on_the_sample_backlog(qm, run_cli: RunCli) -> None:
    """rules/demo.rul on samples/backlog-small.dmp, every target defined: each message is
    retried, forwarded or discarded as its first matching rule says; the 7 without an
    MQDLH stay; nothing is lost or doubled."""
    text, ruleset = _table("demo.rul")
    book, where, discard = _load_backlog(
        qm, ruleset, ("DLQ.SECURITY", "DLQ.TOOBIG", "DLQ.CATCHALL")
    )

    run = run_cli(text)

    assert run.rc == 0, run.err
    _assert_placed(book, where, discard)
    assert run.summary("left on the queue") == 7
    assert run.summary("discarded") == len(discard) == 6
    assert run.summary("retried") + run.summary("forwarded") == 200 - 7 - 6
    assert len(run.events("group_moved")) == 9
    assert not run.events("put_failed")


def test_default_table_on_the_sample_backlog(home: Path, qm, tmp_path: Path) -> None:
    """rules/default.rul (WAIT(YES), so stopped with SIGTERM once the backlog is done)
    with its queues defined: security failures to DLQ.SECURITY, unknown names and
    oversized messages to DLQ.MANUAL, transient reasons retried, the rest to the
    catch-all; nothing is left but the messages without an MQDLH."""
    _text, ruleset = _table("default.rul")
    book, where, discard = _load_backlog(
        qm, ruleset, ("DLQ.SECURITY", "DLQ.MANUAL", "DLQ.CATCHALL")
    )
    log = tmp_path / "handler.log"
    child = start_handler(home, ROOT / "rules" / "default.rul", "--no-watch", log=log)
    try:
        until(lambda: depth(qm, DLQ) == 7, "the backlog was not handled", timeout=60)
    finally:
        out = terminate(child, timeout=30)
    assert child.returncode == 0
    assert "left on the queue               7" in out
    assert not discard
    _assert_placed(book, where, discard)


def test_every_shipped_table_starts(home: Path, qm) -> None:
    """Each table in rules/ is accepted by `dlqhandler run --dry-run` (positional INPUTQ
    and INPUTQM given, as the IBM examples leave them blank)."""
    for table in sorted((ROOT / "rules").glob("*.rul")):
        done = subprocess.run(
            [
                str(Path(ROOT / ".venv/bin/dlqhandler")),
                "run",
                DLQ,
                "QM1",
                "--rules",
                str(table),
                "--dry-run",
                "--log-format",
                "json",
            ],
            env={"DLQHANDLER_HOME": str(home), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (table.name, done.stderr)
        assert "AMQ8708" in done.stdout, table.name
