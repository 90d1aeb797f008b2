"""The package's JVM code: ``jvm/*.java`` compiled once into a jar and added to Spark.

The jar holds the ``dmpmqmsg`` Spark data source (:file:`jvm/DmpmqmsgFileFormat.java`,
docs/datasource.md) that the drain and the report read and write through. A wheel ships
the jar, built with the package (``setup.py``) for a Spark line, which is used when the
running PySpark is of that line. Where there is none (a source checkout), the first
drain on a machine compiles the sources with the JDK's ``javac`` against the running
PySpark's jars and caches the jar by content (source, Spark version):
``$DLQHANDLER_JAR_CACHE``, else ``$XDG_CACHE_HOME/dlqhandler/jars``, else
``~/.cache/dlqhandler/jars``. Writing is atomic (a temporary directory renamed), so
concurrent first runs are safe. A session this package builds has the jar on its class
path (:func:`dlqhandler.spark.session.jvm_settings`); under ``spark-submit``,
``python -m dlqhandler.spark.jar`` prints the options that put it there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from dlqhandler.logs import get_logger
from dlqhandler.spark._jarbuild import JAR_NAME, SERVICES, STAMP_NAME, build_jar

__all__ = ["LOCAL_FS_CLASS", "cache_root", "compiled_jar", "shipped_jar"]

LOCAL_FS_CLASS = "dlqhandler.spark.NioLocalFileSystem"
_SOURCES = Path(__file__).with_name("jvm")
_log = get_logger(__name__)


def cache_root() -> Path:
    explicit = os.environ.get("DLQHANDLER_JAR_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dlqhandler" / "jars"


def _spark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def shipped_jar() -> Path | None:
    """The jar built with the package (a wheel, or ``setup.py build_py``), when it was
    built for this PySpark's Spark line (major.minor)."""
    import pyspark

    jar = _SOURCES / JAR_NAME
    stamp = _SOURCES / STAMP_NAME
    if not jar.is_file() or not stamp.is_file():
        return None
    if _minor(stamp.read_text().strip()) != _minor(pyspark.__version__):
        _log.warning(
            "shipped_jar_other_spark",
            built_for=stamp.read_text().strip(),
            running=pyspark.__version__,
        )
        return None
    return jar


def compiled_jar() -> Path | None:
    """The jar of ``jvm/*.java`` for the installed PySpark: the one shipped with the
    package, else compiled here on first use and cached by content; None when neither
    (no ``javac``, or the compiler failed: logged)."""
    import pyspark

    shipped = shipped_jar()
    if shipped is not None:
        return shipped
    sources = sorted(_SOURCES.glob("*.java"))
    digest = hashlib.sha256(pyspark.__version__.encode())
    for name, text in sorted(SERVICES.items()):
        digest.update(name.encode() + b"\0" + text.encode())
    for src in sources:
        digest.update(src.name.encode() + b"\0" + src.read_bytes())
    final = cache_root() / digest.hexdigest()[:16]
    jar = final / JAR_NAME
    if jar.is_file():
        return jar
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=final.parent))
    try:
        problem = build_jar(sources, _spark_jars(), work / JAR_NAME)
        if problem is not None:
            _log.warning("jvm_decoder_unavailable", why=problem)
            return None
        with contextlib.suppress(OSError):  # another process may have won the race
            work.rename(final)
        return jar if jar.is_file() else None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def submit_options() -> str | None:
    """The ``spark-submit`` options that give a session of one's own what a session the
    package builds has: the drain's jar, the local file system, the class-data archive
    (when ``make install`` made one) and the settings of
    :data:`dlqhandler.spark.session.BUILT_SESSION`, its JVM options for the driver and the
    executors alike; None when the jar cannot be built here (no JDK)."""
    built = compiled_jar()
    if built is None:
        return None
    from dlqhandler.spark.session import (
        BUILT_SESSION,
        EXECUTOR_JAVA_OPTIONS,
        JAVA_OPTIONS,
        driver_java_options,
    )

    # the archive is this machine's, the young generation's cap the driver's: driver only
    driver = driver_java_options()
    settings = "".join(f" --conf {k}={v}" for k, v in BUILT_SESSION.items() if k != JAVA_OPTIONS)
    return (
        f"--jars {built} --driver-class-path {built} "
        f"--conf spark.executor.extraClassPath={built} "
        f"--conf spark.hadoop.fs.file.impl={LOCAL_FS_CLASS}{settings}"
        f" --driver-java-options '{driver}'"
        f" --conf 'spark.executor.extraJavaOptions={EXECUTOR_JAVA_OPTIONS}'"
    )


if __name__ == "__main__":  # the spark-submit options that give the drain its jar
    options = submit_options()
    if options is None:
        raise SystemExit("the drain's jar cannot be built here: install a JDK (javac)")
    sys.stdout.write(options + "\n")
