"""A class-data sharing archive for the JVM the drain and the report launch.

Most of a small drain's wait is the JVM starting Spark: loading, verifying and linking
some 15,000 classes, the same ones every run. The JDK's application class-data sharing
(AppCDS, JEP 350: ``-XX:ArchiveClassesAtExit`` then ``-XX:SharedArchiveFile``) keeps them
parsed and verified in a file mapped at start. Measured on a 2-core machine, a 2,000-message
``dlqhandler drain`` goes from 9.1 s to 6.2 s (docs/performance.md).

The archive is made once per installation by a training run, a small drain, dry run and
report in one JVM told to archive what it loaded (about 20 s and 170 MB):
``python -m dlqhandler.spark.cds`` (``make install`` runs it). It is named by what it was
made from (this PySpark's jars, the drain's jar, the ``java`` that runs them) and kept
in the drain's jar cache (:mod:`dlqhandler.spark.jar`), under ``cds/``, written to a
temporary name and renamed, so concurrent runs are safe. Beside it a ``.json`` says what
it was made from, and a new archive removes the ones it supersedes (made from the same
places, older files). A session this package builds uses it when it is there
(:func:`java_options`); without it everything runs as before, only slower to start.
The JVM itself checks the archive against its class path and ignores one that does not
match, with a warning in the Spark log (its unified logging goes to stderr, which
is the log file, never to the command's standard output).

``DLQHANDLER_SPARK_CDS=off`` runs without the archive (as ``benchmarks/drain.py`` does for
its figures without it); ``DLQHANDLER_SPARK_CDS=FILE`` uses that archive file. Under
``spark-submit`` the launcher starts the JVM: give it ``--driver-java-options`` with what
``python -m dlqhandler.spark.cds --print`` prints (``python -m dlqhandler.spark.jar``
includes it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from dlqhandler.spark._jarbuild import jdk_tool

__all__ = ["LOGGING", "archive_path", "build", "java_options"]

ENV = "DLQHANDLER_SPARK_CDS"
# The JVM's own warnings (a stale archive, say) to stderr, the Spark log file, not stdout.
LOGGING = "-Xlog:disable -Xlog:all=warning:stderr"


def _java() -> Path | None:
    """The ``java`` PySpark launches, resolved (its links followed)."""
    found = jdk_tool("java")
    return Path(found).resolve() if found else None


def _made_from() -> dict[str, str] | None:
    """What an archive is made from, by place: this PySpark (its version and jars), the
    drain's jar and the ``java``; None without a JDK. An archive made from the same
    places but older files (an upgrade, a rebuilt jar) is superseded (:func:`_prune`)."""
    import pyspark

    from dlqhandler.spark.jar import compiled_jar

    jar, java = compiled_jar(), _java()
    if jar is None or java is None:
        return None
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    return {
        "pyspark": pyspark.__version__,
        "jars": str(jars),
        "jar": str(jar.resolve()),
        "java": str(java),
    }


def archive_path() -> Path | None:
    """Where the archive for this PySpark, this drain jar and this ``java`` is (or
    would be); None when the drain's jar cannot be built (no JDK)."""
    from dlqhandler.spark.jar import cache_root

    made_from = _made_from()
    if made_from is None:
        return None
    jar, java = Path(made_from["jar"]), Path(made_from["java"])
    digest = hashlib.sha256()
    for part in (made_from["pyspark"], made_from["jars"], made_from["jar"], made_from["java"]):
        digest.update(part.encode() + b"\0")
    for path in (jar, java):
        stat = path.stat()
        digest.update(f"{stat.st_size}:{stat.st_mtime_ns}\0".encode())
    return cache_root() / "cds" / f"spark-{digest.hexdigest()[:16]}.jsa"


def java_options() -> str:
    """The driver JVM's options for the archive: empty when there is none (or
    ``DLQHANDLER_SPARK_CDS=off``)."""
    chosen = os.environ.get(ENV, "")
    if chosen.lower() in ("off", "0", "no", "false"):
        return ""
    path = Path(chosen) if chosen else archive_path()
    if path is None or not path.is_file():
        return ""
    return f"-XX:SharedArchiveFile={path} {LOGGING}"


def build(*, master: str = "local[2]", force: bool = False) -> Path | None:
    """Make the archive (a training run in a process of its own); its path, or None
    when this machine cannot (no JDK). Raises RuntimeError when the run failed."""
    import subprocess

    path = archive_path()
    if path is None:
        return None
    if path.is_file() and not force:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".train-", dir=path.parent))
    try:
        made = work / "archive.jsa"
        done = subprocess.run(
            [sys.executable, "-m", "dlqhandler.cli._cds_training", str(made), master],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, ENV: "off"},
        )
        if done.returncode != 0 or not made.is_file() or made.stat().st_size == 0:
            said = (done.stdout + done.stderr).splitlines()
            tail = [line for line in said if line and not line.startswith("[")][-5:]
            raise RuntimeError("the training run made no archive: " + " | ".join(tail))
        os.replace(made, path)
        made_from = _made_from()
        if made_from is not None:
            path.with_suffix(".json").write_text(json.dumps(made_from, sort_keys=True))
            _prune(path, made_from)
        return path
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _prune(path: Path, made_from: dict[str, str]) -> list[Path]:
    """Remove the archives beside ``path`` that it supersedes: made from the same places
    (its ``.json`` says so) but older files, so no JVM of this installation maps them any
    more (each is about 170 MB). Archives of other installations, and those made before
    archives said what they were made from, are left. The removed archives' paths."""
    removed = []
    for other in sorted(path.parent.glob("spark-*.jsa")):
        said = other.with_suffix(".json")
        if other == path or not said.is_file():
            continue
        try:
            theirs = json.loads(said.read_text())
        except (OSError, ValueError):
            continue
        if theirs == made_from:
            other.unlink(missing_ok=True)  # a JVM that maps it keeps its pages
            said.unlink(missing_ok=True)
            removed.append(other)
    return removed


def _say(line: str, *, err: bool = False) -> None:
    (sys.stderr if err else sys.stdout).write(line + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dlqhandler.spark.cds",
        description="Make the Spark JVM's class-data sharing archive (once per "
        "installation; the drain and the report then start faster).",
    )
    parser.add_argument("--force", action="store_true", help="make it again")
    parser.add_argument(
        "--print",
        action="store_true",
        help="print the driver Java options that use it (for spark-submit)",
    )
    parser.add_argument("master", nargs="?", default="local[2]", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.print:
        options = java_options()
        if not options:
            _say("no archive: run python -m dlqhandler.spark.cds", err=True)
            return 1
        _say(options)
        return 0
    try:
        path = build(master=args.master, force=args.force)
    except RuntimeError as exc:
        _say(f"dlqhandler: {exc}", err=True)
        return 1
    if path is None:
        _say("dlqhandler: no JDK here (javac and java): Spark runs without an archive")
        return 0
    _say(f"Spark class-data archive: {path} ({path.stat().st_size // 2**20} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
