"""Building the SparkSession for the drain (local[*] by default), and stopping it.

Under ``spark-submit`` the session already configured by the launcher is used
as is; ``dlqhandler drain`` builds one with ``--master`` (default
``local[*]``). Python workers run this interpreter, so they see the same
installed dlqhandler and pyarrow.

With ``log_file`` the JVM this process launches writes its standard error -
log4j's WARN lines, executor and Python worker tracebacks - to that file, not
to the terminal. Spark's console progress bar is off: the drain shows its own
(:mod:`dlqhandler.spark.progress`).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from dlqhandler.spark.cds import java_options
from dlqhandler.spark.jar import LOCAL_FS_CLASS, compiled_jar

__all__ = [
    "BUILT_SESSION",
    "EXECUTOR_JAVA_OPTIONS",
    "JAVA_OPTIONS",
    "driver_java_options",
    "get_session",
    "has_active_session",
    "launched_master",
    "local_cores",
    "stop_session",
]

# The settings of a session this package builds (not one it is given: spark-submit's, a
# notebook's). PySpark's DataFrame debugging (on by default) records the Python call
# site of every column function in the JVM, four py4j round trips each; the drain and
# the report build thousands of columns from the rules, and their errors are rendered by
# the CLI, not by Spark's query context. The JVM options are for a JVM that lives for one
# job (docs/performance.md, "The session settings"). On a local master the tasks run in
# the driver's JVM; on a cluster, give the executors EXECUTOR_JAVA_OPTIONS
# (`python -m dlqhandler.spark.jar` prints them).
_JIT_AND_GC = (
    # The JIT skips methods longer than 8,000 bytes of bytecode; the report's scan loop is
    # one (the rules' and the ages' expressions generated into it, about 10,800 bytes with
    # two tables: "Generated method too long to be JIT compiled"), so it ran interpreted.
    "-XX:-DontCompileHugeMethods",
    # A batch job wants throughput, not short pauses: the parallel collector, without G1's
    # write barriers and concurrent refinement.
    "-XX:+UseParallelGC",
    # The optimising compiler (C2) waits for ten times the calls and loops it waits for by
    # default before it compiles a method: in a fresh JVM it otherwise spent more CPU on the
    # lukewarm code of planning, code generation and task serialisation (11 to 12 s of CPU
    # for a report of 1,000,000 messages, against 4 s for Spark's decode floor) than the
    # job gained, on the cores the tasks run on. Code run per message still gets it.
    "-XX:Tier4InvocationThreshold=50000",
    "-XX:Tier4MinInvocationThreshold=6000",
    "-XX:Tier4CompileThreshold=150000",
    "-XX:Tier4BackEdgeThreshold=400000",
)
EXECUTOR_JAVA_OPTIONS = " ".join(_JIT_AND_GC)
# The driver's young generation at most 96 MB: the parallel collector grows it to a third
# of the heap, and the driver (with the tasks, on a local master) would hold 100 to 200 MB
# more than under G1; Spark's rows die young, so the collections stay short.
_DRIVER_ONLY = ("-XX:MaxNewSize=96m",)
JAVA_OPTIONS = "spark.driver.defaultJavaOptions"
BUILT_SESSION = {
    "spark.python.sql.dataFrameDebugging.enabled": "false",
    JAVA_OPTIONS: " ".join((*_JIT_AND_GC, *_DRIVER_ONLY)),
}


@contextlib.contextmanager
def _stderr_to(path: Path | None) -> Iterator[None]:
    """File descriptor 2 goes to ``path`` meanwhile: children launched now inherit it."""
    if path is None:
        yield
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    saved = os.dup(2)
    sys.stderr.flush()
    os.dup2(fd, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


class _NumpyConverter:
    """One of PySpark's two py4j input converters for numpy values that finds out
    whether a value is a numpy one from ``sys.modules``.

    PySpark's own ask ``pyspark.testing.utils`` whether numpy is installed, and that
    module imports pandas and pyarrow to check their versions: 0.2 s of every run, at its
    first py4j call with an argument, in a drain or a report that never uses either. No
    value is a numpy one before numpy is imported, and after, the test is PySpark's."""

    def __init__(self, inner: Any, kind: str) -> None:
        self._inner, self._kind = inner, kind

    def can_convert(self, obj: Any) -> bool:
        np = sys.modules.get("numpy")
        if np is None:
            return False
        if self._kind == "scalar":
            return isinstance(obj, np.generic)
        return isinstance(obj, np.ndarray) and obj.ndim == 1

    def convert(self, obj: Any, gateway_client: Any) -> Any:
        return self._inner.convert(obj, gateway_client)


def _numpy_converters_ask_sys_modules() -> None:
    """Put :class:`_NumpyConverter` in place of PySpark's numpy converters in py4j's
    list (once; a PySpark without them is left as it is)."""
    from py4j import protocol
    from pyspark.sql import types

    kinds = {
        getattr(types, "NumpyScalarConverter", None): "scalar",
        getattr(types, "NumpyArrayConverter", None): "array",
    }
    converters = protocol.INPUT_CONVERTER
    for i, converter in enumerate(converters):
        kind = kinds.get(type(converter))
        if kind is not None:
            converters[i] = _NumpyConverter(converter, kind)


def get_session(
    master: str | None = None,
    *,
    app_name: str = "dlqhandler-drain",
    partitions: int | None = None,
    extra: dict[str, str] | None = None,
    log_file: Path | None = None,
    warm_sql: Sequence[str] = (),
) -> Any:
    """Return the active SparkSession or build one (its JVM's stderr to ``log_file``).

    A session built here parses ``warm_sql`` (the SQL text the command will run) in a
    thread of the new JVM while the session starts (:func:`_parse_meanwhile`)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    _numpy_converters_ask_sys_modules()

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    settings = {
        "spark.app.name": app_name,
        "spark.ui.enabled": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.python.worker.reuse": "true",
        "spark.ui.showConsoleProgress": "false",
    }
    master = launched_master(master)
    if master is not None:
        settings["spark.master"] = master
    if partitions is not None:
        settings["spark.sql.shuffle.partitions"] = str(partitions)
    launch = jvm_settings(master) if master is not None else {}
    settings |= {**BUILT_SESSION, **launch, **(extra or {})}
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    with _stderr_to(log_file):
        if warm_sql and master is not None:
            _parse_meanwhile(settings, warm_sql)
        return builder.getOrCreate()


def _parse_meanwhile(settings: dict[str, str], texts: Sequence[str]) -> None:
    """Launch the JVM with ``settings`` (as ``getOrCreate`` would) and parse ``texts``
    in a thread of its own while the session starts.

    A JVM's first parse of a large query takes Spark's SQL parser (ANTLR) about 0.4 s,
    building its prediction caches and loading its classes; the next takes 0.05 s. The
    session's start (about 1 s on the driver's one thread) leaves the second core idle,
    so the command's own parse finds the caches built. Nothing parsed here is used: a
    text that does not parse is the command's to report, when it parses it itself."""
    from pyspark import SparkConf, SparkContext

    if SparkContext._gateway is not None:  # a JVM this process already has
        return
    conf = SparkConf()
    conf.setAll(list(settings.items()))
    SparkContext._ensure_initialized(conf=conf)
    jvm = SparkContext._jvm
    if jvm is None:
        return

    def parse() -> None:
        with contextlib.suppress(Exception):  # the JVM stopping under it, a bad text
            parser = getattr(
                getattr(jvm.org.apache.spark.sql.catalyst.parser, "CatalystSqlParser$"),
                "MODULE$",
            )
            for text in texts:
                parser.parsePlan(text)

    threading.Thread(target=parse, name="dlqhandler-parse-meanwhile", daemon=True).start()


def jvm_settings(master: str) -> dict[str, str]:
    """Spark settings for a JVM this process launches: the drain's jar on the class
    path, the class-data archive when there is one (:mod:`dlqhandler.spark.cds`), and,
    on this machine's masters (``local``, ``local-cluster``: the jar's path exists for
    every JVM), its local file system (no ``chmod`` process per file or
    directory, see ``jvm/NioLocalFileSystem.java``). Empty without a JDK to build the
    jar. Under ``spark-submit`` give them on its command line (``python -m
    dlqhandler.spark.jar`` prints them)."""
    jar = compiled_jar()
    if jar is None:
        return {}
    # The driver JVM is launched here whatever the master: it maps the class-data archive.
    driver = {JAVA_OPTIONS: driver_java_options()} if java_options() else {}
    if not master.startswith("local"):
        return {"spark.jars": str(jar), **driver}
    return {
        **driver,
        "spark.jars": str(jar),
        "spark.driver.extraClassPath": str(jar),
        "spark.executor.extraClassPath": str(jar),
        "spark.hadoop.fs.file.impl": LOCAL_FS_CLASS,
    }


def launched_master(master: str | None) -> str | None:
    """The master of a session this process launches: ``master``, else ``local[*]``; None
    under ``spark-submit``, whose launcher started the JVM (``PYSPARK_GATEWAY_PORT`` is
    set) and chose the master."""
    if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        return "local[*]"
    return master


def driver_java_options() -> str:
    """The driver JVM's options: BUILT_SESSION's and the class-data archive's, when there is
    one (this machine's file: the driver's only)."""
    return f"{BUILT_SESSION[JAVA_OPTIONS]} {java_options()}".strip()


def local_cores(master: str) -> int | None:
    """How many tasks ``master`` runs at once when it runs them on this machine: ``local``
    1, ``local[N]`` and ``local[N,F]`` N, ``local[*]`` the cores this process may use,
    ``local-cluster[W,C,M]`` W times C; None for a cluster's master."""
    found = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\d+)?\])?", master)
    if found is not None:
        if found.group(1) is None:
            return 1
        if found.group(1) == "*":
            return (
                len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
            )
        return max(int(found.group(1)), 1)
    cluster = re.fullmatch(r"local-cluster\[\s*(\d+)\s*,\s*(\d+)\s*,\s*\d+\s*\]", master)
    if cluster is not None:
        return max(int(cluster.group(1)) * int(cluster.group(2)), 1)
    return None


def has_active_session() -> bool:
    """Whether this process already has a SparkSession (a caller's, e.g. tests)."""
    if "pyspark" not in sys.modules:
        return False
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession() is not None


def stop_session(spark: Any, *, timeout: float = 30.0) -> None:
    """Stop Spark and, when this process launched the JVM, wait for it to exit.

    The gateway JVM exits when its standard input closes; waiting for it leaves
    no orphaned or defunct ``java`` behind an interrupted drain.
    """
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc: subprocess.Popen[bytes] | None = getattr(gateway, "proc", None)
    with contextlib.suppress(Exception):
        if spark is not None:
            spark.stop()
        elif SparkContext._active_spark_context is not None:
            SparkContext._active_spark_context.stop()
    if proc is None or gateway is None:
        return
    workers = _descendants(proc.pid)  # Python workers: they may hold a unit of work
    with contextlib.suppress(Exception):
        gateway.shutdown()
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)
    _end(workers, timeout)
    SparkContext._gateway = None
    SparkContext._jvm = None


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = entry.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _end(pids: list[int], timeout: float) -> None:
    """Wait for the JVM's Python workers to exit after it; SIGKILL what is left (a
    worker killed inside a unit of work has it backed out by the queue manager)."""
    import signal
    import time

    deadline = time.monotonic() + timeout / 3
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for p in pids:
        if _alive(p):
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)
    deadline = time.monotonic() + timeout / 3
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
