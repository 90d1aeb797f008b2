"""Build the jar of ``jvm/*.java`` with ``javac`` (standard library only).

One home for the build, used twice: by ``setup.py`` when the package is built (the jar
then ships in the wheel, next to the sources, so a user with only a Java runtime gets
the JVM code), and by :mod:`dlqhandler.spark.jar` on first use in a source checkout that
has no built jar. The jar registers the ``dmpmqmsg`` data source with Spark
(``META-INF/services/org.apache.spark.sql.sources.DataSourceRegister``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

JAR_NAME = "dlqhandler-spark.jar"
STAMP_NAME = "dlqhandler-spark.jar.spark-version"
_REGISTER = "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"
SERVICES = {_REGISTER: "dlqhandler.spark.DmpmqmsgFileFormat\n"}


def jdk_tool(name: str) -> str | None:
    """A JDK program as PySpark finds the JDK: ``$JAVA_HOME/bin/<name>``, else ``name``
    on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / name).is_file():
        return str(Path(home) / "bin" / name)
    return shutil.which(name)


def javac() -> str | None:
    """The JDK's compiler (:func:`jdk_tool`)."""
    return jdk_tool("javac")


def build_jar(sources: list[Path], spark_jars: Path, jar: Path) -> str | None:
    """Compile ``sources`` against the jars in ``spark_jars`` into ``jar``; None, or why
    it could not be built."""
    compiler = javac()
    if compiler is None:
        return "no javac (a JDK) on PATH or in JAVA_HOME"
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=jar.parent))
    try:
        classes = work / "classes"
        classes.mkdir()
        cmd = [
            compiler,
            "--release",
            "17",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-cp",
            str(spark_jars / "*"),
            "-d",
            str(classes),
            *map(str, sources),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return "javac failed: " + done.stderr[-2000:]
        tmp = work / jar.name
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:  # no `jar` tool needed
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
            for name, text in SERVICES.items():
                z.writestr(name, text)
            for path in sorted(classes.rglob("*.class")):
                z.write(path, path.relative_to(classes).as_posix())
        os.replace(tmp, jar)
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)
