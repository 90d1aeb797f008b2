"""The filesystem of the drain and the report: paths and Hadoop URIs checked before Spark
starts, and the output directory on the local disk or on any Hadoop filesystem.

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

The drain's output directory: Spark writes the parts and the audit wherever its URI
points; what the driver does around them (list the part files, join them under a
header, write ``summary.json`` and ``manifest.json``, move and delete directories)
goes through one of two :class:`OutFiles`:

* :class:`LocalFiles` (``file:``): Python, with ``copy_file_range`` for the join (each
  part copied to its offset and removed, by a thread per core), and
  every name checked to stay inside the directory (:func:`safe_path`);
* :class:`HadoopFiles` (``hdfs:``, ``s3a:``, ``viewfs:``...: whatever filesystem the
  session's Hadoop configuration knows): the Hadoop FileSystem API through the
  driver's JVM, and the join by ``jvm/DumpFiles.java``, so the bytes never cross into
  Python.

:func:`output_files` picks one from the drain's ``--output``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from dlqhandler.errors import ConfigError
from dlqhandler.formats.dmpmqmsg import DumpWriter

__all__ = [
    "HadoopFiles",
    "LocalFiles",
    "OutFiles",
    "OutputDir",
    "check_output_dir",
    "check_output_dir_hadoop",
    "check_reads_outside",
    "hadoop_fs",
    "hadoop_hint",
    "is_local",
    "java_message",
    "local_path",
    "output_files",
    "parts_order",
    "resolve_uri",
    "safe_path",
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


# -- the output directory's files ----------------------------------------------------
_PART_GLOB = "pf=*/ps=*/part-*"  # input file, input split (spark/drain/outputs.py)
_AUDIT_GLOB = "t=*/pf=*/ps=*/part-*.parquet"


def safe_path(directory: Path, name: str) -> Path:
    """``directory/name``, refusing anything that would resolve outside it."""
    base = directory.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise ConfigError(f"refusing output file name {name!r}: outside {base}")
    return path


def _flat(name: str) -> str:
    """A name of one file or directory inside the output (never a path out of it)."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise ConfigError(f"refusing output file name {name!r}: not a plain name")
    return name


def parts_order(uri: str) -> tuple[int, int, str]:
    """Sort key of a part file ``.../pf=F/ps=S/part-...``: input file,
    split offset, then name (a split's part files are numbered in writing order)."""
    head, _, name = uri.rpartition("/")
    head, _, split = head.rpartition("/")
    _, _, file_ = head.rpartition("/")
    return int(file_.split("=", 1)[1]), int(split.split("=", 1)[1]), name


def _header(*, crlf: bool = False) -> str:
    """dmpmqmsg's file header, with the line ends of the records that follow it."""
    buf = io.BytesIO()
    DumpWriter(buf).close()
    text = buf.getvalue().decode("latin-1")
    return text.replace("\n", "\r\n") if crlf else text


def _crlf(head: bytes) -> bool:
    """Whether the first line of ``head`` (a part's first record) ends with CRLF: the
    records are copied as read, so a CRLF input's output file gets a CRLF header."""
    end = head.find(b"\n")
    return end > 0 and head[end - 1 : end] == b"\r"


class OutFiles(Protocol):
    """What the driver does in the output directory; names are relative to it, and a
    name is one plain file or directory name (``/`` joins parts of a relative name
    only where this module builds it)."""

    def uri(self, *names: str) -> str:
        """A URI or path Spark reads or writes."""
        ...

    def mkdirs(self) -> None: ...

    def write_text(self, name: str, text: str) -> None: ...

    def children(self, name: str) -> list[str]:
        """The names directly under directory ``name`` (empty when it does not exist)."""
        ...

    def parts(self, *names: str, suffix: str = ".dmp") -> list[str]:
        """The part files (names ending with ``suffix``) under directory ``names``
        (partitioned by file and split), in input order."""
        ...

    def join(self, targets: list[tuple[str, list[str]]]) -> list[int]:
        """For each ``(name, parts)``: the dmpmqmsg header and ``parts`` into file
        ``name`` (atomically), the part files consumed; the files' sizes, in order."""
        ...

    def texts(self, uris: list[str]) -> list[str]:
        """The UTF-8 text of each of ``uris`` (small files the writers left: counts)."""
        ...

    def gather(self, name: str, dest: str) -> int:
        """Move the Parquet part files under directory ``name`` (partitioned by output
        key, file and split) into the new directory ``dest``, each under a name of its
        own; how many."""
        ...

    def rename(self, name: str, new: str) -> None: ...

    def delete(self, name: str) -> None:
        """Remove file or directory ``name`` (no error when it is not there)."""
        ...


class LocalFiles(OutFiles):
    def __init__(self, base: Path) -> None:
        self.base = base

    def _path(self, *names: str) -> Path:
        return self.base.joinpath(*(_flat(n) for n in names))

    def uri(self, *names: str) -> str:
        return str(self._path(*names))

    def mkdirs(self) -> None:
        self.base.mkdir(parents=True, exist_ok=True)

    def write_text(self, name: str, text: str) -> None:
        self._path(name).write_text(text, encoding="utf-8")

    def children(self, name: str) -> list[str]:
        folder = self._path(name)
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []

    def parts(self, *names: str, suffix: str = ".dmp") -> list[str]:
        found = self._path(*names).glob(_PART_GLOB + suffix)
        return sorted((str(p) for p in found), key=parts_order)

    def join(self, targets: list[tuple[str, list[str]]]) -> list[int]:
        # Every target's file is made at its final size, then every part is copied to its
        # offset and removed, largest first, by as many threads as cores: the work is
        # shared by part, not by target (one large target would keep one core busy while
        # the other idles), and each copy is the kernel's, outside the GIL.
        files: list[tuple[Path, Path, int]] = []  # (temporary, final, file descriptor)
        copies: list[tuple[int, str, int, int]] = []  # (file descriptor, part, offset, size)
        try:
            for name, parts in targets:
                final = safe_path(self.base, name)
                tmp = final.with_name(f".{final.name}.tmp")
                first = b""
                if parts:
                    with open(parts[0], "rb") as src:
                        first = src.read(4096)
                header = _header(crlf=_crlf(first)).encode("latin-1")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
                offset = len(header)
                files.append((tmp, final, fd))
                os.pwrite(fd, header, 0)
                for part in parts:
                    size = os.stat(part).st_size
                    copies.append((fd, part, offset, size))
                    offset += size
                os.ftruncate(fd, offset)
            copies.sort(key=lambda c: -c[3])
            workers = max(1, min(len(copies), os.cpu_count() or 1))
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(lambda c: _copy_at(*c), copies))
        finally:
            for _tmp, _final, fd in files:
                os.close(fd)
        sizes = []
        for tmp, final, _fd in files:
            os.replace(tmp, final)
            sizes.append(final.stat().st_size)
        return sizes

    def texts(self, uris: list[str]) -> list[str]:
        return [Path(u).read_text(encoding="utf-8") for u in uris]

    def gather(self, name: str, dest: str) -> int:
        target = self._path(dest)
        target.mkdir()
        found = sorted(self._path(name).glob(_AUDIT_GLOB))
        for i, part in enumerate(found):
            os.rename(part, target / f"{i:06d}-{part.name}")
        return len(found)

    def rename(self, name: str, new: str) -> None:
        self._path(name).rename(self._path(new))

    def delete(self, name: str) -> None:
        path = self._path(name)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _copy_at(fd: int, part: str, offset: int, size: int) -> None:
    """Copy file ``part`` into ``fd`` at ``offset`` (in the kernel where it can:
    copy_file_range, else by chunks), then remove it."""
    with open(part, "rb") as src:
        done = 0
        with contextlib.suppress(OSError):  # another filesystem, an old kernel: by chunks
            while done < size:
                n = os.copy_file_range(src.fileno(), fd, size - done, done, offset + done)
                if n == 0:
                    break
                done += n
        while done < size:
            chunk = os.pread(src.fileno(), min(8 << 20, size - done), done)
            if not chunk:
                raise OSError(errno.EIO, f"{part}: shorter than its {size} bytes")
            os.pwrite(fd, chunk, offset + done)
            done += len(chunk)
    os.unlink(part)


class HadoopFiles(OutFiles):
    def __init__(self, spark: Any, root: str) -> None:
        self.spark = spark
        self.root = root.rstrip("/")
        self._jvm = spark.sparkContext._jvm
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()
        self._fs, self._path0 = hadoop_fs(spark, self.root)

    def _path(self, *names: str) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(self.uri(*names))

    def uri(self, *names: str) -> str:
        return "/".join([self.root, *(_flat(n) for n in names)])

    def mkdirs(self) -> None:
        self._fs.mkdirs(self._path0)

    def write_text(self, name: str, text: str) -> None:
        stream = self._fs.create(self._path(name), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def children(self, name: str) -> list[str]:
        path = self._path(name)
        if not self._fs.exists(path):
            return []
        return sorted(str(s.getPath().getName()) for s in self._fs.listStatus(path))

    def parts(self, *names: str, suffix: str = ".dmp") -> list[str]:
        found = (
            self._fs.globStatus(
                self._jvm.org.apache.hadoop.fs.Path(f"{self.uri(*names)}/{_PART_GLOB}{suffix}")
            )
            or []
        )
        return sorted((str(s.getPath().toString()) for s in found), key=parts_order)

    def _dump_files(self) -> Any:
        from py4j.java_gateway import JavaClass

        dump_files = self._jvm.dlqhandler.spark.DumpFiles
        if not isinstance(dump_files, JavaClass):
            raise ConfigError(
                f"--output {self.root}: writing to a Hadoop filesystem needs "
                "the drain's JVM code, built with a JDK (javac); install one "
                "or write to a local or mounted directory"
            )
        return dump_files

    def _strings(self, items: list[str]) -> Any:
        array = self.spark.sparkContext._gateway.new_array(self._jvm.java.lang.String, len(items))
        for i, item in enumerate(items):
            array[i] = item
        return array

    def join(self, targets: list[tuple[str, list[str]]]) -> list[int]:
        # The targets' joins run side by side (each a copy inside the JVM, outside the GIL).
        def one(target: tuple[str, list[str]]) -> int:
            name, parts = target
            return int(
                self._dump_files().concat(
                    self._conf, _header(), self._strings(parts), self.uri(name)
                )
            )

        workers = max(1, min(len(targets), os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(one, targets))

    def texts(self, uris: list[str]) -> list[str]:
        if not uris:
            return []
        return list(self._dump_files().texts(self._conf, self._strings(uris)))

    def gather(self, name: str, dest: str) -> int:
        target = self._path(dest)
        self._fs.mkdirs(target)
        found = (
            self._fs.globStatus(
                self._jvm.org.apache.hadoop.fs.Path(f"{self.uri(name)}/{_AUDIT_GLOB}")
            )
            or []
        )
        paths = sorted((s.getPath() for s in found), key=lambda p: str(p.toString()))
        for i, path in enumerate(paths):
            moved = self._jvm.org.apache.hadoop.fs.Path(target, f"{i:06d}-{path.getName()}")
            if not self._fs.rename(path, moved):
                raise ConfigError(f"{path.toString()}: cannot move into {self.uri(dest)}")
        return len(paths)

    def rename(self, name: str, new: str) -> None:
        if not self._fs.rename(self._path(name), self._path(new)):
            raise ConfigError(f"{self.uri(name)}: cannot rename to {self.uri(new)}")

    def delete(self, name: str) -> None:
        self._fs.delete(self._path(name), True)


def output_files(spark: Any, output: Path | str) -> OutFiles:
    """The output directory of a drain: ``LocalFiles`` for a path or ``file:`` URI,
    else ``HadoopFiles`` on the session's Hadoop configuration."""
    text = str(output)
    if is_local(text):
        return LocalFiles(local_path(text))
    return HadoopFiles(spark, text)
