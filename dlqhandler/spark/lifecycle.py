"""One Spark run of a command (the drain, the report): its session, its log file, Ctrl-C,
its stop, and a failure described in a line.

:class:`SparkRun` is used as a context manager around everything that needs Spark:

* **the session**: the one already active (a notebook's, ``spark-submit``'s) is used and
  left running; otherwise one is built (:func:`~dlqhandler.spark.session.get_session`) and
  stopped at the end, with SIGINT ignored meanwhile (Spark's own handler would raise inside
  the stop, and stopping is what a Ctrl-C would ask for anyway); a session built here
  parses the command's SQL text (``warm_sql``) while it starts, so that the command's own
  parse finds Spark's parser warm;
* **the log file**: a session this run builds writes Spark's own log lines (the JVM's
  stderr) to a file of its own, named in the command's last lines, unless ``verbose`` (then
  they go to stderr) or under ``spark-submit`` (the launcher's JVM, its log);
* **Ctrl-C** inside :meth:`SparkRun.cancelling`: the handler never raises inside a py4j
  call (that printed pages of py4j tracebacks); a thread cancels every job the driver
  starts until the block ends, so the run stops within a job, and :attr:`interrupted`
  says so. A second Ctrl-C raises KeyboardInterrupt at once;
* **a failure** (an executor lost, out of memory...): :func:`describe` gives its first line
  and traceback while the JVM still answers, and :meth:`SparkRun.failure` writes the
  traceback after Spark's own lines in the log file and returns what to tell the user.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["SparkRun", "describe", "log_file"]


def log_file(command: str) -> Path:
    """A new file for Spark's own log lines (the JVM's stderr) of one run."""
    fd, name = tempfile.mkstemp(
        prefix=time.strftime(f"dlqhandler-{command}-%Y%m%dT%H%M%S-"), suffix=".log"
    )
    os.close(fd)
    return Path(name)


def describe(exc: BaseException) -> tuple[str, str]:
    """The first line of ``exc`` (``Type: text``) and its traceback, while Spark still runs
    (a py4j error's text comes from the JVM); never fails itself."""
    try:
        text = str(exc)
    except Exception:  # the JVM is gone or the gateway broke: the type says enough
        text = ""
    first = (text.strip().splitlines() or [type(exc).__name__])[0][:300]
    try:
        detail = "".join(traceback.format_exception(exc))
    except Exception:
        detail = f"{type(exc).__name__}: {first}\n"
    return f"{type(exc).__name__}: {first}", detail


def spark_reason(log: Path) -> str | None:
    """The last exception line Spark wrote to ``log`` (its stack frames start with blanks)."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found = [ln for ln in lines if ln[:1].strip() and ("Exception" in ln or "Error" in ln)]
    return found[-1].strip()[:400] if found else None


class SparkRun:
    """The Spark side of one command's run (see the module docstring)."""

    def __init__(
        self,
        command: str,
        *,
        master: str | None = None,
        partitions: int | None = None,
        verbose: bool = False,
        warm_sql: Sequence[str] = (),
    ) -> None:
        self.command = command
        self._master, self._partitions, self._verbose = master, partitions, verbose
        self._warm_sql = tuple(warm_sql)
        self.spark: Any = None
        self.log_file: Path | None = None
        self.owns_session = False
        self.interrupted = False
        self._cancelling = threading.Event()

    def __enter__(self) -> SparkRun:
        from dlqhandler.spark.session import get_session, has_active_session

        self.owns_session = not has_active_session()
        # Under spark-submit the launcher started the JVM: its log is the launcher's.
        if self.owns_session and not self._verbose and "PYSPARK_GATEWAY_PORT" not in os.environ:
            self.log_file = log_file(self.command)
        self.spark = get_session(
            self._master,
            app_name=f"dlqhandler-{self.command}",
            partitions=self._partitions,
            log_file=self.log_file,
            warm_sql=self._warm_sql,
        )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the session this run built (and its JVM); a caller's session stays. A
        Ctrl-C meanwhile is ignored. Safe to call more than once."""
        if not self.owns_session:
            return
        from dlqhandler.spark.session import stop_session

        self.owns_session = False
        if threading.current_thread() is not threading.main_thread():
            stop_session(self.spark)
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            stop_session(self.spark)
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextmanager
    def cancelling(self) -> Iterator[None]:
        """Ctrl-C cancels the jobs (from another thread) instead of raising in py4j."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self._cancelling.clear()
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            self._cancelling.set()
            signal.signal(signal.SIGINT, previous)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.interrupted:
            raise KeyboardInterrupt
        self.interrupted = True
        threading.Thread(target=self._cancel, name=f"{self.command}-cancel", daemon=True).start()

    def _cancel(self) -> None:
        while True:
            with suppress(Exception):  # Spark is already stopping: nothing to cancel
                self.spark.sparkContext.cancelAllJobs()
            if self._cancelling.wait(0.2):
                return

    def failure(self, described: tuple[str, str]) -> list[str]:
        """A job failed: its traceback after Spark's own lines in the log file (on the
        returned lines without one); the lines to tell the user, after the first."""
        _first, detail = described
        if self.log_file is None:
            return [detail.rstrip("\n")]
        reason = spark_reason(self.log_file)  # Spark's own, before our traceback joins it
        with self.log_file.open("a", encoding="utf-8") as log:
            log.write(detail)
        lines = []
        if reason:
            lines.append(f"  Spark said: {reason}")
        lines.append(f"  details in the Spark log: {self.log_file}")
        return lines
