"""`dlqhandler drain` refuses bad inputs and outputs before Spark starts.

Each case runs the real command in a subprocess whose SPARK_HOME is an empty
directory: had the drain started Spark, it would die with a launcher error and
a traceback. Instead it prints one clear message (what, where, what to do) and
exits USAGE (2), and leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dlqhandler.cli.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules" / "demo.rul"
SAMPLE = ROOT / "samples" / "backlog-small.dmp"
# What every drain here reads: the shipped demo table on the shipped sample backlog.
FROM_SAMPLE = ("--rules", str(RULES), "--input", str(SAMPLE))


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary directory other users can enter (tmp_path is private to root)."""
    with tempfile.TemporaryDirectory(prefix="dlq-preflight-") as name:
        path = Path(name)
        path.chmod(0o755)
        yield path


def drain(*args: str, cwd: Path, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    spark_home = cwd / "no-spark-here"
    spark_home.mkdir(exist_ok=True)
    home = cwd / "dlq-home"
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = {
        **os.environ,
        "SPARK_HOME": str(spark_home),
        "DLQHANDLER_HOME": str(home),
        "HOME": str(home),
    }
    env.pop("PYSPARK_GATEWAY_PORT", None)
    prefix: list[str] = []
    if unprivileged and os.geteuid() == 0:
        # root without the capabilities that ignore file permissions
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot test permissions")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", "--"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "dlqhandler", "drain", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_refused(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == ExitCode.USAGE, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "dlqhandler drain: " in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_output_that_is_an_existing_file(shared_tmp: Path) -> None:
    """--output /etc/passwd: 'exists and is not a directory', the file untouched."""
    before = Path("/etc/passwd").read_bytes()
    proc = drain(*FROM_SAMPLE, "--output", "/etc/passwd", cwd=shared_tmp)
    assert_refused(proc, "/etc/passwd", "exists and is not a directory")
    assert Path("/etc/passwd").read_bytes() == before


def test_output_that_cannot_be_created(shared_tmp: Path) -> None:
    """An uncreatable path (under /proc) and a path through a file are refused."""
    proc = drain(
        *FROM_SAMPLE,
        "--output",
        "/proc/dlqhandler/out",
        cwd=shared_tmp,
    )
    assert_refused(proc, "cannot create /proc/dlqhandler/out")
    (shared_tmp / "afile").write_text("x")
    proc = drain(*FROM_SAMPLE, "--output", "afile/out", cwd=shared_tmp)
    assert_refused(proc, f"{shared_tmp}/afile is not a directory")


def test_output_in_a_read_only_directory(shared_tmp: Path) -> None:
    """A directory the user cannot write to: 'Permission denied', nothing created
    (as root, without the capabilities that bypass permissions)."""
    ro = shared_tmp / "readonly"
    ro.mkdir()
    ro.chmod(0o555)
    proc = drain(
        *FROM_SAMPLE,
        "--output",
        str(ro / "out"),
        cwd=shared_tmp,
        unprivileged=True,
    )
    assert_refused(proc, f"cannot create {ro}/out", "Permission denied")
    assert list(ro.iterdir()) == []


def test_missing_input(shared_tmp: Path) -> None:
    """A missing --input names it; no output directory is created."""
    proc = drain("--rules", str(RULES), "--input", "nope.dmp", "--output", "out", cwd=shared_tmp)
    assert_refused(proc, f"--input {shared_tmp}/nope.dmp", "not a file or directory")
    proc = drain("--rules", str(RULES), "--input", "dumps/*.dmp", "--output", "out", cwd=shared_tmp)
    assert_refused(proc, "no file matches")
    assert not (shared_tmp / "out").exists()


def test_non_empty_output_is_refused_and_kept(shared_tmp: Path) -> None:
    """A non-empty --output DIR without --overwrite: refused, says how to replace it,
    the previous run's files untouched and nothing staged beside it."""
    out = shared_tmp / "out"
    out.mkdir()
    (out / "q-APP.OLD@LOCAL.dmp").write_text("previous run")
    proc = drain(*FROM_SAMPLE, "--output", "out", cwd=shared_tmp)
    assert_refused(proc, "is not empty", "--overwrite")
    assert (out / "q-APP.OLD@LOCAL.dmp").read_text() == "previous run"
    assert sorted(p.name for p in shared_tmp.iterdir() if p.name.startswith(".")) == []
