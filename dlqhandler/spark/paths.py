"""Where the drain reads and writes: paths and Hadoop URIs, checked before Spark starts.

* :func:`resolve_uri` turns what a user typed (``backlog.dmp``, ``~/dlq``,
  ``file:out``, ``hdfs://nn/dlq``, ``s3a://bucket/dlq``) into an absolute URI,
  resolved on the driver: executors in other JVMs and working directories (a
  ``local-cluster`` or a real cluster) see the same file. Local paths become
  ``file:///abs/path`` (not percent-encoded: Hadoop's ``Path`` quotes itself).
* :func:`check_output_dir` is the output rule: a new or empty directory, or with
  ``overwrite`` a replacement made whole. Every run writes into a temporary
  sibling (``.NAME.dlqhandler-<id>.tmp``); :meth:`OutputDir.commit` renames it
  into place (an atomic exchange with ``renameat2`` when the old one is
  replaced), :meth:`OutputDir.discard` removes it. Runs never mix.

No pyspark import here: the checks run before the JVM starts (it takes seconds).
Local (``file:``) checks are plain Python; other schemes are checked against the
Hadoop filesystem once a session exists (:func:`check_output_dir_hadoop`).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlqhandler.errors import ConfigError

__all__ = [
    "OutputDir",
    "check_output_dir",
    "check_output_dir_hadoop",
    "check_reads_outside",
    "hadoop_fs",
    "hadoop_hint",
    "is_local",
    "java_message",
    "local_path",
    "resolve_uri",
    "scheme_of",
]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_STAGING = ".dlqhandler-"


def scheme_of(uri: str) -> str:
    """The URI scheme, lower case (``file`` for a plain path)."""
    m = _SCHEME.match(uri)
    return m.group(1).lower() if m and len(m.group(1)) > 1 else "file"


def is_local(uri: str) -> bool:
    """A ``file:`` URI or a plain path."""
    return scheme_of(uri) == "file"


def _file_uri_path(uri: str) -> str:
    """The path part of ``file:/p``, ``file:///p``, ``file://localhost/p``, ``file:p``."""
    rest = uri[len("file:") :] if uri[:5].lower() == "file:" else uri
    if rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        if authority not in ("", "localhost"):
            raise ConfigError(
                f"{uri}: a file: URI names no host (got {authority!r}); use file:///absolute/path"
            )
        return "/" + path
    return rest


def resolve_uri(path_or_uri: str, *, cwd: Path | None = None) -> str:
    """An absolute URI for a path or URI typed by a user, resolved on the driver.

    Plain paths and ``file:`` URIs (also relative ones, ``file:out``) become
    ``file:///abs/path`` with ``~`` expanded and ``..`` kept as typed; any other
    scheme (``hdfs:``, ``s3a:``, ``abfs:``...) is returned unchanged for Hadoop.
    """
    text = path_or_uri.strip()
    if not text:
        raise ConfigError("an empty path: give a file, directory or URI")
    if not is_local(text):
        return text
    raw = os.path.expanduser(_file_uri_path(text))
    path = Path(raw) if os.path.isabs(raw) else (cwd or Path.cwd()) / raw
    return "file://" + os.path.normpath(path).replace(os.sep, "/").replace("//", "/")


def local_path(uri: str) -> Path:
    """The local path of a ``file:`` URI (or of a plain path), absolute."""
    if not is_local(uri):
        raise ConfigError(f"{uri}: not a local path")
    return Path(_file_uri_path(resolve_uri(uri)))


@dataclass(frozen=True, slots=True)
class OutputDir:
    """An output directory checked for a run: the job writes into ``staging``.

    ``uri`` is where the result goes, ``staging`` its temporary sibling;
    ``replaces`` says an existing directory will be swapped out by :meth:`commit`.
    """

    uri: str
    staging: str
    replaces: bool

    @property
    def local(self) -> bool:
        return is_local(self.uri)

    @property
    def staging_path(self) -> Path:
        """The local staging directory (``file:`` outputs only)."""
        return local_path(self.staging)

    def commit(self, spark: Any = None) -> None:
        """Move the finished run into place; the replaced directory is removed."""
        if not self.local:
            _hadoop_commit(spark, self)
            return
        final, staging = local_path(self.uri), self.staging_path
        if final.exists() and not _exchange(staging, final):
            # No atomic exchange on this filesystem: two renames, never a mix.
            old = staging.with_name(staging.name.removesuffix(".tmp") + ".old")
            final.rename(old)
            staging.rename(final)
            shutil.rmtree(old, ignore_errors=True)
            return
        if not final.exists():
            staging.rename(final)
            return
        shutil.rmtree(staging, ignore_errors=True)  # after the exchange: the old run

    def discard(self, spark: Any = None) -> None:
        """Remove the staging directory (an interrupted or failed run)."""
        if not self.local:
            _hadoop_delete(spark, self.staging)
            return
        shutil.rmtree(self.staging_path, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux ``renameat2(RENAME_EXCHANGE)``)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _staging_name(name: str) -> str:
    return f".{name}{_STAGING}{uuid.uuid4().hex[:12]}.tmp"


def _nearest_existing(path: Path) -> Path:
    for parent in (path, *path.parents):
        if os.path.lexists(parent):
            return parent
    return Path("/")


def _within(path: str, top: str) -> bool:
    top = top.rstrip("/")
    return path == top or path.startswith(top + "/")


def _real(uri: str) -> str:
    """A local path through its symlinks (a missing tail kept), or a Hadoop URI."""
    target = resolve_uri(uri)
    if not is_local(target):
        return target.rstrip("/")
    return os.path.realpath(local_path(target))


def check_reads_outside(uri: str, reads: Iterable[tuple[str, str]]) -> None:
    """Refuse (:class:`ConfigError`) an output that is, holds, or is inside anything
    the run reads: ``reads`` are ``(option, path or URI)`` pairs (every input file and
    named directory, the rules tables). Local paths are compared through symlinks, so
    ``--overwrite`` can never delete what the run reads."""
    out = _real(uri)
    for what, read in reads:
        r = _real(read)
        if is_local(out) != is_local(r):
            continue
        if _within(r, out):
            how = "is" if r == out.rstrip("/") else "holds"
        elif _within(out, r):
            how = "is inside"
        else:
            continue
        raise ConfigError(
            f"--output {uri}: {out} {how} {what} {r}, which this run reads; "
            "the output is replaced whole (--overwrite) and must never hold "
            "what the run reads: give an --output outside the inputs and the "
            "rules table"
        )


def check_output_dir(
    uri: str, *, overwrite: bool = False, reads: Iterable[tuple[str, str]] = ()
) -> OutputDir:
    """Check ``--output`` and create its staging sibling (``file:``), or plan it.

    Refused (:class:`ConfigError`, with what to do): an output that is, holds or
    is inside anything in ``reads`` (:func:`check_reads_outside`); an existing
    file; a non-empty directory without ``overwrite``; a path that cannot be
    created (a file on the way, no permission, a read-only filesystem). For other
    schemes the same rule is checked by :func:`check_output_dir_hadoop` once a
    Spark session exists.
    """
    check_reads_outside(uri, reads)
    target = resolve_uri(uri)
    if not is_local(target):
        base = target.rstrip("/")
        parent, _, name = base.rpartition("/")
        if not name or parent.endswith((":", ":/")):
            raise ConfigError(f"--output {uri}: name a directory below the filesystem root")
        return OutputDir(base, f"{parent}/{_staging_name(name)}", replaces=False)
    final = local_path(target)
    if final == Path("/") or not final.name:
        raise ConfigError(f"--output {uri}: name a directory below /")
    replaces = False
    if final.exists() or final.is_symlink():
        if not final.is_dir():
            raise ConfigError(
                f"--output {uri}: {final} exists and is not a directory; "
                "give a new or empty directory"
            )
        entries = sorted(p.name for p in final.iterdir())
        if entries and not overwrite:
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise ConfigError(
                f"--output {uri}: {final} is not empty ({len(entries)} entries: {shown}); "
                "the drain never mixes runs: give a new or empty directory, or pass "
                "--overwrite to replace it whole"
            )
        replaces = bool(entries)
    existing = _nearest_existing(final.parent)
    if not existing.is_dir():
        raise ConfigError(f"--output {uri}: cannot create {final}: {existing} is not a directory")
    staging = final.parent / _staging_name(final.name)
    try:
        staging.mkdir(parents=True)
        probe = staging / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        with contextlib.suppress(OSError):
            staging.rmdir()
        if final.is_dir() and os.access(final, os.W_OK):
            raise ConfigError(
                f"--output {uri}: {final} is writable but its parent {final.parent} is not "
                f"({exc.strerror}): the run is staged beside the output, in "
                f"{final.parent}/.{final.name}{_STAGING}<id>.tmp, and moved into place only "
                "when complete (so a failed run leaves nothing and never mixes with the "
                "old); give an output in a directory you can write to"
            ) from exc
        raise ConfigError(
            f"--output {uri}: cannot create {final} ({exc.strerror}: "
            f"{exc.filename or existing}); choose a directory you can write "
            "to"
        ) from exc
    return OutputDir(target, "file://" + str(staging), replaces=replaces)


# -- Hadoop filesystems (hdfs:, s3a:, ...) through the driver's JVM ----------------------


def hadoop_fs(spark: Any, uri: str) -> tuple[Any, Any]:
    """The Hadoop FileSystem and Path of ``uri`` in ``spark``'s configuration; a
    :class:`ConfigError` saying why when Hadoop cannot reach it (:func:`hadoop_hint`)."""
    if spark is None:
        raise ConfigError(f"{uri}: a Hadoop filesystem needs a Spark session")
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    try:
        return path.getFileSystem(conf), path
    except Exception as exc:
        hint = hadoop_hint(uri, exc)
        what = (
            "no Hadoop filesystem for this URI"
            if "connector jar" in hint
            else "Hadoop cannot open its filesystem"
        )
        raise ConfigError(f"{uri}: {what} ({java_message(exc)}){hint}") from exc


def hadoop_hint(uri: str, exc: BaseException) -> str:
    """What to do about a Hadoop filesystem error, from its Java cause: an unknown
    host is the host; a missing filesystem class is the connector's packages (the
    drain has no ``--jars``: Spark takes them from ``PYSPARK_SUBMIT_ARGS``, its
    ``spark-defaults.conf``, or ``spark-submit`` running ``ops/spark/drain.py``)."""
    text = java_message(exc) + " " + str(exc)[:2000]
    host = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://([^/:]*)", uri)
    if "UnknownHostException" in text:
        name = host.group(1) if host and host.group(1) else "in the URI"
        return (
            f"; the host {name} is unknown: check the host name in the URI (or the "
            "nameservice in the cluster's core-site.xml) and DNS"
        )
    if "No FileSystem for scheme" in text or "ClassNotFoundException" in text:
        scheme = scheme_of(uri)
        package = {
            "s3a": "org.apache.hadoop:hadoop-aws:<Spark's Hadoop version>",
            "abfs": "org.apache.hadoop:hadoop-azure:<Spark's Hadoop version>",
            "abfss": "org.apache.hadoop:hadoop-azure:<Spark's Hadoop version>",
            "gs": "com.google.cloud.bigdataoss:gcs-connector:<version>",
        }.get(scheme, f"the Hadoop connector for {scheme}:")
        return (
            f"; Spark has no filesystem for {scheme}: put its connector jar ({package})"
            " on Spark's classpath: "
            f"export PYSPARK_SUBMIT_ARGS='--packages {package} pyspark-shell' before "
            "dlqhandler, set spark.jars.packages in $SPARK_HOME/conf/spark-defaults.conf,"
            " or run ops/spark/drain.py under spark-submit --packages"
        )
    return ""


def java_message(exc: BaseException) -> str:
    """The Java exception behind a py4j error (its first line otherwise)."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        return str(java.toString())
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def check_output_dir_hadoop(
    spark: Any, out: OutputDir, *, overwrite: bool = False, reads: Iterable[tuple[str, str]] = ()
) -> OutputDir:
    """The output rule on a Hadoop filesystem (``reads`` qualified URIs, as
    :func:`check_reads_outside`); creates the staging directory."""
    try:
        fs, path = hadoop_fs(spark, out.uri)
    except ConfigError as exc:
        raise ConfigError(f"--output {exc}") from exc
    replaces = False
    try:
        check_reads_outside(str(fs.makeQualified(path).toString()), reads)
        if fs.exists(path):
            if not fs.getFileStatus(path).isDirectory():
                raise ConfigError(f"--output {out.uri}: exists and is not a directory")
            if len(fs.listStatus(path)) and not overwrite:
                raise ConfigError(
                    f"--output {out.uri}: the directory is not empty; the drain "
                    "never mixes runs: give a new or empty directory, or pass "
                    "--overwrite to replace it whole"
                )
            replaces = len(fs.listStatus(path)) > 0
        staging = spark.sparkContext._jvm.org.apache.hadoop.fs.Path(out.staging)
        if not fs.mkdirs(staging):
            raise ConfigError(f"--output {out.uri}: cannot create {out.staging}")
    except ConfigError:
        raise
    except Exception as exc:
        raise ConfigError(f"--output {out.uri}: {java_message(exc)}") from exc
    return OutputDir(out.uri, out.staging, replaces=replaces)


def _hadoop_commit(spark: Any, out: OutputDir) -> None:
    fs, final = hadoop_fs(spark, out.uri)
    staging = spark.sparkContext._jvm.org.apache.hadoop.fs.Path(out.staging)
    if fs.exists(final):
        old = spark.sparkContext._jvm.org.apache.hadoop.fs.Path(
            out.staging.removesuffix(".tmp") + ".old"
        )
        if not fs.rename(final, old):
            raise ConfigError(f"--output {out.uri}: cannot move the old directory aside")
        if not fs.rename(staging, final):
            fs.rename(old, final)
            raise ConfigError(
                f"--output {out.uri}: cannot move the new run into place; it is in {out.staging}"
            )
        fs.delete(old, True)
        return
    if not fs.rename(staging, final):
        raise ConfigError(
            f"--output {out.uri}: cannot move the run into place; it is in {out.staging}"
        )


def _hadoop_delete(spark: Any, uri: str) -> None:
    with contextlib.suppress(Exception):
        fs, path = hadoop_fs(spark, uri)
        fs.delete(path, True)
