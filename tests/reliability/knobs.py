"""Size knobs (environment variables) and the figures record of the reliability suite.

Every long test reads its size from a ``DLQ_REL_*`` variable, so the issue's full
figures are one environment away; the defaults keep ``make reliability`` near 15
minutes on 2 cores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

__all__ = ["Figures", "knob"]


def knob(name: str, default: int) -> int:
    """The integer in ``$name``, else ``default``."""
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


@dataclass
class Figures:
    """One test's figures, written to the results file at the end of the session."""

    entry: dict[str, Any]

    def __call__(self, **values: Any) -> None:
        self.entry.update(values)
