"""Build (once, cached) and load the stand-in ``libmqm_r.so``.

``python -m tests.mqi.build`` (``make mqi-standin``) compiles it and prints the
``export`` lines with which IBM's ``ibmmq`` package, in any process, runs on
the embedded queue managers under ``$DLQHANDLER_HOME``::

    eval "$(make -s mqi-standin)"
    dlqhandler run --backend ibmmq SYSTEM.DEAD.LETTER.QUEUE QM1

The library goes to ``build/mqi/<hash of the C source>/`` under the
repository (``build/`` is ignored by git); it is rebuilt only when the
source changes. ``$CC`` picks the compiler (default ``cc``).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "build", "child_env", "load"]

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(__file__).with_name("libmqm_standin.c")
MODULE = "tests.mqi.standin"


def build() -> Path:
    """The compiled stand-in library (built now if the cached one is missing or stale)."""
    code = SOURCE.read_bytes()
    cc = os.environ.get("CC", "cc")
    digest = hashlib.sha256(code + cc.encode()).hexdigest()[:16]
    target = ROOT / "build" / "mqi" / digest / "libmqm_r.so"
    if target.exists():
        return target
    if shutil.which(shlex.split(cc)[0]) is None:
        raise RuntimeError(
            f"no C compiler {cc!r} on PATH: the MQI stand-in needs one "
            "(apt-get install gcc, or set CC)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".libmqm_r.so.{os.getpid()}")
    subprocess.run(
        [
            *shlex.split(cc),
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-shared",
            "-fPIC",
            "-Wl,-soname,libmqm_r.so",
            "-o",
            str(tmp),
            str(SOURCE),
            "-ldl",
            "-lpthread",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    tmp.replace(target)  # atomic: concurrent builders agree
    return target


def child_env(library: Path | None = None) -> dict[str, str]:
    """The variables a child process needs to run ``ibmmq`` on the stand-in."""
    lib = library or build()
    paths = [str(lib.parent), *filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":"))]
    python_path = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
    return {
        "LD_LIBRARY_PATH": ":".join(dict.fromkeys(paths)),
        "MQI_STANDIN_MODULE": MODULE,
        "PYTHONPATH": ":".join(dict.fromkeys(python_path)),
    }


def load() -> object:
    """Load the library into this process (RTLD_GLOBAL, so ``ibmmq.ibmmqc`` binds to it)
    and register the Python MQI; returns :data:`tests.mqi.standin.STANDIN`."""
    ctypes.CDLL(str(build()), mode=ctypes.RTLD_GLOBAL)
    from tests.mqi.standin import STANDIN

    return STANDIN


def main() -> int:
    try:
        env = child_env()
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or ""
        print(f"mqi-standin: {exc}\n{detail}", file=sys.stderr)
        return 1
    for name, value in env.items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
