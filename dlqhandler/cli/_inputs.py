"""What ``drain`` and ``report`` read, from the command line: the one set of input files
(:mod:`dlqhandler.spark.inputs`), its notes for the user, and the list of everything a
run reads that its output must never hold."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from dlqhandler.spark.inputs import InputSet, resolve_inputs

__all__ = ["input_files", "print_input_notes", "reads_of"]


def input_files(items: Sequence[str]) -> InputSet:
    """Every --input resolved on the driver (:func:`~dlqhandler.spark.inputs.resolve_inputs`):
    local files expanded (directories, globs), resolved through symlinks, each once, and
    checked now; Hadoop URIs (hdfs:, s3a:, viewfs:...) left to list once Spark runs."""
    return resolve_inputs(list(items))


def print_input_notes(prog: str, inputs: InputSet) -> None:
    """Name on stderr every file read once though given twice, and every file a
    directory input left out (the summary says so again)."""
    for line in inputs.notes():
        print(f"{prog}: note: {line}", file=sys.stderr)


def reads_of(inputs: InputSet, **tables: Path | None) -> list[tuple[str, str]]:
    """What a run reads, for the output check: inputs and rules tables by option."""
    reads = [("--input", str(x)) for x in (*inputs.named, *inputs.files, *inputs.pending)]
    return reads + [(f"--{k}", str(v)) for k, v in tables.items() if v is not None]
