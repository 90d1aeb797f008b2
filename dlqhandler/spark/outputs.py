"""Load: the drain's output directory (a contract other tools read).

* one dmpmqmsg file per target (queue, queue manager), loadable with
  ``dlqhandler qm dmpmqmsg -o`` or IBM's dmpmqmsg; RETRY targets and FWD
  HEADER(NO) targets get the message without its MQDLH (Format, Encoding and
  CodedCharSetId restored), the rest the message byte for byte;
* ``remaining.dmp``: what stays on the DLQ (only without a catch-all); a
  malformed record stays too but is not written anywhere (its reason is in the
  audit, it is counted as ``malformed``; the input file still holds it);
* ``audit/``: Parquet, one row per message;
* ``summary.json`` and ``manifest.json``.

File names come from queue names, which are untrusted (MQ allows ``/`` and
``%``): :func:`target_file_name` maps them to a flat, escaped name, and every
path is checked to stay inside the output directory.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from dlqhandler.errors import ConfigError
from dlqhandler.formats.dmpmqmsg import DumpWriter
from dlqhandler.mq.mqdlh import MQDLH_LENGTH_1
from dlqhandler.spark.extract import MD_FIELDS
from dlqhandler.spark.format import record_text

__all__ = [
    "REMAINING_FILE",
    "safe_path",
    "target_file_name",
    "write_outputs",
]

REMAINING_FILE = "remaining.dmp"
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




def _output_columns(frame: Any, targets: dict[tuple[str, str], int]) -> Any:
    """``t`` (0: remaining.dmp, else the target's number), the input order and the
    record text (MQDLH removed and Format/Encoding/CCSID restored for RETRY and
    FWD HEADER(NO))."""
    from pyspark.sql import functions as F

    strip = F.coalesce(F.col("strip_header"), F.lit(False))
    md = {name: F.col(f"md_{name}") for name, _kind in MD_FIELDS}
    for name in ("format", "encoding", "coded_char_set_id"):
        md[name] = F.when(strip, F.col(f"dlh_{name}")).otherwise(md[name])
    body = F.when(strip, F.substring("body", MQDLH_LENGTH_1 + 1, 1 << 30)).otherwise(
        F.col("body"))
    t = F.lit(0)
    if targets:
        keys = F.create_map(*[x for (q, qm), i in targets.items()
                              for x in (F.lit(f"{q}\x00{qm}"), F.lit(i))])
        t = F.when(F.col("disposition") == "REMAIN", t).otherwise(
            F.element_at(keys, F.concat_ws("\x00", "out_q", F.coalesce("out_qm", F.lit("")))))
    return frame.select(t.alias("t"), "file_index", "split_start", "seq",
                        record_text(md, body).alias("value"))


def write_outputs(frame: Any, out_dir: Path, targets: list[tuple[str, str]], *,
                  partitions: int | None = None) -> list[dict[str, Any]]:
    """Write the kept rows of a classified frame as one dmpmqmsg file per target.

    Spark formats every record (:func:`dlqhandler.spark.format.record_text`) and its
    text writer writes them, partitioned by target and input split, in input order
    within each split (sorted within the task; no shuffle). The driver then joins,
    per target, a header and the part files in input order (file, split) and
    removes the parts; it never sees a message. Malformed rows (``error``) and
    DISCARDs are not written. Returns ``out_q, out_qm, file, messages, bytes`` per
    file (``messages`` from the caller's counts), sorted by target.
    """
    from pyspark.sql import functions as F

    numbers = {target: i + 1 for i, target in enumerate(sorted(set(targets)))}
    keep = frame.filter((F.col("disposition") != "DISCARD") & F.col("error").isNull())
    if partitions:
        keep = keep.coalesce(partitions)
    parts_dir = out_dir / f".parts-{uuid.uuid4().hex}"
    (_output_columns(keep, numbers)
     .sortWithinPartitions("t", "file_index", "split_start", "seq").drop("seq")
     .write.partitionBy("t", "file_index", "split_start").text(str(parts_dir)))
    names = {0: (REMAINING_FILE, "", "")}
    for (q, qm), i in numbers.items():
        names[i] = (target_file_name(q, qm), q, qm)
    written = []
    for t_dir in sorted(parts_dir.glob("t=*")):
        name, q, qm = names[int(t_dir.name[2:])]
        final = safe_path(out_dir, name)
        _assemble(final, _parts_in_order(t_dir))
        written.append({"out_q": q if name != REMAINING_FILE else None,
                        "out_qm": qm if name != REMAINING_FILE else None,
                        "file": name, "bytes": final.stat().st_size})
    shutil.rmtree(parts_dir, ignore_errors=True)
    return sorted(written, key=lambda r: (r["out_q"] or "", r["out_qm"] or ""))


def _parts_in_order(t_dir: Path) -> list[Path]:
    """The part files of one target: by input file, split offset, then name."""
    def key(p: Path) -> tuple[int, int, str]:
        f_dir, s_dir = p.parent.parent.name, p.parent.name
        return int(f_dir.split("=", 1)[1]), int(s_dir.split("=", 1)[1]), p.name

    return sorted((p for p in t_dir.glob("file_index=*/split_start=*/part-*")), key=key)


def _assemble(final: Path, parts: list[Path]) -> None:
    """Header + parts -> ``final``, atomically (a temporary name, then a rename)."""
    tmp = final.with_name(f".{final.name}.tmp")
    with tmp.open("wb") as out:
        DumpWriter(out).close()  # the header
        out.flush()
        for part in parts:
            with part.open("rb") as src:
                _copy(src, out)
    os.replace(tmp, final)


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
