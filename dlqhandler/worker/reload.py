"""Hot reload of the rules table: debounce, compile aside, swap, keep the last good.

A watchdog observer watches the rules file's directory (editors replace files
by rename, so watching the file alone misses saves). Events are debounced; the
new text is compiled off the handler thread; only a table without errors is
handed to ``install`` (:meth:`Handler.swap_rules`), which puts it in place
between units of work. A table with errors is rejected with its diagnostics
logged (the first 100), and so is one ``refusals`` refuses (a FWDQ naming one of
the handler's control queues); the old table keeps running, and ``on_rejected``
gets the kept hash (the metrics count it). SIGHUP calls
:meth:`RulesReloader.reload_now`. Every outcome logs the hashes involved.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dlqhandler.logs import get_logger
from dlqhandler.rules import RuleSet, Severity, compile_rules

__all__ = ["MAX_LOGGED_DIAGNOSTICS", "RulesReloader"]

MAX_LOGGED_DIAGNOSTICS = 100


class RulesReloader:
    """Watches one rules file and feeds good tables to ``install``."""

    def __init__(
        self,
        path: Path,
        install: Callable[[RuleSet], None],
        *,
        current_sha256: str,
        input_queue: str | None = None,
        debounce_s: float = 0.3,
        log: Any = None,
        on_rejected: Callable[[str], None] | None = None,
        refusals: Callable[[RuleSet], list[str]] | None = None,
    ) -> None:
        self.path = path.resolve()
        self._install = install
        self._on_rejected = on_rejected
        self._refusals = refusals
        self._sha = current_sha256
        self._input_queue = input_queue
        self._debounce = debounce_s
        self._log = log or get_logger("reload", rules=str(self.path))
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._reloading = threading.Lock()
        self._observer: Any = None
        self._rejected_sha: str | None = None
        self.accepted = 0
        self.rejected = 0

    @property
    def sha256(self) -> str:
        """The hash of the table in use (the last good one)."""
        return self._sha

    def start(self) -> None:
        """Start watching (needs the watchdog package)."""
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        reloader = self

        class _Events(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                paths = {getattr(event, "src_path", ""), getattr(event, "dest_path", "")}
                if any(p and Path(str(p)).resolve() == reloader.path for p in paths):
                    reloader.schedule()

        self._observer = Observer()
        self._observer.schedule(_Events(), str(self.path.parent), recursive=False)
        self._observer.daemon = True
        self._observer.start()
        self._log.info("rules_watch_started", sha256=self._sha)

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def schedule(self) -> None:
        """Debounce: reload once the file has been quiet for ``debounce_s``."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self._debounce, self.reload_now)
            self._timer.daemon = True
            self._timer.start()

    def reload_now(self, trigger: str = "file") -> bool:
        """Compile the file now; install it if it is valid and changed."""
        with self._reloading:
            return self._reload(trigger)

    def _reload(self, trigger: str) -> bool:
        try:
            table = self.path.read_bytes()  # decoded by compile_rules, as lint and run do
        except OSError as exc:
            self.rejected += 1
            self._log.error(
                "rules_reload_failed", trigger=trigger, error=str(exc), kept_sha256=self._sha
            )
            self._rejected()
            return False
        text_sha = hashlib.sha256(table).hexdigest()
        if text_sha in (self._sha, self._rejected_sha):
            self._log.debug("rules_unchanged", trigger=trigger, sha256=text_sha)
            return False
        # A file replaced by garbage has tens of thousands of problems per MB: log the
        # first ones, count the rest (neither the log nor memory may be flooded).
        result = compile_rules(
            table,
            source=str(self.path),
            input_queue=self._input_queue,
            max_diagnostics=MAX_LOGGED_DIAGNOSTICS,
        )
        for d in result.diagnostics:
            level = self._log.error if d.severity == "error" else self._log.warning
            level(
                "rules_diagnostic",
                line=d.line,
                column=d.column,
                severity=str(d.severity),
                code=d.code,
                message=d.message,
                hint=d.hint,
                sha256=text_sha,
            )
        refused = (
            []
            if result.ruleset is None or self._refusals is None
            else (self._refusals(result.ruleset))
        )
        for why in refused:
            self._log.error("rules_refused", detail=why, sha256=text_sha)
        if result.ruleset is None or refused:
            self.rejected += 1
            self._rejected_sha = text_sha
            self._log.error(
                "rules_reload_failed",
                trigger=trigger,
                rejected_sha256=text_sha,
                kept_sha256=self._sha,
                errors=result.count(Severity.ERROR),
                diagnostics_not_logged=result.omitted_count,
            )
            self._rejected()
            return False
        previous, self._sha = self._sha, result.ruleset.sha256
        self.accepted += 1
        self._install(result.ruleset)
        self._log.info(
            "rules_reload_accepted",
            trigger=trigger,
            sha256=self._sha,
            previous_sha256=previous,
            rules=len(result.ruleset.rules),
        )
        return True

    def _rejected(self) -> None:
        """Tell ``on_rejected`` that a table was refused (the last good one stays)."""
        if self._on_rejected is not None:
            self._on_rejected(self._sha)
