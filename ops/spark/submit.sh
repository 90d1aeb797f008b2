#!/usr/bin/env bash
# submit.sh: run the dlqhandler backlog drain (ops/spark/drain.py) with spark-submit.
#
#   ops/spark/submit.sh --rules rules/default.rul --input /shared/dlq/*.dmp --output /shared/drain
#
# Arguments after the options below go to the drain unchanged (the same as
# `dlqhandler drain`, without --master). Relative paths are resolved here, on the driver;
# --input and --output take Hadoop URIs (hdfs:, s3a:, viewfs:; docs/drain.md) or local
# paths, which must then be on a filesystem every node mounts at the same path.
# --output must be new or empty (or give --overwrite).
# Environment:
#
#   SPARK_SUBMIT            the spark-submit to run (default: spark-submit on PATH)
#   SPARK_MASTER            --master (default: spark-defaults.conf's spark.master)
#   SPARK_PROPERTIES_FILE   --properties-file (e.g. a copy of ops/spark/spark-defaults.conf)
#   DLQHANDLER_VENV_ARCHIVE a packed virtualenv (venv-pack / conda-pack .tar.gz) holding
#                           dlqhandler[spark]; shipped with --archives and used as the
#                           executors' and driver's Python (YARN, Kubernetes)
#   DLQHANDLER_SHIP_PACKAGE 1: zip this checkout's dlqhandler package and ship it with
#                           --py-files (its dependencies - pydantic, structlog, ebcdic,
#                           pyarrow - must already be on the executors)
#
# Where the Python comes from, in order of preference:
#   1. dlqhandler[spark] installed in the same virtualenv path on every node: set
#      PYSPARK_PYTHON=/opt/dlqhandler/venv/bin/python (nothing is shipped);
#   2. a packed virtualenv: DLQHANDLER_VENV_ARCHIVE=dlqhandler-venv.tar.gz;
#   3. code only: DLQHANDLER_SHIP_PACKAGE=1 with the dependencies installed cluster-wide.
# The Python version must be the same on the driver and the executors.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
submit="${SPARK_SUBMIT:-spark-submit}"
args=()

if [[ -n "${SPARK_MASTER:-}" ]]; then
    args+=(--master "$SPARK_MASTER")
fi
if [[ -n "${SPARK_PROPERTIES_FILE:-}" ]]; then
    args+=(--properties-file "$SPARK_PROPERTIES_FILE")
fi
if [[ -n "${DLQHANDLER_VENV_ARCHIVE:-}" ]]; then
    args+=(--archives "${DLQHANDLER_VENV_ARCHIVE}#environment"
           --conf spark.pyspark.python=./environment/bin/python)
fi
if [[ "${DLQHANDLER_SHIP_PACKAGE:-0}" == "1" ]]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    python3 - "$root" "$work/dlqhandler.zip" <<'PY'
import sys, zipfile
from pathlib import Path
root, target = Path(sys.argv[1]), sys.argv[2]
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
    for path in sorted((root / "dlqhandler").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            zf.write(path, path.relative_to(root).as_posix())
PY
    args+=(--py-files "$work/dlqhandler.zip")
fi

# Not exec: the EXIT trap removes the shipped zip after spark-submit returns.
"$submit" ${args[@]+"${args[@]}"} "$here/drain.py" "$@"
