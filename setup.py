"""The build step that compiles the JVM code into the wheel (everything else is in
pyproject.toml).

``build_py`` also compiles ``dlqhandler/spark/jvm/*.java`` with ``javac`` against Spark's
jars into ``dlqhandler/spark/jvm/dlqhandler-spark.jar`` (with the Spark version it was
built for next to it), so a wheel carries the jar and a user with only a Java runtime
gets the JVM path. Spark's jars are found, not required: ``$DLQHANDLER_SPARK_JARS``, else
the ``pyspark`` importable in the build environment (``pip wheel --no-build-isolation``
in an environment with the ``spark`` extra), else ``$SPARK_HOME/jars``. PySpark is not a
build requirement because an isolated build would download it (about 400 MB) for every
build, editable installs included, only to read its jars. Without the jars or a JDK the
wheel has no jar (a warning says so) and ``dlqhandler.spark.jar`` compiles the sources
on first use, as in a source checkout; ``DLQHANDLER_REQUIRE_JAR=1`` makes that an error
(release builds). Editable installs build no jar: the checkout compiles on first use.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
JVM = HERE / "dlqhandler" / "spark" / "jvm"


def _jarbuild():  # the package's own build helper, loaded without importing the package
    spec = importlib.util.spec_from_file_location(
        "_dlqhandler_jarbuild", HERE / "dlqhandler" / "spark" / "_jarbuild.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spark_jars() -> Path | None:
    explicit = os.environ.get("DLQHANDLER_SPARK_JARS")
    if explicit:
        return Path(explicit)
    spec = importlib.util.find_spec("pyspark")
    if spec is not None and spec.origin:
        jars = Path(spec.origin).parent / "jars"
        if jars.is_dir():
            return jars
    home = os.environ.get("SPARK_HOME")
    if home and (Path(home) / "jars").is_dir():
        return Path(home) / "jars"
    return None


class BuildPyWithJar(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        build = _jarbuild()
        jars = _spark_jars()
        problem = None
        version = None
        if jars is None:
            problem = (
                "Spark's jars not found (no pyspark in the build environment, no "
                "DLQHANDLER_SPARK_JARS or SPARK_HOME)"
            )
        else:
            cores = sorted(jars.glob("spark-core_*.jar"))
            match = (
                re.search(r"spark-core_[0-9.]+-([0-9][^/]*)\.jar$", str(cores[0]))
                if cores
                else None
            )
            version = match.group(1) if match else None
            if version is None:
                problem = f"no spark-core jar in {jars}"
        if problem is None:
            out = Path(self.build_lib) / "dlqhandler" / "spark" / "jvm"
            out.mkdir(parents=True, exist_ok=True)
            problem = build.build_jar(sorted(JVM.glob("*.java")), jars, out / build.JAR_NAME)
            if problem is None:
                (out / build.STAMP_NAME).write_text(version + "\n")
        if problem is not None:
            if os.environ.get("DLQHANDLER_REQUIRE_JAR") == "1":
                raise SystemExit(f"dlqhandler: cannot build the Spark jar: {problem}")
            self.warn(
                f"dlqhandler: no Spark jar in this build ({problem}); it will be "
                "compiled on first use where a JDK is installed"
            )


setup(cmdclass={"build_py": BuildPyWithJar})
