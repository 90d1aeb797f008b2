"""What a drain or report reads: ``--input`` items made one set of files.

Every item (a file, a directory, a glob; a path or a URI) is resolved on the
driver, local files through symlinks (``os.path.realpath``), Hadoop files to the
fully qualified URI their filesystem gives them, and the set keeps each file
once, in the order first given: a file named twice (``in/`` and ``in/*.dmp``,
``a.dmp`` and a symlink to it, ``a.dmp`` and ``file:///.../a.dmp``) is read once,
and :attr:`InputSet.repeated` says which were.

The directory rule: a directory input reads every regular file directly in it
whose first line is a dmpmqmsg header (``* DMPMQMSG`` or ``* QLOAD``, what
``dmpmqmsg`` writes); the name and its suffix play no part (``a.dmp``,
``B.DMP``, ``c.dmp.1``). The rest is left out and named with the reason
(:attr:`InputSet.left_out`): hidden files (``.name``: partial copies, editor
files), subdirectories (not descended), empty files and files that are not
dumps (a ``readme.txt``). A file named on the command line or matched by a
glob is the user's choice: one that is not a dump is an error, not left out.

No pyspark import here: local inputs are checked before Spark starts; Hadoop
inputs are listed once a session exists (:meth:`InputSet.with_hadoop`).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, replace
from typing import Any

from dlqhandler.errors import ConfigError, DumpFormatError
from dlqhandler.formats._attributes import HEADER_PREFIXES
from dlqhandler.formats.dmpmqmsg import dump_origin
from dlqhandler.formats.dump_reader import ORIGIN_BYTES, origin_of_head
from dlqhandler.spark.files import (
    hadoop_fs,
    hadoop_hint,
    is_local,
    java_message,
    local_path,
    resolve_uri,
)

__all__ = ["InputSet", "dumps_origin", "hadoop_head", "header_problem", "resolve_inputs"]

_HEAD = 4096  # bytes enough to see past leading blank lines to the header


def header_problem(head: bytes) -> str | None:
    """Why a file starting with ``head`` is not a dmpmqmsg file, or None."""
    if not head:
        return "empty file: expected a '* DMPMQMSG' or '* QLOAD' header line"
    first = head.lstrip(b"\r\n")
    if first.startswith(HEADER_PREFIXES):
        return None
    shown = first.split(b"\n", 1)[0][:24].decode("latin-1")
    hint = (
        " (amqsbcg browse output is not supported; unload the queue with 'dmpmqmsg "
        "-i QUEUE -f FILE' instead)"
        if first.startswith(b"AMQSBCG0")
        else " (files written with -dH have no header)"
    )
    return (
        f"not a dmpmqmsg file: expected a '* DMPMQMSG' or '* QLOAD' header line, "
        f"found {shown!r}{hint}"
    )


@dataclass(frozen=True, slots=True)
class InputSet:
    """The files a run reads, each once, and what the user named on the way.

    ``files``: local absolute real paths or qualified Hadoop URIs, in order;
    ``named``: each item as resolved (files and directories: what the output must
    not hold); ``repeated``: ``(as given, the file it is)`` for each file given more
    than once; ``left_out``: ``(file, why)`` for each file a directory input did not
    read; ``pending``: Hadoop items still to list (before Spark starts).
    """

    files: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    repeated: tuple[tuple[str, str], ...] = ()
    left_out: tuple[tuple[str, str], ...] = ()
    pending: tuple[str, ...] = ()

    def with_hadoop(self, spark: Any) -> InputSet:
        """List the Hadoop items through ``spark``'s Hadoop configuration."""
        if not self.pending:
            return self
        acc = _Acc(list(self.files), list(self.named), list(self.repeated), list(self.left_out))
        for item in self.pending:
            _add_hadoop(acc, spark, item)
        return replace(acc.result(), pending=())

    def notes(self) -> list[str]:
        """One line per file read once though given again, and per file left out."""
        lines = [
            f"{given}: given more than once, read once (as {file})" for given, file in self.repeated
        ]
        lines += [f"{file}: left out of the directory input ({why})" for file, why in self.left_out]
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "files": len(self.files),
            "repeated": [{"given": g, "file": f} for g, f in self.repeated],
            "left_out": [{"file": f, "reason": w} for f, w in self.left_out],
        }


@dataclass
class _Acc:
    files: list[str]
    named: list[str]
    repeated: list[tuple[str, str]]
    left_out: list[tuple[str, str]]

    def add(self, given: str, file: str) -> None:
        if file in self.files:
            self.repeated.append((given, file))
        else:
            self.files.append(file)

    def result(self) -> InputSet:
        return InputSet(
            tuple(self.files),
            tuple(dict.fromkeys(self.named)),
            tuple(self.repeated),
            tuple(self.left_out),
        )


def dumps_origin(
    files: tuple[str, ...] | list[str], spark: Any = None
) -> tuple[tuple[str, str] | None, str | None]:
    """The queue manager and queue the dump ``files`` were unloaded from, as their
    ``* Qmgr``/``* Queue`` header lines name them
    (:func:`~dlqhandler.formats.dmpmqmsg.dump_origin`), when every file names the same
    one; else None, and a note when they name different ones or only some name one:
    the input queue is then unknown. A Hadoop file's header is read through ``spark``
    (without a session it names none)."""
    origins = [
        dump_origin(local_path(f))
        if is_local(f)
        else origin_of_head(hadoop_head(spark, f))
        if spark is not None
        else None
        for f in files
    ]
    known = sorted({o for o in origins if o is not None})
    if not known:
        return None, None
    if len(known) == 1 and None not in origins:
        return known[0], None
    named = ", ".join(f"{q} on {m or 'a blank queue manager'}" for m, q in known[:4])
    some = "" if None not in origins else "; some name no queue"
    return None, (
        f"the dumps come from different queues ({named}{some}): the input queue is unknown"
        " and no RETRY or FWD to it is refused as a loop; name the dead-letter queue with"
        " INPUTQ (and INPUTQM) in the table, or give each queue's dumps a run of its own"
    )


def resolve_inputs(items: list[str] | tuple[str, ...], spark: Any = None) -> InputSet:
    """The set of files ``items`` name. Local items are looked at now (missing,
    unreadable and non-dump files are :class:`ConfigError`/:class:`DumpFormatError`);
    Hadoop items are listed through ``spark``, or left pending without one."""
    acc = _Acc([], [], [], [])
    pending: list[str] = []
    for item in items:
        uri = resolve_uri(str(item))
        if not is_local(uri):
            if spark is None:
                pending.append(uri)
            else:
                _add_hadoop(acc, spark, uri)
            continue
        _add_local(acc, item, str(local_path(uri)))
    found = acc.result()
    if not found.files and not pending:
        raise ConfigError(
            "no input files"
            + (
                ": the directory inputs hold no dmpmqmsg file ("
                + "; ".join(f"{f}: {w}" for f, w in found.left_out[:5])
                + ")"
                if found.left_out
                else ""
            )
        )
    return replace(found, pending=tuple(pending))


def _head(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(_HEAD)


def _add_local(acc: _Acc, item: str, path: str) -> None:
    matches = sorted(glob.glob(path)) if any(c in path for c in "*?[") else [path]
    if not matches:
        raise ConfigError(f"--input {item}: no file matches")
    for m in matches:
        real = os.path.realpath(m)
        if os.path.isdir(real):
            acc.named.append(real)
            _add_directory(acc, m, real)
        elif os.path.isfile(real):
            acc.named.append(real)
            _check_file(m, real)
            acc.add(m, real)
        else:
            raise ConfigError(f"--input {m}: not a file or directory")


def _check_file(given: str, real: str) -> None:
    try:
        head = _head(real)
    except OSError as exc:
        raise ConfigError(
            f"--input {given}: not readable ({exc.strerror}; check its permissions)"
        ) from exc
    problem = header_problem(head)
    if problem:
        raise DumpFormatError(problem, path=given, line=1)


def _add_directory(acc: _Acc, given: str, real: str) -> None:
    try:
        entries = sorted(os.scandir(real), key=lambda e: e.name)
    except OSError as exc:
        raise ConfigError(f"--input {given}: cannot list the directory ({exc.strerror})") from exc
    for entry in entries:
        shown = os.path.join(given, entry.name)
        why = _left_out_why(entry)
        if why:
            acc.left_out.append((shown, why))
        else:
            acc.add(shown, os.path.realpath(entry.path))


def _left_out_why(entry: os.DirEntry[str]) -> str | None:
    if entry.name.startswith("."):
        return "a hidden file"
    if entry.is_dir():
        return "a subdirectory (directory inputs are not descended)"
    if not entry.is_file():
        return "not a regular file"
    try:
        head = _head(entry.path)
    except OSError as exc:  # it may be a dump: not for the run to guess
        raise ConfigError(
            f"--input {entry.path}: not readable ({exc.strerror}; check its permissions)"
        ) from exc
    return _not_a_dump(head)


def _not_a_dump(head: bytes) -> str | None:
    problem = header_problem(head)
    if problem is None:
        return None
    return problem.split(":")[0] + " (no '* DMPMQMSG' or '* QLOAD' header line)"


def _add_hadoop(acc: _Acc, spark: Any, item: str) -> None:
    try:
        fs, path = hadoop_fs(spark, item)
    except ConfigError as exc:
        raise ConfigError(f"--input {exc}") from exc
    try:
        statuses = sorted(fs.globStatus(path) or [], key=lambda s: str(s.getPath().toString()))
        if not statuses:
            raise ConfigError(f"--input {item}: no file matches")
        for status in statuses:
            uri = str(status.getPath().toString())
            acc.named.append(uri)
            if not status.isDirectory():
                acc.add(uri, uri)
                continue
            for child in sorted(
                fs.listStatus(status.getPath()), key=lambda s: str(s.getPath().toString())
            ):
                name = str(child.getPath().getName())
                curi = str(child.getPath().toString())
                why = (
                    "a hidden file"
                    if name.startswith(".")
                    else "a subdirectory (directory inputs are not descended)"
                    if child.isDirectory()
                    else _hadoop_head_why(spark, fs, child)
                )
                if why:
                    acc.left_out.append((curi, why))
                else:
                    acc.add(curi, curi)
    except ConfigError:
        raise
    except Exception as exc:
        raise ConfigError(
            f"--input {item}: cannot list it ({java_message(exc)}){hadoop_hint(item, exc)}"
        ) from exc


def hadoop_head(spark: Any, uri: str) -> bytes:
    """The first bytes of the Hadoop file ``uri`` (enough for its dmpmqmsg header and
    the ``* Qmgr``/``* Queue`` lines), read through ``spark``'s Hadoop configuration."""
    fs, path = hadoop_fs(spark, uri)
    return _read_head(spark, fs, path, int(fs.getFileStatus(path).getLen()))


def _read_head(spark: Any, fs: Any, path: Any, size: int) -> bytes:
    if size == 0:
        return b""
    stream = fs.open(path)
    try:
        return bytes(
            spark.sparkContext._jvm.org.apache.commons.io.IOUtils.toByteArray(
                stream, min(size, max(_HEAD, ORIGIN_BYTES))
            )
        )
    finally:
        stream.close()


def _hadoop_head_why(spark: Any, fs: Any, status: Any) -> str | None:
    return _not_a_dump(_read_head(spark, fs, status.getPath(), int(status.getLen())))
