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
    "row_message",
    "safe_path",
    "target_file_name",
    "write_partition",
]

REMAINING_FILE = "remaining.dmp"
WRITE_RESULT_SCHEMA = "out_q string, out_qm string, file string, messages long, bytes long"
_SAFE = re.compile(r"[A-Za-z0-9._-]")


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


def write_partition(out_dir: str) -> Any:
    """mapInArrow function writing each target's rows (sorted, one partition per
    target) to its file, atomically (temporary name, then rename)."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        directory = Path(out_dir)
        try:
            from pyspark import TaskContext

            ctx = TaskContext.get()
            attempt = f"{ctx.partitionId()}-{ctx.attemptNumber()}" if ctx else "0"
        except ImportError:  # pragma: no cover
            attempt = "0"
        current: tuple[str, str] | None = None
        writer: DumpWriter | None = None
        stream: Any = None
        tmp: Path | None = None
        final: Path | None = None
        results: list[dict[str, Any]] = []

        def close() -> None:
            nonlocal writer, stream
            if writer is None or stream is None or tmp is None or final is None:
                return
            writer.close()
            stream.close()
            os.replace(tmp, final)
            assert current is not None
            results.append({"out_q": current[0], "out_qm": current[1], "file": final.name,
                            "messages": writer.count, "bytes": final.stat().st_size})
            writer, stream = None, None

        for batch in batches:
            for row in batch.to_pylist():
                key = (row["out_q"] or "", row["out_qm"] or "")
                if key != current:
                    close()
                    current = key
                    name = (REMAINING_FILE if row["disposition"] == "REMAIN"
                            else target_file_name(*key))
                    final = safe_path(directory, name)
                    tmp = final.with_name(f".{final.name}.{attempt}.tmp")
                    stream = tmp.open("wb")
                    writer = DumpWriter(stream)
                assert writer is not None
                writer.write(row_message(row))
        close()
        if results:
            yield pa.RecordBatch.from_pylist(results, schema=pa.schema([
                ("out_q", pa.string()), ("out_qm", pa.string()), ("file", pa.string()),
                ("messages", pa.int64()), ("bytes", pa.int64())]))

    return run
