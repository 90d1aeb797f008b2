"""The wheel carries the data source's jar (``setup.py``'s build step).

``pip wheel --no-build-isolation`` in this environment (its pyspark gives Spark's jars;
an isolated build would download pyspark only to read them, see setup.py) builds a
wheel holding ``dlqhandler/spark/jvm/dlqhandler-spark.jar`` with the compiled classes,
the ``dmpmqmsg`` service registration and the Spark version it was built for. The build
runs on a copy of the checkout's tracked files, so the worktree gets no build/ dir.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dlqhandler.spark._jarbuild import JAR_NAME, SERVICES, STAMP_NAME
from tests.required import require_javac

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_contains_the_jar(tmp_path: Path) -> None:
    """The built wheel has the jar (data source class, service entry) and its stamp."""
    pyspark = pytest.importorskip("pyspark")
    require_javac()
    listed = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    tracked = subprocess.run(
        listed, cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    src = tmp_path / "src"
    for name in tracked:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("dlqhandler-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        jar_bytes = z.read(f"dlqhandler/spark/jvm/{JAR_NAME}")
        stamp = z.read(f"dlqhandler/spark/jvm/{STAMP_NAME}").decode().strip()
    assert "dlqhandler/spark/jvm/DmpmqmsgFileFormat.java" in names
    assert stamp == pyspark.__version__
    with zipfile.ZipFile(io.BytesIO(jar_bytes)) as jar:
        inside = set(jar.namelist())
        for name, text in SERVICES.items():
            assert jar.read(name).decode() == text
    assert "dlqhandler/spark/DmpmqmsgFileFormat.class" in inside
    assert "dlqhandler/spark/DumpRecordWriter.class" in inside


def test_shipped_jar_is_used_for_its_spark_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed jar is taken without compiling when it was built for this PySpark's
    major.minor, and not for another Spark line (then compile-on-first-use)."""
    pyspark = pytest.importorskip("pyspark")
    from dlqhandler.spark import jar

    (tmp_path / JAR_NAME).write_bytes(b"PK")
    monkeypatch.setattr(jar, "_SOURCES", tmp_path)
    assert jar.shipped_jar() is None  # no stamp: not a built jar
    major, minor = pyspark.__version__.split(".")[:2]
    (tmp_path / STAMP_NAME).write_text(f"{major}.{minor}.99\n")
    assert jar.shipped_jar() == tmp_path / JAR_NAME
    assert jar.compiled_jar() == tmp_path / JAR_NAME
    (tmp_path / STAMP_NAME).write_text(f"{int(major) + 1}.0.0\n")
    assert jar.shipped_jar() is None
