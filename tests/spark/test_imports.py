"""What a drain and a report cost before their first job: the modules they import and
the queries they plan.

PySpark's ``functions.lit`` and its numpy input converters import ``pyspark.testing.utils``,
which imports pandas and pyarrow to check their versions: 0.2 s of every run. The drain's
and the report's expressions are SQL text (dlqhandler.spark.sql), and the converters ask
``sys.modules`` instead (dlqhandler.spark.session), so neither command imports either
library; ``--apply`` does, for its Arrow batches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.required import require_java

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]

# A process that runs the command given and says which of the costly modules it imported.
_PROBE = """
import sys
from dlqhandler.cli import main
code = main(sys.argv[1:])
costly = ("pandas", "pyarrow", "numpy", "pyspark.testing.utils")
print("imported:", ",".join(m for m in costly if m in sys.modules) or "none")
raise SystemExit(code)
"""


@pytest.mark.timeout(900)
def test_drain_and_report_import_neither_pandas_nor_pyarrow(tmp_path: Path) -> None:
    """``dlqhandler drain`` and ``dlqhandler report --rules --compare`` run to the end
    (exit 0, their outputs written) without importing pandas, pyarrow, numpy or
    ``pyspark.testing.utils``."""
    require_java()
    from dlqhandler.formats.backlog import write_backlog

    dump = tmp_path / "in.dmp"
    with dump.open("wb") as stream:
        write_backlog(stream, 200, seed=3)
    rules = ROOT / "rules"
    commands = {
        "drain": ["drain", "--rules", str(rules / "demo.rul"), "--output", str(tmp_path / "d")],
        "report": [
            *("report", "--rules", str(rules / "demo.rul")),
            *("--compare", str(rules / "default.rul"), "--output", str(tmp_path / "r")),
        ],
    }
    for name, argv in commands.items():
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, *argv, "--input", str(dump), "--master", "local[1]"],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, (name, done.stderr[-2000:])
        assert done.stdout.strip().splitlines()[-1] == "imported: none", (name, done.stdout)
    assert (tmp_path / "d" / "summary.json").is_file()
    assert (tmp_path / "r" / "report.json").is_file()
