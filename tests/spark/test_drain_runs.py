"""The drain as a process: output directory rule, local[*] and local-cluster masters
with relative paths, Spark's log in a file, progress events, and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import decode_dead_letter
from dlqhandler.mq.constants import MQRO_COA
from tests.spark.drain_helpers import (
    DEMO_RULES,
    assert_conserved,
    drain_env,
    log_file_of,
    run_drain,
    stage_events,
)
from tests.worker.helpers import as_put, generated_report, props_by_name

pytestmark = pytest.mark.spark


def test_two_drains_into_one_directory(tmp_path: Path) -> None:
    """A second drain into a used DIR is refused (exit 2, the first run intact);
    with --overwrite it replaces DIR whole: only the second run's files, every
    message of it conserved, none of the first. Spark's WARN lines go to the log
    file the summary names; stderr carries one JSON event per stage."""
    first = list(generate_backlog(300, seed=3))
    second = list(generate_backlog(200, seed=4))
    assert not {m.md.msg_id for m in first} & {m.md.msg_id for m in second}
    write_dump(tmp_path / "first.dmp", first)
    write_dump(tmp_path / "second.dmp", second)
    args = ("--rules", str(DEMO_RULES), "--output", "out")
    proc = run_drain(*args, "--input", "first.dmp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert_conserved(first, tmp_path / "out")
    log = log_file_of(proc.stdout)
    assert "WARN" in log.read_text(errors="replace")
    assert " WARN " not in proc.stderr
    events = stage_events(proc.stderr)
    # Reading runs no Spark job of its own (the JVM decode is fused into the one job
    # that writes the dmpmqmsg files and the audit): its stages are reported under it.
    assert "classify, write the dmpmqmsg files and the audit" in {e["step"] for e in events}
    before = (tmp_path / "out" / "manifest.json").read_bytes()

    refused = run_drain(*args, "--input", "second.dmp", cwd=tmp_path)
    assert refused.returncode == ExitCode.USAGE
    assert "not empty" in refused.stderr
    assert "--overwrite" in refused.stderr
    assert (tmp_path / "out" / "manifest.json").read_bytes() == before

    proc = run_drain(*args, "--input", "second.dmp", "--overwrite", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "(replaced)" in proc.stdout
    manifest = assert_conserved(second, tmp_path / "out")
    assert manifest["input"] == [str(tmp_path / "second.dmp")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.dmp", "out", "second.dmp"]
    log.unlink()
    log_file_of(proc.stdout).unlink()


def test_local_cluster_with_relative_paths(tmp_path: Path) -> None:
    """On local-cluster[2,1,1024] (two executor JVMs started by Spark's own worker,
    other working directories) a relative --input and --output work: resolved on
    the driver; every message is conserved."""
    messages = list(generate_backlog(1000, seed=5))
    (tmp_path / "in").mkdir()
    write_dump(tmp_path / "in" / "backlog.dmp", messages)
    proc = run_drain(
        "--rules",
        str(DEMO_RULES),
        "--input",
        "in/backlog.dmp",
        "--output",
        "out",
        "--master",
        "local-cluster[2,1,1024]",
        "--split-mb",
        "1",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "FileNotFoundError" not in proc.stderr
    assert_conserved(messages, tmp_path / "out")
    log_file_of(proc.stdout).unlink()


def _children(pid: int) -> list[psutil.Process]:
    return psutil.Process(pid).children(recursive=True)


def _gone(procs: list[psutil.Process]) -> list[str]:
    _, alive = psutil.wait_procs(procs, timeout=30)
    return [f"{p.pid} {p.name()} {p.status()}" for p in alive]


def _writing(where: Path) -> bool:
    """Whether a drain's write job has made its parts directory in the staging directory
    of an output under ``where`` (Spark creates and removes directories meanwhile)."""
    try:
        return any(
            part.name.startswith(".parts-")
            for staging in where.iterdir()
            if staging.is_dir()
            for part in staging.iterdir()
        )
    except OSError:
        return False


def test_ctrl_c_during_an_offline_drain(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) while the drain's
    write job runs: exit 130, no traceback, no py4j noise, no partial output (no
    staging directory either), and no java or Python worker left behind."""
    write_dump(tmp_path / "in.dmp", generate_backlog(3000, seed=6))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            "drain",
            "--rules",
            str(DEMO_RULES),
            "--input",
            "in.dmp",
            "--output",
            "out",
            "--split-mb",
            "1",
        ],
        cwd=tmp_path,
        env=drain_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stderr is not None
    # Once the write job has made its parts directory, the drain is inside its one job.
    deadline = time.monotonic() + 120
    while not _writing(tmp_path) and proc.poll() is None:
        assert time.monotonic() < deadline, "the drain's write job never started"
        time.sleep(0.05)
    children = _children(proc.pid)
    assert any("java" in p.name() for p in children)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == ExitCode.INTERRUPTED, err[-3000:]
    assert "interrupted" in err
    assert "nothing was written" in err
    assert "Traceback" not in err
    assert "py4j" not in err.lower()
    assert "Drain (offline)" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.dmp"]
    assert _gone(children) == []
    log_file_of(err).unlink()


def test_spark_submit_with_relative_paths_on_local_cluster(tmp_path: Path) -> None:
    """`spark-submit --master local-cluster[2,1,1024] ops/spark/drain.py` with a
    relative --input and --output: conserved end to end, the same contract."""
    messages = list(generate_backlog(300, seed=7))
    write_dump(tmp_path / "backlog.dmp", messages)
    submit = Path(sys.executable).parent / "spark-submit"
    drain_py = Path(__file__).resolve().parents[2] / "ops" / "spark" / "drain.py"
    proc = subprocess.run(
        [
            str(submit),
            "--master",
            "local-cluster[2,1,1024]",
            "--conf",
            "spark.ui.enabled=false",
            str(drain_py),
            "--rules",
            str(DEMO_RULES),
            "--input",
            "backlog.dmp",
            "--output",
            "out",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env=drain_env(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Drain (offline)" in proc.stdout
    manifest = assert_conserved(messages, tmp_path / "out")
    assert (
        json.loads((tmp_path / "out" / "summary.json").read_text())["totals"] == manifest["totals"]
    )


def test_ctrl_c_during_drain_apply(tmp_path: Path) -> None:
    """Ctrl-C while `drain --apply` moves messages: exit 130, the summary says how
    many messages left the DLQ (each in a committed unit of work), the rest stay;
    every message is on exactly one queue with its payload; no partial output (no
    out/_snapshot), no java left behind. A moved request that asks for COA gets one from
    the queue manager (IBM, Report,
    https://ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.ref.dev.doc/q097680_.htm: MQRO_COA "is
    generated by the queue manager that owns the destination queue"); with no ReplyToQ here
    it is on the DLQ with an MQDLH (IBM, DeadLetterQName,
    https://www.ibm.com/docs/SSFKSJ_9.3.0/refdev/q102290_.html: "the report message is
    placed on the dead-letter (undelivered-message) queue")."""
    from dlqhandler.qmgr.embedded.manager import connect
    from dlqhandler.qmgr.embedded.qmgrs import create_qmgr
    from dlqhandler.qmgr.port import PutOptions, browse_all
    from tests.spark.drain_helpers import payload_hash

    home = tmp_path / "home"
    create_qmgr(home, "QM1")
    qm = connect("QM1", home=home)
    qm.admin().define_queue("APP.TARGET", {"MAXDEPTH": 100000})
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    messages = list(generate_backlog(3000, seed=8))
    original = {m.md.msg_id: payload_hash(m) for m in messages}
    for m in messages:
        qm.put1(dlq, m, PutOptions(syncpoint=False, context="set_all"))
    rules = tmp_path / "r.rul"
    rules.write_text("ACTION(FWD) FWDQ(APP.TARGET) HEADER(NO)\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            "drain",
            "--rules",
            str(rules),
            "-m",
            "QM1",
            "--apply",
            "--output",
            "out",
        ],
        cwd=tmp_path,
        env=drain_env(DLQHANDLER_HOME=str(home)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        while qm.inquire_queue(dlq).curdepth == len(messages) and proc.poll() is None:
            time.sleep(0.05)  # until the first unit of work is committed
        children = _children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == ExitCode.INTERRUPTED, err[-3000:]
    assert "Traceback" not in err
    assert "py4j" not in err.lower()
    on_dlq = list(browse_all(qm.open(dlq, input=False, browse=True)))
    moved = list(browse_all(qm.open("APP.TARGET", input=False, browse=True)))
    assert 0 < len(moved) < len(messages)
    assert f"{len(moved)} of the {len(messages)} messages in the snapshot were moved" in err
    # The COAs the queue manager sent for the moved requests that asked for one (their
    # ReplyToQ is not defined here, so each is dead-lettered with an MQDLH): one each,
    # counted apart from the snapshot's messages.
    reports = [m for m in on_dlq if generated_report(m, original)]
    left = [m for m in on_dlq if m.md.msg_id in original]
    assert len(left) + len(reports) == len(on_dlq)
    asked = {m.md.msg_id for m in moved if m.md.report & MQRO_COA and m.md.reply_to_q.strip()}
    assert sorted(m.md.correl_id for m in reports) == sorted(asked)
    assert all(decode_dead_letter(m.md, m.body).dlh is not None for m in reports)
    assert f"{len(left)} stay there" in err
    placed = [*left, *moved]
    assert sorted(m.md.msg_id for m in placed) == sorted(original)
    assert all(payload_hash(m) == original[m.md.msg_id] for m in left)
    # HEADER(NO): the data without its MQDLH, as a queue manager keeps a put of it (a
    # JMS message's MQRFH2 now at the start of the data becomes its properties)
    sent = {m.md.msg_id: as_put(m.strip_dead_letter_header()) for m in messages}
    for m in moved:
        assert m.body == sent[m.md.msg_id].body
        assert props_by_name(m) == props_by_name(sent[m.md.msg_id])
    assert all(m.md.format.strip() != "MQDEAD" for m in moved)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "r.rul"]
    assert _gone(children) == []
    qm.disconnect()
    log_file_of(err).unlink()


def test_a_spark_failure_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """Spark itself fails (here: a master URL it cannot parse): exit 1 with one line
    saying what failed, Spark's reason, and where the details are (the traceback
    goes to the log file); no partial output, no staging directory."""
    write_dump(tmp_path / "in.dmp", generate_backlog(10, seed=9))
    proc = run_drain(
        "--rules",
        str(DEMO_RULES),
        "--input",
        "in.dmp",
        "--output",
        "out",
        "--master",
        "nosuch://master",
        cwd=tmp_path,
    )
    assert proc.returncode == ExitCode.FAILURE, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "dlqhandler drain: failed:" in proc.stderr
    assert "Spark said: " in proc.stderr
    assert "Master must" in proc.stderr  # Spark's own reason, from its log
    log = Path(proc.stderr.split("details in the Spark log: ")[1].strip())
    assert "Traceback" in log.read_text(errors="replace")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.dmp"]
    log.unlink()
