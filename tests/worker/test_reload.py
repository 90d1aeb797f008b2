"""Hot reload of the rules table: file changes (watchdog) and SIGHUP, good and bad."""

from __future__ import annotations

import hashlib
import signal
from pathlib import Path

from tests.worker.helpers import (
    Ledger,
    dead_letter,
    define,
    depth,
    json_events,
    load,
    start_handler,
    until,
)

OLD = "RETRYINT(1) WAIT(YES)\nDESTQ(APP.*) ACTION(FWD) FWDQ(OLD.T)\n"
NEW = (
    "RETRYINT(1) WAIT(YES)\nDESTQ(APP.*) ACTION(FWD) FWDQ(NEW.T)\n"
    "DESTQ(HELD.Q) ACTION(FWD) FWDQ(NEW.T)\n"
)
BAD = "RETRYINT(1) WAIT(MAYBE)\nDESTQ(APP.*) ACTION(FWD)\nREASON(NO_SUCH_REASON) ACTION(RETRY)\n"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class _Child:
    """A handler process and its JSON log."""

    def __init__(self, home: Path, rules: Path, log: Path, *args: str) -> None:
        self.log = log
        self.proc = start_handler(home, rules, *args, log=log)

    def events(self, name: str) -> list[dict]:
        return [e for e in json_events(self.log) if e.get("event") == name]

    def stop(self) -> str:
        try:
            self.proc.send_signal(signal.SIGTERM)
            out, _ = self.proc.communicate(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
        assert self.proc.returncode == 0
        return out


def _late(qm, book: Ledger, n: int) -> None:
    for m in load(qm, [dead_letter(f"late{i}", destq="APP.Q", priority=0) for i in range(n)]):
        book.original[m.md.msg_id] = m


def test_hot_reload_uses_a_good_table_and_keeps_the_last_good_one(home, qm, tmp_path) -> None:
    """Rewriting the rules file swaps the new table in between units of work (its hash
    logged) and rescans: messages the old table ignored are handled at once. A table
    with errors is rejected with every diagnostic logged, and the old table keeps
    running."""
    define(qm, "OLD.T", "NEW.T")
    load(
        qm,
        [dead_letter(f"held{i}", destq="HELD.Q") for i in range(2)]
        + [dead_letter(f"app{i}", destq="APP.Q") for i in range(2)],
    )
    book = Ledger.of(qm)
    rules = tmp_path / "live.rul"
    rules.write_text(OLD)
    child = _Child(home, rules, tmp_path / "handler.log")
    try:
        until(lambda: depth(qm, "OLD.T") == 2, "the first table was not applied")
        until(lambda: child.events("rules_watch_started"), "no watch")
        rules.write_text(NEW)
        until(lambda: depth(qm, "NEW.T") == 2, "held messages not forwarded after reload")
        [accepted] = child.events("rules_reload_accepted")
        assert (accepted["sha256"], accepted["previous_sha256"]) == (_sha(NEW), _sha(OLD))
        assert child.events("rules_swapped")[0]["sha256"] == _sha(NEW)
        _late(qm, book, 2)
        until(lambda: depth(qm, "NEW.T") == 4, "the new table is not in use")

        rules.write_text(BAD)
        until(lambda: child.events("rules_reload_failed"), "bad table not reported")
        [failed] = child.events("rules_reload_failed")
        assert (failed["kept_sha256"], failed["rejected_sha256"]) == (_sha(NEW), _sha(BAD))
        diagnostics = child.events("rules_diagnostic")
        errors = [d for d in diagnostics if d["severity"] == "error"]
        assert len(errors) == failed["errors"] >= 3
        assert {d["line"] for d in errors} == {1, 2, 3}
        assert all(d["code"] and d["message"] for d in errors)
        _late(qm, book, 2)
        until(lambda: depth(qm, "NEW.T") == 6, "the last good table stopped working")
    finally:
        out = child.stop()
    book.check(["OLD.T", "NEW.T"])
    ended = child.events("handler_ended")[0]
    assert (ended["reloads"], ended["reload_failures"]) == (1, 1)
    assert "forwarded                       8" in out


def test_sighup_reloads_the_rules_file(home, qm, tmp_path) -> None:
    """With --no-watch a changed file is not picked up until SIGHUP, which reloads it."""
    define(qm, "OLD.T", "NEW.T")
    load(qm, [dead_letter("first", destq="APP.Q")])
    book = Ledger.of(qm)
    rules = tmp_path / "hup.rul"
    rules.write_text(OLD)
    child = _Child(home, rules, tmp_path / "handler.log", "--no-watch")
    try:
        until(lambda: depth(qm, "OLD.T") == 1, "the first table was not applied")
        rules.write_text(NEW)
        _late(qm, book, 1)
        until(lambda: depth(qm, "OLD.T") == 2, "not handled with the old table")
        assert not child.events("rules_reload_accepted")
        child.proc.send_signal(signal.SIGHUP)
        until(lambda: child.events("rules_swapped"), "SIGHUP did not reload")
        assert child.events("rules_reload_accepted")[0]["trigger"] == "SIGHUP"
        _late(qm, book, 1)
        until(lambda: depth(qm, "NEW.T") == 1, "the reloaded table is not in use")
    finally:
        child.stop()
    book.check(["OLD.T", "NEW.T"])
