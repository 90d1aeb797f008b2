"""The drain's own JVM code: ``jvm/*.java`` compiled once into a jar and added to Spark.

The common dmpmqmsg record is decoded by :file:`jvm/DumpRecordDecoder.java`, a Spark
Java UDF: one pass over the record's characters, about as cheap as reading it
(``benchmarks/drain.py`` shows the figures); the same jar holds the ``dmpmqmsg`` Spark
data source (:file:`jvm/DmpmqmsgFileFormat.java`, docs/datasource.md). A wheel ships the
jar, built with the package (``setup.py``) for a Spark line, which is used when the
running PySpark is of that line. Where there is none (a source checkout), the first
drain on a machine compiles the sources with the JDK's ``javac`` against the running
PySpark's jars and caches the jar by content (source, Spark version):
``$DLQHANDLER_JAR_CACHE``, else ``$XDG_CACHE_HOME/dlqhandler/jars``, else
``~/.cache/dlqhandler/jars``. Writing is atomic (a temporary directory renamed), so
concurrent first runs are safe.

:func:`register_decoder` adds the jar to the session (``ADD JAR``: the driver's
class loader and every executor) and registers the UDF. When there is no JDK (only a
JRE) or the jar cannot be added, it returns False and the drain decodes with Spark's
own column expressions (:mod:`dlqhandler.spark.decode`): the same results, several
times slower. The summary names the decoder that ran (``decoder``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from dlqhandler.logs import get_logger
from dlqhandler.spark._jarbuild import JAR_NAME, SERVICES, STAMP_NAME, build_jar

__all__ = [
    "DECODER_FUNCTION",
    "LOCAL_FS_CLASS",
    "STRIP_FUNCTION",
    "compiled_jar",
    "register_decoder",
    "shipped_jar",
]

DECODER_FUNCTION = "dlqhandler_decode_record"
STRIP_FUNCTION = "dlqhandler_stripped_record"
LOCAL_FS_CLASS = "dlqhandler.spark.NioLocalFileSystem"
_CLASSES = {
    DECODER_FUNCTION: "dlqhandler.spark.DumpRecordDecoder",
    STRIP_FUNCTION: "dlqhandler.spark.StrippedRecord",
}
_SOURCES = Path(__file__).with_name("jvm")
_log = get_logger(__name__)


def _cache_root() -> Path:
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
    final = _cache_root() / digest.hexdigest()[:16]
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


def register_decoder(spark: Any, struct_ddl: str) -> bool:
    """Make :data:`DECODER_FUNCTION` (record string -> ``struct<struct_ddl>`` or null)
    and :data:`STRIP_FUNCTION` (record, format, encoding, ccsid -> the record's text
    without its MQDLH, see ``jvm/StrippedRecord.java``) callable in ``spark``; False
    when the JVM code is not available here."""
    from pyspark.sql.types import _parse_datatype_string

    if getattr(spark, "_dlqhandler_decoder", None) == struct_ddl:
        return True
    jar = compiled_jar()
    if jar is None:
        return False
    try:
        # A session this package launched has the jar already (spark.jars, see
        # session.jvm_settings); else ADD JAR: the session's class loader on the driver
        # (py4j pins this Python thread to one JVM thread, whose context class loader
        # it sets) and the executors, which fetch the jar before their next task.
        if str(jar) not in spark.sparkContext.getConf().get("spark.jars", "").split(","):
            spark.sql(f"ADD JAR '{jar}'")
        spark.udf.registerJavaFunction(
            DECODER_FUNCTION,
            _CLASSES[DECODER_FUNCTION],
            _parse_datatype_string(f"struct<{struct_ddl}>"),
        )
        spark.udf.registerJavaFunction(STRIP_FUNCTION, _CLASSES[STRIP_FUNCTION], "string")
    except Exception as exc:  # py4j/analysis errors: fall back, logged
        _log.warning("jvm_decoder_unavailable", why=f"{type(exc).__name__}: {exc}"[:500])
        return False
    spark._dlqhandler_decoder = struct_ddl
    return True


if __name__ == "__main__":  # the spark-submit options that give the drain its jar
    built = compiled_jar()
    if built is None:
        raise SystemExit("the drain's jar cannot be built here: install a JDK (javac)")
    sys.stdout.write(
        f"--jars {built} --driver-class-path {built} "
        f"--conf spark.executor.extraClassPath={built} "
        f"--conf spark.hadoop.fs.file.impl={LOCAL_FS_CLASS}\n"
    )
