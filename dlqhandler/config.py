"""Settings, validated once at the edge (pydantic, frozen, extra="forbid").

``Settings`` gathers what every command shares: where the embedded queue
managers live, which queue manager is the default, and how to log. Commands
add their own models next to their code; this module only holds the shared ones.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Settings", "load_settings"]


class Settings(BaseModel):
    """Process-wide settings, from the environment and the command line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    home: Path = Field(description="DLQHANDLER_HOME: root of embedded queue managers")
    default_qmgr: str | None = Field(default=None, description="DLQHANDLER_QMGR")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_json: bool | None = None  # None: JSON when stderr is not a terminal

    @property
    def qmgrs_dir(self) -> Path:
        """``$DLQHANDLER_HOME/qmgrs``: one folder per embedded queue manager."""
        return self.home / "qmgrs"


def load_settings(env: dict[str, str] | None = None, **overrides: object) -> Settings:
    """Settings from ``env`` (default ``os.environ``) with explicit overrides."""
    e = os.environ if env is None else env
    values: dict[str, object] = {
        "home": Path(e.get("DLQHANDLER_HOME") or Path.home() / ".dlqhandler"),
        "default_qmgr": e.get("DLQHANDLER_QMGR") or None,
        "log_level": (e.get("DLQHANDLER_LOG_LEVEL") or "INFO").upper(),
    }
    if "DLQHANDLER_LOG_JSON" in e:
        values["log_json"] = e["DLQHANDLER_LOG_JSON"].lower() in ("1", "true", "yes")
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Settings.model_validate(values)
