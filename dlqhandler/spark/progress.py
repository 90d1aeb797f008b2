"""Progress of a drain on stderr: a status line on a terminal, JSON events otherwise.

A daemon thread polls Spark's status store on the driver (the live store
behind the Spark UI, kept even with the UI off) for the running stages: tasks
done, records read (input and shuffle) and written, and the rate. On a terminal
one line is rewritten in place; otherwise (a log, a pipe, a scheduler) every
finished stage gives one JSON object on its own line::

    {"event": "drain_stage", "step": "classify and write the audit", "stage": 3,
     "tasks": 12, "records_read": 600000, "records_written": 600000,
     "seconds": 4.2, "rate": 142857.1}

``step`` is the job description the drain sets for each of its steps
(:func:`step`), so a stage names what the drain is doing, not a line of code.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

__all__ = ["Progress", "StageStatus", "step"]


def step(spark: Any, description: str) -> None:
    """Name the Spark jobs started from now on (progress lines and events show it)."""
    spark.sparkContext.setJobDescription(description)


@dataclass(frozen=True, slots=True)
class StageStatus:
    """One stage as the status store reports it."""

    stage: int
    step: str
    tasks: int
    done: int
    records_read: int
    records_written: int
    active: bool


def _stage_status(data: Any) -> StageStatus:
    desc = data.description()
    step_name = str(desc.get()) if desc.isDefined() else str(data.name())
    read = int(data.inputRecords()) + int(data.shuffleReadRecords())
    written = int(data.outputRecords()) + int(data.shuffleWriteRecords())
    return StageStatus(
        int(data.stageId()),
        step_name,
        int(data.numTasks()),
        int(data.numCompleteTasks()),
        read,
        written,
        str(data.status().toString()) == "ACTIVE",
    )


class Progress:
    """Report the drain's stages on ``stream`` until :meth:`stop`."""

    def __init__(
        self,
        spark: Any,
        stream: TextIO | None = None,
        *,
        interval: float = 0.5,
        tty: bool | None = None,
    ) -> None:
        self._sc = spark.sparkContext
        self._stream = stream if stream is not None else sys.stderr
        self._tty = self._stream.isatty() if tty is None else tty
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="drain-progress", daemon=True)
        self._seen: dict[int, float] = {}  # stage -> when first seen
        self._done: set[int] = set()
        self._last: tuple[float, int] | None = None
        self._width = 0

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop polling; report the stages that finished since the last poll."""
        if not self._thread.is_alive():
            return
        self._stop.set()
        self._thread.join(5.0)
        with contextlib.suppress(Exception):
            self.poll(final=True)
        if self._tty and self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.poll()
            except Exception:  # the JVM is stopping: nothing more to report
                return

    def poll(self, *, final: bool = False) -> None:
        """One look at the status store (also called by the thread)."""
        store = self._sc._jsc.sc().statusStore()
        active = store.activeStages()
        now = time.monotonic()
        live = [_stage_status(active.apply(i)) for i in range(active.size())]
        for s in live:
            self._seen.setdefault(s.stage, now)
        for stage in [
            x for x in self._seen if x not in self._done and x not in {s.stage for s in live}
        ]:
            with contextlib.suppress(Exception):
                self._finished(_stage_status(store.lastStageAttempt(stage)), now)
            self._done.add(stage)
        if self._tty and live and not final:
            self._line(live, now)

    def _finished(self, s: StageStatus, now: float) -> None:
        if self._tty:  # the status line shows running stages only
            return
        seconds = max(now - self._seen[s.stage], 1e-3)
        event = {
            "event": "drain_stage",
            "step": s.step,
            "stage": s.stage,
            "tasks": s.tasks,
            "records_read": s.records_read,
            "records_written": s.records_written,
            "seconds": round(seconds, 3),
            "rate": round(max(s.records_read, s.records_written) / seconds, 1),
        }
        self._stream.write(json.dumps(event) + "\n")
        self._stream.flush()

    def _line(self, live: list[StageStatus], now: float) -> None:
        """``drain: STEP | tasks D/T | 12s | read N | written N | R rec/s``: counts
        appear once Spark has them (it reports records when tasks end)."""
        if not live:
            return
        read = sum(s.records_read for s in live)
        written = sum(s.records_written for s in live)
        parts = [
            f"drain: {live[0].step[:40]}",
            f"tasks {sum(x.done for x in live)}/{sum(x.tasks for x in live)}",
            f"{now - min(self._seen[s.stage] for s in live):.0f}s",
        ]
        if read:
            parts.append(f"read {read:,}")
        if written:
            parts.append(f"written {written:,}")
        if self._last is not None and now > self._last[0] and read > self._last[1]:
            parts.append(f"{(read - self._last[1]) / (now - self._last[0]):,.0f} rec/s")
        self._last = (now, read)
        text = " | ".join(parts)
        self._width = max(self._width, len(text))
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
