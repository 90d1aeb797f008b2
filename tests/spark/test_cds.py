"""The Spark JVM's class-data sharing archive (dlqhandler.spark.cds): made by a training
run, mapped by the JVM a session of this package launches, and changing no output; a
broken archive is ignored by the JVM, and nothing of it reaches standard output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dlqhandler.spark import cds
from tests.required import require_java

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "demo.rul"

# A process that launches a session's JVM and says whether the JVM mapped the archive.
_PROBE = """
import sys
from pyspark import SparkContext
from dlqhandler.spark.session import get_session, stop_session
spark = get_session("local[1]")
maps = open(f"/proc/{SparkContext._gateway.proc.pid}/maps").read()
print("mapped" if sys.argv[1] in maps else "not mapped")
stop_session(spark)
"""


def _env(archive: str) -> dict[str, str]:
    return {**os.environ, cds.ENV: archive}


def _drain(dump: Path, out: Path, archive: str) -> subprocess.CompletedProcess[str]:
    argv = ["drain", "--rules", str(RULES), "--input", str(dump), "--output", str(out)]
    return subprocess.run(
        [sys.executable, "-m", "dlqhandler", *argv, "--master", "local[1]"],
        capture_output=True,
        text=True,
        env=_env(archive),
        check=False,
        timeout=600,
    )


def _outputs(out: Path) -> dict[str, object]:
    """Every dump file without its Created line, and the summary."""
    found: dict[str, object] = {
        p.name: [line for line in p.read_text().splitlines() if "Created:" not in line]
        for p in sorted(out.glob("*.dmp"))
    }
    found["summary"] = json.loads((out / "summary.json").read_text())
    return found


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive made by the training run, in a directory of this test's own."""
    require_java()
    made = tmp_path_factory.mktemp("cds") / "spark.jsa"
    mp = pytest.MonkeyPatch()
    mp.setattr(cds, "archive_path", lambda: made)
    try:
        assert cds.build(master="local[1]") == made
    finally:
        mp.undo()
    return made


@pytest.mark.timeout(900)
def test_the_training_run_makes_an_archive_the_driver_jvm_maps(archive: Path) -> None:
    """The training run leaves an archive, and the JVM a session of this package
    launches maps it (its /proc maps name the file); with DLQHANDLER_SPARK_CDS=off it
    does not."""
    assert archive.stat().st_size > 10 * 2**20  # Spark's classes, not an empty file
    for chosen, said in ((str(archive), "mapped"), ("off", "not mapped")):
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(archive)],
            capture_output=True,
            text=True,
            env=_env(chosen),
            check=True,
            timeout=600,
        )
        assert done.stdout.strip().splitlines()[-1] == said, done.stderr[-2000:]


@pytest.mark.timeout(900)
def test_a_drain_with_the_archive_writes_what_one_without_writes(
    archive: Path, tmp_path: Path
) -> None:
    """The archive changes how fast the JVM starts, nothing else: the same dump files
    (but their Created line) and the same summary with it as without."""
    from dlqhandler.formats.backlog import write_backlog

    dump = tmp_path / "in.dmp"
    with dump.open("wb") as stream:
        write_backlog(stream, 300, seed=7)
    runs = {}
    for name, chosen in (("with", str(archive)), ("without", "off")):
        done = _drain(dump, tmp_path / name, chosen)
        assert done.returncode == 0, done.stderr[-2000:]
        runs[name] = _outputs(tmp_path / name)
    assert runs["with"] == runs["without"]
    assert len(runs["with"]) > 3  # several targets, remaining.dmp and the summary


@pytest.mark.timeout(900)
def test_a_broken_archive_is_ignored(tmp_path: Path) -> None:
    """An archive the JVM cannot use (here: not an archive at all) leaves the drain as
    it is without one: exit 0, its outputs written, and nothing of the JVM's on standard
    output (its warnings, with -Xlog to stderr, go to the Spark log file)."""
    require_java()
    from dlqhandler.formats.backlog import write_backlog

    broken = tmp_path / "broken.jsa"
    broken.write_bytes(b"not a class-data archive" * 100)
    dump = tmp_path / "in.dmp"
    with dump.open("wb") as stream:
        write_backlog(stream, 50, seed=3)
    done = _drain(dump, tmp_path / "out", str(broken))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "[warning]" not in done.stdout
    assert "[info]" not in done.stdout
    assert _outputs(tmp_path / "out")["summary"]


def test_without_an_archive_the_driver_gets_no_archive_option(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No archive file, or DLQHANDLER_SPARK_CDS=off: no -XX:SharedArchiveFile option (a
    JVM given a missing archive would warn on every start)."""
    monkeypatch.setattr(cds, "archive_path", lambda: tmp_path / "none.jsa")
    monkeypatch.delenv(cds.ENV, raising=False)
    assert cds.java_options() == ""
    (tmp_path / "none.jsa").write_bytes(b"x")
    assert f"-XX:SharedArchiveFile={tmp_path / 'none.jsa'}" in cds.java_options()
    monkeypatch.setenv(cds.ENV, "off")
    assert cds.java_options() == ""


def test_a_new_archive_removes_the_ones_it_supersedes(tmp_path: Path) -> None:
    """Each archive says what it was made from (a ``.json`` beside it); a new one removes
    the archives made from the same PySpark, jar and ``java`` places (older files: an
    upgrade, a rebuilt jar: about 170 MB each that no JVM of this installation maps any
    more) and leaves those of other installations and those that say nothing."""
    ours = {"pyspark": "4.3.0", "jars": "/v/jars", "jar": "/c/d.jar", "java": "/j/java"}
    other = {**ours, "jar": "/other/venv/d.jar"}
    for name, said in (("old", ours), ("theirs", other), ("silent", None), ("new", ours)):
        (tmp_path / f"spark-{name}.jsa").write_bytes(b"archive")
        if said is not None:
            (tmp_path / f"spark-{name}.json").write_text(json.dumps(said))
    removed = cds._prune(tmp_path / "spark-new.jsa", ours)
    assert removed == [tmp_path / "spark-old.jsa"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "spark-new.jsa",
        "spark-new.json",
        "spark-silent.jsa",
        "spark-theirs.jsa",
        "spark-theirs.json",
    ]
