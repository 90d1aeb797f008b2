"""Load: the drain's output directory (a contract other tools read).

* one dmpmqmsg file per target (queue, queue manager), loadable with
  ``dlqhandler qm dmpmqmsg -o`` or IBM's dmpmqmsg; RETRY targets and FWD
  HEADER(NO) targets get the message without its MQDLH (Format, Encoding and
  CodedCharSetId restored), the rest the message byte for byte;
* ``remaining.dmp``: what stays on the DLQ (only without a catch-all);
* ``audit/``: Parquet, one row per message;
* ``summary.json`` and ``manifest.json``.

File names come from queue names, which are untrusted (MQ allows ``/`` and
``%``): :func:`target_file_name` maps them to a flat, escaped name, and every
path is checked to stay inside the output directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dlqhandler.errors import ConfigError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.mq.message import Message
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.mq.mqmd import MQMD
from dlqhandler.spark.extract import MD_FIELDS

__all__ = [
    "REMAINING_FILE",
    "WRITE_RESULT_SCHEMA",
    "assemble",
    "row_message",
    "safe_path",
    "target_file_name",
    "write_partition",
]

REMAINING_FILE = "remaining.dmp"
WRITE_RESULT_SCHEMA = ("out_q string, out_qm string, file string, part string, file_index int,"
                       " split_start long, messages long, bytes long")
_SAFE = re.compile(r"[A-Za-z0-9._-]")


def _result_arrow() -> Any:
    import pyarrow as pa

    return pa.schema([("out_q", pa.string()), ("out_qm", pa.string()), ("file", pa.string()),
                      ("part", pa.string()), ("file_index", pa.int32()),
                      ("split_start", pa.int64()), ("messages", pa.int64()),
                      ("bytes", pa.int64())])


def _escape(name: str) -> str:
    return "".join(ch if _SAFE.fullmatch(ch) else f"~{ord(ch):02X}" for ch in name)


def target_file_name(queue: str, qmgr: str) -> str:
    """``q-<QUEUE>@<QMGR>.dmp`` with every unsafe character as ``~XX``.

    The ``q-`` prefix keeps names like ``..`` or ``.hidden`` harmless; ``/``,
    ``%``, control characters and anything else outside ``[A-Za-z0-9._-]`` are
    escaped, so the result is always one plain file name.
    """
    return f"q-{_escape(queue)}@{_escape(qmgr) if qmgr else 'LOCAL'}.dmp"


def safe_path(directory: Path, name: str) -> Path:
    """``directory/name``, refusing anything that would resolve outside it."""
    base = directory.resolve()
    path = (base / name).resolve()
    if path.parent != base:
        raise ConfigError(f"refusing output file name {name!r}: outside {base}")
    return path


def row_message(row: dict[str, Any]) -> Message:
    """Rebuild the message to write from a classified row."""
    md = MQMD(**{name: row[f"md_{name}"] for name, _kind in MD_FIELDS})
    body: bytes = row["body"]
    if row.get("strip_header"):
        md = md.replace(format=row["dlh_format"], encoding=row["dlh_encoding"],
                        coded_char_set_id=row["dlh_coded_char_set_id"])
        body = body[MQDLH_LENGTH_1:]
    return Message(md, body)


def write_partition(parts_dir: str) -> Any:
    """mapInArrow function writing a partition's rows as part files, no shuffle.

    Rows arrive sorted by (target, file, split, seq); each (target, input split)
    run becomes one part file (messages only, no header) named by the task attempt,
    so a retried task never mixes with a failed one. The rows it yields name the
    parts; :func:`assemble` concatenates them per target in input order.
    """

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        directory = Path(parts_dir)
        directory.mkdir(parents=True, exist_ok=True)
        try:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            attempt = f"{ctx.partitionId()}-{ctx.attemptNumber()}" if ctx else "0"
        except ImportError:  # pragma: no cover
            attempt = "0"
        current: tuple[str, str, int, int] | None = None
        final_name = ""
        writer: DumpWriter | None = None
        stream: Any = None
        results: list[dict[str, Any]] = []

        def close() -> None:
            nonlocal writer, stream
            if writer is None or stream is None or current is None:
                return
            writer.close()
            stream.close()
            results.append({"out_q": current[0], "out_qm": current[1], "file": final_name,
                            "part": part_name, "file_index": current[2],
                            "split_start": current[3], "messages": writer.count,
                            "bytes": writer.bytes_written})
            writer, stream = None, None

        part_name = ""
        for batch in batches:
            for row in batch.to_pylist():
                key = (row["out_q"] or "", row["out_qm"] or "", row["file_index"],
                       row["split_start"])
                if key != current:
                    close()
                    current = key
                    final_name = (REMAINING_FILE if row["disposition"] == "REMAIN"
                                  else target_file_name(key[0], key[1]))
                    part_name = f"{attempt}-{len(results)}.part"
                    stream = safe_path(directory, part_name).open("wb")
                    writer = DumpWriter(stream, header=False)
                assert writer is not None
                writer.write(row_message(row))
        close()
        if results:
            yield pa.RecordBatch.from_pylist(results, schema=_result_arrow())

    return run


def assemble(out_dir: Path, parts_dir: Path, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Concatenate the part files into one dmpmqmsg file per target (header once,
    parts in input order), atomically; returns ``out_q, out_qm, file, messages,
    bytes`` per file, sorted by target. Removes ``parts_dir``."""
    import shutil

    by_file: dict[str, list[dict[str, Any]]] = {}
    for part in parts:
        by_file.setdefault(part["file"], []).append(part)
    written: list[dict[str, Any]] = []
    for name, group in by_file.items():
        group.sort(key=lambda r: (r["file_index"], r["split_start"]))
        final = safe_path(out_dir, name)
        tmp = final.with_name(f".{final.name}.tmp")
        with tmp.open("wb") as out:
            DumpWriter(out).close()  # the header
            for part in group:
                with safe_path(parts_dir, part["part"]).open("rb") as src:
                    shutil.copyfileobj(src, out, 8 << 20)
        os.replace(tmp, final)
        written.append({"out_q": group[0]["out_q"], "out_qm": group[0]["out_qm"],
                        "file": name, "messages": sum(r["messages"] for r in group),
                        "bytes": final.stat().st_size})
    shutil.rmtree(parts_dir, ignore_errors=True)
    return sorted(written, key=lambda r: (r["out_q"], r["out_qm"]))
