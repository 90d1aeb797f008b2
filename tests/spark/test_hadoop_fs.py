"""`dlqhandler drain` and `dlqhandler report` on a filesystem that is not `file:`.

Hadoop's own ``viewfs:`` (a mount table over other filesystems, configured like any
connector in ``spark-defaults.conf``) stands for hdfs:/s3a: here: every read, listing,
write, join, rename and delete of the drain goes through the Hadoop FileSystem API of
a scheme that is not ``file:``. Filesystems Hadoop does not know are refused with a
message, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import MQMD, Message
from tests.spark.drain_helpers import DEMO_RULES, assert_conserved, drain_env, run_drain

pytestmark = pytest.mark.spark


def _viewfs(tmp_path: Path) -> dict[str, str]:
    """An environment whose Spark sessions mount ``tmp_path/data`` at viewfs://dlq/data."""
    conf = tmp_path / "spark-conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(
        f"spark.hadoop.fs.viewfs.mounttable.dlq.link./data file://{tmp_path}/data\n"
    )
    return drain_env(SPARK_CONF_DIR=str(conf))


def test_drain_and_report_through_a_hadoop_filesystem(tmp_path: Path) -> None:
    first = list(generate_backlog(150, seed=9))
    second = list(generate_backlog(150, seed=10))
    (tmp_path / "data" / "in").mkdir(parents=True)
    write_dump(tmp_path / "data" / "in" / "a.dmp", first)
    write_dump(tmp_path / "data" / "in" / "b.dmp", second)
    env = _viewfs(tmp_path)
    args = (
        "--rules",
        str(DEMO_RULES),
        "--input",
        "viewfs://dlq/data/in",
        "--output",
        "viewfs://dlq/data/out",
        "--master",
        "local[2]",
    )

    proc = run_drain(*args, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = assert_conserved(first + second, tmp_path / "data" / "out")
    assert manifest["input"] == ["viewfs://dlq/data/in/a.dmp", "viewfs://dlq/data/in/b.dmp"]
    assert "viewfs://dlq/data/out" in proc.stdout
    # Nothing staged is left beside the output.
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["in", "out"]

    again = run_drain(*args, cwd=tmp_path, env=env)
    assert again.returncode == ExitCode.USAGE
    assert "not empty" in again.stderr
    assert "Traceback" not in again.stderr
    replaced = run_drain(*args, "--overwrite", cwd=tmp_path, env=env)
    assert replaced.returncode == 0, replaced.stderr[-3000:]
    assert_conserved(first + second, tmp_path / "data" / "out")

    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            "report",
            "--input",
            "viewfs://dlq/data/in/*.dmp",
            "--rules",
            str(DEMO_RULES),
            "--output",
            str(tmp_path / "report"),
            "--master",
            "local[2]",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert report.returncode == 0, report.stderr[-3000:]
    figures = json.loads((tmp_path / "report" / "report.json").read_text())
    assert figures["total"] == len(first) + len(second)


def test_filesystems_hadoop_does_not_know_are_refused(tmp_path: Path) -> None:
    sample = tmp_path / "in.dmp"
    write_dump(sample, list(generate_backlog(20, seed=1)))
    for args, needle in (
        (
            ("--input", "nosuchfs://host/dlq/x.dmp", "--output", "out"),
            "--input nosuchfs://host/dlq/x.dmp",
        ),
        (("--input", str(sample), "--output", "s3a://bucket/drain"), "--output s3a://bucket/drain"),
    ):
        proc = run_drain("--rules", str(DEMO_RULES), *args, "--master", "local[1]", cwd=tmp_path)
        assert proc.returncode == ExitCode.USAGE, proc.stderr[-3000:]
        assert needle in proc.stderr
        assert "connector jar" in proc.stderr
        assert "Traceback" not in proc.stderr
        assert not (tmp_path / "out").exists()


def test_a_hadoop_dumps_header_names_the_input_queue_as_a_local_ones_does(tmp_path: Path) -> None:
    """Dumps read through Hadoop (here viewfs:) are read for their header as local ones
    are: without INPUTQ in the table, the `* Qmgr`/`* Queue` lines dmpmqmsg wrote name
    the DLQ they came from, so a RETRY back onto SYSTEM.DEAD.LETTER.QUEUE on QM1 is a loop
    that stays (no q-SYSTEM.DEAD.LETTER.QUEUE file whose load would put it back on the
    DLQ), a RETRY to APP.A on QM1 is a local put (one q-APP.A@LOCAL.dmp, not a second
    @QM1 file), and the report counts the same unplaceable messages. IBM's "DLQ control
    data" (https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=table-dlq-control-data): "If
    no DLQ is specified ..., the name of the DLQ belonging to the queue manager ... is
    used"; the dump's header names that queue. Before, a Hadoop input's header was
    never read, the input queue was unknown and both loops were written out."""
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    md = MQMD(format="MQSTR")
    letters = [
        Message.dead_letter(
            md.replace(msg_id=n.to_bytes(24, "big")),
            b"m",
            reason=2053,
            dest_q_name=q,
            dest_q_mgr_name=qm,
        )
        for n, (q, qm) in enumerate(
            [("APP.A", ""), ("APP.A", "QM1"), (dlq, "QM1"), (dlq, ""), ("APP.B", "QM2")], start=1
        )
    ]
    (tmp_path / "data" / "in").mkdir(parents=True)
    write_dump(tmp_path / "data" / "in" / "a.dmp", letters, qmgr="QM1", queue=dlq)
    rules = tmp_path / "r.rul"
    rules.write_text("REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(3)\n")
    env = _viewfs(tmp_path)
    common = (
        "--rules",
        str(rules),
        "--input",
        "viewfs://dlq/data/in/a.dmp",
        "--master",
        "local[1]",
    )

    proc = run_drain(*common, "--output", str(tmp_path / "out"), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["input_queue"] == {"queue": dlq, "qmgr": "QM1"}
    assert [(o["queue"], o["qmgr"], o["messages"]) for o in manifest["outputs"]] == [
        ("APP.A", "", 2),
        ("APP.B", "QM2", 1),
    ]
    assert (manifest["totals"]["unplaceable"], manifest["remaining"]["messages"]) == (2, 2)

    report = subprocess.run(
        [sys.executable, "-m", "dlqhandler", "report", *common, "--output", str(tmp_path / "rep")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert report.returncode == 0, report.stderr[-3000:]
    rules_figures = json.loads((tmp_path / "rep" / "report.json").read_text())["rules"]
    assert rules_figures["unplaceable"] == 2
