"""Inputs are one set of files, and a directory input names what it leaves out
(issue 28): `dlqhandler drain` and `dlqhandler report` on real Spark.

A file reached twice (a directory and a glob into it, a symlink, a ``file:`` URI) is
read once and the run says so; a directory input reads every dmpmqmsg file in it
whatever its suffix (``B.DMP``, ``c.dmp.1``) and names each file it leaves out (a
``readme.txt``, a hidden partial copy, a subdirectory) on stderr and in the summary.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.cli import main as cli_main
from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.mq import Message
from tests.spark.drain_helpers import DEMO_RULES, assert_conserved, drain_env, run_drain

pytestmark = pytest.mark.spark


def _tree(top: Path) -> dict[str, str]:
    return {
        str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(top.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _inputs(tmp_path: Path) -> tuple[list[str], list[Message]]:
    """A directory of three dumps (a.dmp, B.DMP, c.dmp.1: 100 messages each) beside a
    readme.txt, a hidden partial copy and a subdirectory; named five ways that reach
    a.dmp and B.DMP more than once."""
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    messages: list[Message] = []
    for seed, name in ((1, "a.dmp"), (2, "B.DMP"), (3, "c.dmp.1")):
        batch = list(generate_backlog(100, seed=seed, qmgr=f"QM{seed}"))
        write_dump(src / name, batch)
        messages += batch
    (src / "readme.txt").write_text("dumps of the DLQ, week 47\n")
    write_dump(src / ".a.dmp.partial", messages[:10])
    write_dump(src / "sub" / "old.dmp", list(generate_backlog(5, seed=9)))
    (tmp_path / "a-link.dmp").symlink_to(src / "a.dmp")
    argv = [str(src), str(src / "*.dmp"), "a-link.dmp", f"file://{src}/B.DMP", "in/../in/a.dmp"]
    return argv, messages


def _assert_named(text: str) -> None:
    """Every file left out, and every file given more than once, is named."""
    for name in ("readme.txt", ".a.dmp.partial", "sub"):
        assert f"in/{name}: left out of the directory input" in text, text
    assert "not a dmpmqmsg file" in text
    assert "a hidden file" in text
    assert "a subdirectory" in text
    assert text.count("given more than once, read once") == 4, text


def test_drain_reads_each_file_once_and_names_what_it_leaves_out(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """drain over the five spellings: exit 0, each of the 300 messages in exactly one
    output file or discarded (by MsgId and payload), the notes on stderr, in the
    summary and in manifest.json; every input file still on disk, unchanged."""
    monkeypatch.chdir(tmp_path)
    argv, messages = _inputs(tmp_path)
    before = _tree(tmp_path / "in")
    out = tmp_path / "out"
    assert (
        cli_main(["drain", "--rules", str(DEMO_RULES), "--input", *argv, "--output", str(out)])
        == ExitCode.OK
    )
    captured = capsys.readouterr()
    _assert_named(captured.err)
    _assert_named(captured.out)
    manifest = assert_conserved(messages, out)
    assert manifest["totals"]["messages"] == 300
    assert len(manifest["input"]) == 3
    _assert_named("\n".join(manifest["input_notes"]))
    assert _tree(tmp_path / "in") == before


def test_report_reads_each_file_once_names_what_it_leaves_out_and_keeps_spark_quiet(
    tmp_path: Path,
) -> None:
    """report (its own process, its own Spark) over the same spellings: 300 messages,
    not 500; the notes on stderr and stdout; Spark's WARN lines go to the log file the
    summary names, none reach stderr."""
    argv, _messages = _inputs(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "dlqhandler",
            "report",
            "--input",
            *argv,
            "--rules",
            str(DEMO_RULES),
            "--output",
            "report",
            "--master",
            "local[2]",
        ],
        cwd=tmp_path,
        env=drain_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == ExitCode.OK, proc.stderr[-3000:]
    figures = json.loads((tmp_path / "report" / "report.json").read_text())
    assert figures["total"] == 300
    assert figures["inputs"]["files"] == 3
    _assert_named(proc.stderr)
    _assert_named(proc.stdout)
    assert "WARN" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert [
        ln for ln in proc.stderr.splitlines() if not ln.startswith("dlqhandler report: note: ")
    ] == []
    assert "Spark log: " in proc.stdout


def test_report_on_an_empty_dump_says_the_table_would_do_nothing(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dump holding no message with --rules: the summary says the table would do
    nothing, never "the table would: ;"."""
    empty = tmp_path / "empty.dmp"
    write_dump(empty, [])
    assert (
        cli_main(
            [
                "report",
                "--input",
                str(empty),
                "--rules",
                str(DEMO_RULES),
                "--output",
                str(tmp_path / "r"),
            ]
        )
        == ExitCode.OK
    )
    out = capsys.readouterr().out
    assert "the table would: nothing (no message to act on)" in out
    assert "would: ;" not in out


def test_hadoop_hints_name_the_cause(tmp_path: Path) -> None:
    """An hdfs: URI with an unknown host says the host is unknown (not "connector
    jar?"); an s3a: output without its connector says what to set (not --jars, which
    drain does not have). Both exit USAGE with no traceback."""
    sample = tmp_path / "in.dmp"
    write_dump(sample, list(generate_backlog(5, seed=1)))
    proc = run_drain(
        "--rules",
        str(DEMO_RULES),
        "--input",
        "hdfs://no-such-namenode.invalid:8020/dlq/x.dmp",
        "--output",
        "out",
        "--master",
        "local[1]",
        cwd=tmp_path,
    )
    assert proc.returncode == ExitCode.USAGE, proc.stderr[-3000:]
    assert "the host no-such-namenode.invalid is unknown" in proc.stderr
    assert "connector" not in proc.stderr
    proc = run_drain(
        "--rules",
        str(DEMO_RULES),
        "--input",
        str(sample),
        "--output",
        "s3a://bucket/drain",
        "--master",
        "local[1]",
        cwd=tmp_path,
    )
    assert proc.returncode == ExitCode.USAGE, proc.stderr[-3000:]
    assert "org.apache.hadoop:hadoop-aws" in proc.stderr
    assert "PYSPARK_SUBMIT_ARGS" in proc.stderr
    assert "--jars" not in proc.stderr
    for p in (proc,):
        assert "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()
    assert sample.exists()


@pytest.mark.parametrize("command", ["drain", "report"])
def test_input_given_twice_reads_both(spark: Any, tmp_path: Path, command: str) -> None:
    """``--input a.dmp --input b.dmp`` reads both files, as ``--input a.dmp b.dmp`` does:
    the second --input adds to the first rather than silently replacing it (which left
    a.dmp's messages out of the drain, on the DLQ, and out of the report's counts)."""
    a, b = tmp_path / "a.dmp", tmp_path / "b.dmp"
    write_dump(a, list(generate_backlog(7, seed=1)))
    write_dump(b, list(generate_backlog(5, seed=2)))
    out = tmp_path / "out"
    argv = [command, "--rules", str(DEMO_RULES), "--input", str(a), "--input", str(b)]
    assert cli_main([*argv, "--output", str(out)]) == ExitCode.OK
    if command == "drain":
        manifest = json.loads((out / "manifest.json").read_text())
        assert (manifest["input"], manifest["totals"]["messages"]) == ([str(a), str(b)], 12)
    else:
        assert json.loads((out / "report.json").read_text())["total"] == 12
