"""A session's start: the SQL text a command will run is parsed while the session starts
(get_session's ``warm_sql``), on a session the same as one built without it, and the
texts the drain and the report give are the very texts they run."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.rules import compile_rules_or_raise
from dlqhandler.spark.classify import classify_query
from dlqhandler.spark.drain.job import DrainConfig, classification_text
from dlqhandler.spark.messages import read_messages
from dlqhandler.spark.report import READ_COLUMNS, ReportOptions, read_dumps, report_query
from dlqhandler.spark.session import local_cores
from dlqhandler.spark.sql import FRAME, standalone
from tests.required import require_java

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
RULES = compile_rules_or_raise((ROOT / "rules" / "demo.rul").read_text())

# A process that builds a session with texts to parse meanwhile (one not SQL at all) and
# prints what the session is: its settings, and what its data source reads.
_PROBE = """
import sys, threading
from pathlib import Path
from dlqhandler.spark.session import get_session, stop_session
texts = ["SELECT a, CASE WHEN b THEN 1 END FROM frame", "not ( SQL"] if sys.argv[1] else []
spark = get_session("local[1]", app_name="probe", log_file=Path(sys.argv[2]), warm_sql=texts)
for t in threading.enumerate():
    if t.name == "dlqhandler-parse-meanwhile":
        t.join(60)
conf = spark.sparkContext.getConf()
for key in ("spark.app.name", "spark.master", "spark.sql.session.timeZone",
            "spark.python.sql.dataFrameDebugging.enabled", "spark.jars"):
    print(key, conf.get(key))
print("messages", spark.read.format("dmpmqmsg").load(sys.argv[3]).count())
print("parsing", [t.name for t in threading.enumerate() if "parse" in t.name])
beans = spark._jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
print("collectors", sorted(bean.getName() for bean in beans))
flags = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
print("tier4", sorted(f for f in flags if f.startswith("-XX:Tier4")))
vm = spark._jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
    spark._jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
young = int(vm.getVMOption("MaxNewSize").getValue())
print("young at most", young // 2**20, "MB")
stop_session(spark)
"""


def _probe(tmp_path: Path, warm: bool) -> tuple[str, str, str]:
    log = tmp_path / f"spark-{warm}.log"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "warm" if warm else "", str(log), str(SAMPLE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr, log.read_text()


def test_a_session_parsing_meanwhile_is_the_session_built_without() -> None:
    """With texts to parse meanwhile (one that is not SQL), the JVM is launched with the
    same settings (name, master, time zone, the jar), its data source reads the same
    messages, its own log lines go to the log file and not to the terminal, and the
    parsing thread is done by the time the session has been used."""
    require_java()
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        warm_out, warm_err, warm_log = _probe(Path(d), True)
        cold_out, _cold_err, _cold_log = _probe(Path(d), False)
    assert warm_out == cold_out
    assert "spark.app.name probe" in warm_out
    assert "spark.sql.session.timeZone UTC" in warm_out
    assert "parsing []" in warm_out
    assert "log4j" in warm_log
    assert "log4j" not in warm_err


def test_a_built_session_runs_its_jvm_with_the_jit_and_gc_options() -> None:
    """The JVM a built session launches runs the parallel collector, the raised C2
    thresholds and the driver's young-generation cap of BUILT_SESSION (with the
    class-data archive's options beside them, when there is one): the options reach the
    JVM, not only the settings."""
    require_java()
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        out, _err, _log = _probe(Path(d), False)
    assert "collectors ['PS MarkSweep', 'PS Scavenge']" in out
    assert "-XX:Tier4InvocationThreshold=50000" in out
    assert "young at most 96 MB" in out


@pytest.mark.parametrize(
    ("master", "cores"),
    [
        ("local", 1),
        ("local[3]", 3),
        ("local[4,2]", 4),
        ("local[*]", len(os.sched_getaffinity(0))),
        ("local[*,3]", len(os.sched_getaffinity(0))),
        ("local-cluster[2, 3, 1024]", 6),
        ("spark://host:7077", None),
        ("yarn", None),
        ("localhost", None),
    ],
)
def test_local_cores_is_how_many_tasks_a_local_master_runs_at_once(
    master: str, cores: int | None
) -> None:
    """The report's shuffle partitions on a master that runs its tasks here: local[N] N,
    local[*] the cores this process may use, local-cluster W x C; a cluster's master
    none (its own setting stays)."""
    assert local_cores(master) == cores


def test_the_report_parses_meanwhile_the_text_it_runs(spark: Any) -> None:
    """The report's text made before Spark starts, over READ_COLUMNS, is the one it runs
    over what read_dumps gives."""
    messages = read_dumps(spark, [str(SAMPLE)])
    assert messages.columns == list(READ_COLUMNS)
    options = ReportOptions(as_of=datetime(2024, 11, 28, tzinfo=UTC), ruleset=RULES)
    assert report_query(READ_COLUMNS, options) == report_query(messages.columns, options)
    assert FRAME not in standalone(report_query(READ_COLUMNS, options))


@pytest.mark.parametrize("apply", [False, True])
def test_the_drain_parses_meanwhile_the_classification_it_runs(spark: Any, apply: bool) -> None:
    """The drain's classification text made before Spark starts is the one it runs over
    the messages it reads (with the record when it writes files, without under --apply)."""
    config = DrainConfig(
        output=Path("/nonexistent"),
        inputs=(str(SAMPLE),),
        queue="DLQ" if apply else None,
        apply=apply,
        catch_all="ALL.Q",
    )
    loaded = read_messages(spark, [str(SAMPLE)], record=not apply, located=True)
    ran = classify_query(
        loaded.columns,
        RULES,
        source=FRAME,
        input_queue=config.queue,
        local_qmgr=config.local_qmgr,
        catch_all="ALL.Q",
    )
    assert classification_text(RULES, config) == standalone(ran)


def test_the_printed_spark_submit_options_carry_the_built_session_settings() -> None:
    """``python -m dlqhandler.spark.jar`` prints, besides the jar, the settings a session
    the package builds gets: PySpark's DataFrame debugging off and the JVM options of
    BUILT_SESSION for the driver and for the executors alike, so a session of one's own
    (spark-submit, a cluster) can run as the built one does."""
    require_java()
    from dlqhandler.spark.session import BUILT_SESSION, EXECUTOR_JAVA_OPTIONS, JAVA_OPTIONS

    done = subprocess.run(
        [sys.executable, "-m", "dlqhandler.spark.jar"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "--conf spark.python.sql.dataFrameDebugging.enabled=false" in done.stdout
    assert f"--driver-java-options '{BUILT_SESSION[JAVA_OPTIONS]}" in done.stdout
    executors = f"--conf 'spark.executor.extraJavaOptions={EXECUTOR_JAVA_OPTIONS}'"
    assert executors in done.stdout
    assert "-XX:+UseParallelGC" in EXECUTOR_JAVA_OPTIONS
    assert "MaxNewSize" not in EXECUTOR_JAVA_OPTIONS  # an executor's heap is the cluster's
