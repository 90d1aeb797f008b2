"""Extract: dmpmqmsg files -> a DataFrame of decoded messages (one row each).

Files are cut into byte-range splits (``split_bytes``); every split is read by
one task with :func:`dlqhandler.formats.dmpmqmsg.read_dump` (``start``/``end``
make consecutive splits partition a file at message boundaries) and decoded
into Arrow record batches with ``mapInArrow`` - no per-row Python UDF. Column
names are ``md_<field>`` for the MQMD and ``dlh_<field>`` for the MQDLH, the
names the classifier derives from the rules IR.
"""

from __future__ import annotations

import dataclasses
import glob
import operator
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dlqhandler.errors import ConfigError, DLQHandlerError, MalformedMessageError
from dlqhandler.formats.dmpmqmsg import read_dump
from dlqhandler.mq.message import Message, decode_dead_letter
from dlqhandler.mq.mqdlh import MQDLH
from dlqhandler.mq.mqmd import MQMD

__all__ = [
    "DLH_FIELDS",
    "MD_FIELDS",
    "MESSAGE_SCHEMA",
    "Split",
    "expand_inputs",
    "plan_splits",
    "read_messages",
]

_SQL_TYPE = {bytes: "binary", str: "string", int: "int"}
MD_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQMD))
DLH_FIELDS: tuple[tuple[str, str], ...] = tuple(
    (f.name, _SQL_TYPE[type(f.default)]) for f in dataclasses.fields(MQDLH)
    if f.name != "version")

MESSAGE_SCHEMA = ", ".join(
    ["file_index int", "split_start long", "seq int", "error string"]
    + [f"md_{name} {kind}" for name, kind in MD_FIELDS]
    + ["body binary", "has_dlh boolean", "dlh_error string"]
    + [f"dlh_{name} {kind}" for name, kind in DLH_FIELDS])


@dataclass(frozen=True, slots=True)
class Split:
    """A byte range of one input file, read by one task."""

    file_index: int
    path: str
    start: int
    end: int


def expand_inputs(inputs: list[str]) -> list[Path]:
    """Files from paths, directories (their ``*.dmp`` files) and globs, sorted."""
    found: list[Path] = []
    for item in inputs:
        matches = sorted(glob.glob(item)) if any(c in item for c in "*?[") else [item]
        if not matches:
            raise ConfigError(f"--input {item}: no file matches")
        for m in matches:
            p = Path(m)
            if p.is_dir():
                found.extend(sorted(x for x in p.iterdir() if x.is_file() and
                                    x.suffix in (".dmp", ".txt", ".qload")))
            elif p.is_file():
                found.append(p)
            else:
                raise ConfigError(f"--input {m}: not a file or directory")
    if not found:
        raise ConfigError("no input files")
    return found


def plan_splits(files: list[Path], split_bytes: int = 8 << 20) -> list[Split]:
    """Cut each file into ranges of about ``split_bytes`` bytes."""
    splits: list[Split] = []
    for index, path in enumerate(files):
        size = os.path.getsize(path)
        start = 0
        while True:
            end = min(size, start + split_bytes)
            splits.append(Split(index, str(path), start, end if end < size else size + 1))
            if end >= size:
                break
            start = end
    return splits


class _Columns:
    """Rows of one Arrow record batch, kept as tuples and transposed once per batch.

    Every MQMD and MQDLH field is read with one :func:`operator.attrgetter` call (a
    tuple built in C) and the columns come from one ``zip(*rows)``: no per-field
    Python work per message.
    """

    def __init__(self) -> None:
        self.meta: list[tuple[Any, ...]] = []  # file_index, split_start, seq, error
        self.md: list[tuple[Any, ...]] = []
        self.body: list[bytes | None] = []
        self.dlh_state: list[tuple[bool | None, str | None]] = []  # has_dlh, dlh_error
        self.dlh: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.meta)

    def add_error(self, split: Split, seq: int, error: str) -> None:
        self.meta.append((split.file_index, split.start, seq, error))
        self.md.append(_NO_MD)
        self.body.append(None)
        self.dlh_state.append((None, None))
        self.dlh.append(_NO_DLH)

    def add(self, split: Split, seq: int, raw: Message) -> None:
        md = raw.md
        self.meta.append((split.file_index, split.start, seq, None))
        self.md.append(_md_values(md))
        self.body.append(raw.body)
        try:
            dlh = decode_dead_letter(md, raw.body).dlh
        except MalformedMessageError as exc:
            self.dlh_state.append((False, str(exc)))
            self.dlh.append(_NO_DLH)
            return
        self.dlh_state.append((True, None))
        self.dlh.append(_dlh_values(dlh))

    def batch(self, schema: Any) -> Any:
        import pyarrow as pa

        columns: list[Any] = [*zip(*self.meta, strict=True), *zip(*self.md, strict=True),
                              self.body, *zip(*self.dlh_state, strict=True),
                              *zip(*self.dlh, strict=True)]
        return pa.RecordBatch.from_arrays(
            [pa.array(values, type=f.type) for values, f in zip(columns, schema, strict=True)],
            schema=schema)


_NAMES = [part.split(" ")[0] for part in MESSAGE_SCHEMA.split(", ")]
_MD_NAMES = [name for name, _kind in MD_FIELDS]
_DLH_NAMES = [name for name, _kind in DLH_FIELDS]
_md_values = operator.attrgetter(*_MD_NAMES)
_dlh_values = operator.attrgetter(*_DLH_NAMES)
_NO_MD: tuple[None, ...] = (None,) * len(_MD_NAMES)
_NO_DLH: tuple[None, ...] = (None,) * len(_DLH_NAMES)
# _Columns.batch relies on MESSAGE_SCHEMA's order: meta, md_*, body, has_dlh,
# dlh_error, dlh_*.


def decode_splits_to_batches(batches: Iterator[Any], batch_rows: int = 4096) -> Iterator[Any]:
    """mapInArrow function: split rows in, decoded message record batches out."""
    schema = _arrow_schema()
    for batch in batches:
        for item in batch.to_pylist():
            split = Split(item["file_index"], item["path"], item["start"], item["end"])
            cols = _Columns()
            seq = 0
            try:
                for raw in read_dump(split.path, start=split.start, end=split.end):
                    cols.add(split, seq, raw)
                    seq += 1
                    if len(cols) >= batch_rows:
                        yield cols.batch(schema)
                        cols = _Columns()
            except DLQHandlerError as exc:
                # A damaged file: a row carrying the error, so the job fails with the cause.
                cols.add_error(split, seq, str(exc))
            if len(cols):
                yield cols.batch(schema)


def _arrow_schema() -> Any:
    import pyarrow as pa

    kinds = {"int": pa.int32(), "long": pa.int64(), "string": pa.string(),
             "binary": pa.binary(), "boolean": pa.bool_()}
    fields = []
    for part in MESSAGE_SCHEMA.split(", "):
        name, kind = part.split(" ")
        fields.append(pa.field(name, kinds[kind]))
    return pa.schema(fields)


def read_messages(spark: Any, files: list[Path], *, split_bytes: int = 8 << 20) -> Any:
    """The messages of ``files`` as a DataFrame with :data:`MESSAGE_SCHEMA`."""
    splits = plan_splits(files, split_bytes)
    rows = [dataclasses.astuple(s) for s in splits]
    frame = spark.createDataFrame(rows, "file_index int, path string, start long, end long")
    frame = frame.repartition(max(1, len(splits)))
    return frame.mapInArrow(decode_splits_to_batches, MESSAGE_SCHEMA)
