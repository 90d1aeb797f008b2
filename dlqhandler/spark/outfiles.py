"""The drain's output directory, on the local disk or on any Hadoop filesystem.

Spark writes the parts and the audit wherever its URI points; what the driver does
around them (list the part files, join them under a header, write ``summary.json``
and ``manifest.json``, move and delete directories) goes through one of two
:class:`OutFiles`:

* :class:`LocalFiles` (``file:``): Python, with ``copy_file_range`` for the join, and
  every name checked to stay inside the directory (:func:`safe_path`);
* :class:`HadoopFiles` (``hdfs:``, ``s3a:``, ``viewfs:``...: whatever filesystem the
  session's Hadoop configuration knows): the Hadoop FileSystem API through the
  driver's JVM, and the join by ``jvm/DumpFiles.java``, so the bytes never cross into
  Python.

:func:`output_files` picks one from the drain's ``--output``.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any, Protocol

from dlqhandler.errors import ConfigError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.spark.paths import hadoop_fs, is_local, local_path

__all__ = ["HadoopFiles", "LocalFiles", "OutFiles", "output_files", "parts_order", "safe_path"]

_PART_GLOB = "pf=*/ps=*/part-*"  # input file, input split (spark/outputs.py)
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

    def join(self, name: str, parts: list[str]) -> int:
        """The dmpmqmsg header and ``parts`` into file ``name`` (atomically); its size."""
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

    def join(self, name: str, parts: list[str]) -> int:
        final = safe_path(self.base, name)
        tmp = final.with_name(f".{final.name}.tmp")
        first = b""
        if parts:
            with open(parts[0], "rb") as src:
                first = src.read(4096)
        with tmp.open("wb") as out:
            out.write(_header(crlf=_crlf(first)).encode("latin-1"))
            out.flush()
            for part in parts:
                with open(part, "rb") as src:
                    _copy(src, out)
        os.replace(tmp, final)
        return final.stat().st_size

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


def _copy(src: Any, dst: Any) -> None:
    """Copy a whole file in the kernel where it can (copy_file_range), else by chunks."""
    size = os.fstat(src.fileno()).st_size
    try:
        done = 0
        while done < size:
            n = os.copy_file_range(src.fileno(), dst.fileno(), size - done)
            if n == 0:
                break
            done += n
        if done == size:
            return
        src.seek(done)
    except OSError:
        src.seek(0)
        dst.seek(0, os.SEEK_END)
    shutil.copyfileobj(src, dst, 8 << 20)


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

    def join(self, name: str, parts: list[str]) -> int:
        return int(
            self._dump_files().concat(self._conf, _header(), self._strings(parts), self.uri(name))
        )

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
