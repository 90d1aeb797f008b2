"""Generate a realistic dead-letter backlog as a dmpmqmsg file.

    python samples/generate.py --count 200 --seed 1 --output samples/backlog-small.dmp \
        --created 2024-11-21T08:00:00

is how ``samples/backlog-small.dmp`` was made; the same as
``dlqhandler samples generate ...``. The generator itself is
:mod:`dlqhandler.formats.backlog` (``generate_backlog`` yields Messages,
``write_backlog`` streams them to a file), re-exported here for scripts.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from dlqhandler.cli import main as cli_main
from dlqhandler.formats.backlog import generate_backlog, write_backlog

__all__ = ["generate_backlog", "main", "write_backlog"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dlqhandler samples generate`` with these arguments."""
    return cli_main(["samples", "generate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
