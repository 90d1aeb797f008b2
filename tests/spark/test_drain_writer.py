"""The drain's JVM side around the data source (``dlqhandler/spark/jvm``):

* ``NioLocalFileSystem`` sets the permission bits Hadoop asks for;
* a task past Spark's open-writer limit is written again in input order.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from dlqhandler.formats.backlog import generate_backlog
from dlqhandler.formats.dmpmqmsg import write_dump
from dlqhandler.rules import compile_rules
from dlqhandler.spark.job import DrainConfig, run_drain

pytestmark = pytest.mark.spark


def test_local_file_system_sets_the_permissions_hadoop_asks_for(spark: Any, tmp_path: Path) -> None:
    """NioLocalFileSystem (the drain's file: filesystem on local masters) creates
    directories and sets files' permission bits as Hadoop asks, without forking chmod."""
    from dlqhandler.spark.jar import LOCAL_FS_CLASS

    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    fs = jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)
    assert fs.getClass().getName() == LOCAL_FS_CLASS
    perm = jvm.org.apache.hadoop.fs.permission.FsPermission.valueOf
    folder = tmp_path / "d"
    assert fs.mkdirs(jvm.org.apache.hadoop.fs.Path(str(folder)), perm("drwxr-x---"))
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o750
    target = folder / "f"
    target.write_bytes(b"x")
    for mode, symbolic in ((0o600, "-rw-------"), (0o644, "-rw-r--r--"), (0o711, "-rwx--x--x")):
        fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(target)), perm(symbolic))
        assert stat.S_IMODE(os.stat(target).st_mode) == mode


def test_a_task_past_the_writer_limit_is_written_again_in_input_order(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a task wrote into more directories than Spark keeps writers open for, Spark
    sorted its remaining rows by directory only: the drain sees it from the part files
    and writes again, sorted; the files are those of a run within the limit."""
    from dlqhandler.spark import outputs

    messages = list(generate_backlog(200, seed=6))
    src = tmp_path / "in.dmp"
    write_dump(src, messages)
    ruleset = compile_rules((Path(__file__).parents[2] / "rules" / "demo.rul").read_text()).ruleset
    assert ruleset is not None
    sorts: list[bool] = []
    write_parts = outputs._write_parts

    def spy(rows: Any, uri: str, *, sort: bool) -> None:
        sorts.append(sort)
        write_parts(rows, uri, sort=sort)

    def drain(out: Path) -> dict[str, bytes]:
        run_drain(spark, ruleset, DrainConfig(output=out, inputs=(str(src),)))
        return {p.name: p.read_bytes().split(b"\n", 1)[1] for p in sorted(out.glob("*.dmp"))}

    monkeypatch.setattr(outputs, "_write_parts", spy)
    within = drain(tmp_path / "within")
    assert sorts == [False]
    monkeypatch.setattr(outputs, "_MAX_WRITERS", 2)
    past = drain(tmp_path / "past")
    assert sorts == [False, False, True]
    assert past == within
