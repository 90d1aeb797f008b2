"""The embedded queue managers under a home folder: create, delete, list.

``create_qmgr`` is ``crtmqm``: it makes the folder and database and defines
the default objects: ``SYSTEM.DEAD.LETTER.QUEUE`` (the DEADQ unless another
is named, which is then defined too) and ``SYSTEM.DEFAULT.INITIATION.QUEUE``.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from dlqhandler.errors import ConfigError
from dlqhandler.qmgr.embedded.admin import Admin, valid_name
from dlqhandler.qmgr.embedded.objects import QMGR_ATTRS, defaults
from dlqhandler.qmgr.embedded.recovery import connection_alive
from dlqhandler.qmgr.embedded.schema import initialise
from dlqhandler.qmgr.embedded.store import QMgrPaths, Store, check_home

__all__ = [
    "DEFAULT_DEADQ",
    "INITIATION_QUEUE",
    "QMgrStatus",
    "create_qmgr",
    "delete_qmgr",
    "list_qmgrs",
]

DEFAULT_DEADQ = "SYSTEM.DEAD.LETTER.QUEUE"
INITIATION_QUEUE = "SYSTEM.DEFAULT.INITIATION.QUEUE"


@dataclass(frozen=True, slots=True)
class QMgrStatus:
    """One queue manager as ``dspmq`` lists it."""

    name: str
    path: Path
    connections: int
    dead: int = 0  # connections whose process ended without disconnecting, not recovered

    @property
    def status(self) -> str:
        """dspmq's STATUS: Running while connected; Ended unexpectedly when a connection
        died and its work is not yet recovered (the next connection recovers it)."""
        if self.connections:
            return "Running"
        return "Ended unexpectedly" if self.dead else "Ended normally"


def create_qmgr(home: Path, name: str, *, deadq: str = DEFAULT_DEADQ) -> QMgrPaths:
    """Create queue manager ``name`` under ``home/qmgrs`` (ConfigError if it exists)."""
    paths = QMgrPaths.of(home / "qmgrs", name)
    if not valid_name(deadq):
        raise ConfigError(f"invalid dead-letter queue name {deadq!r}")
    if paths.root.exists():
        raise ConfigError(f"queue manager {name} already exists ({paths.root})")
    paths.create_files()
    store = Store(paths, create=True)
    try:
        attrs = {k: str(v) for k, v in defaults(QMGR_ATTRS).items()}
        attrs["DEADQ"] = deadq
        initialise(store, name=name, attrs=attrs)
        admin = Admin(store, name, time.time)
        admin.define_queue(DEFAULT_DEADQ, {"DESCR": "Dead-letter queue"})
        if deadq != DEFAULT_DEADQ:
            admin.define_queue(deadq, {"DESCR": "Dead-letter queue"})
        admin.define_queue(INITIATION_QUEUE, {"DESCR": "Default initiation queue"})
    except BaseException:
        store.close()
        shutil.rmtree(paths.root, ignore_errors=True)
        raise
    store.close()
    return paths


def _connections(paths: QMgrPaths) -> tuple[int, int]:
    """(live, dead) connections: lock files held by their process, and left behind."""
    if not paths.conns.is_dir():
        return 0, 0
    alive = [connection_alive(paths, p.stem) for p in paths.conns.glob("*.lock")]
    return sum(alive), len(alive) - sum(alive)


def _live_connections(paths: QMgrPaths) -> int:
    return _connections(paths)[0]


def delete_qmgr(home: Path, name: str) -> None:
    """Delete queue manager ``name`` and every message on it (refused while connected)."""
    paths = QMgrPaths.of(home / "qmgrs", name)
    if not paths.exists():
        raise ConfigError(f"queue manager {name} does not exist")
    live = _live_connections(paths)
    if live:
        raise ConfigError(f"queue manager {name} has {live} active connection(s)")
    shutil.rmtree(paths.root)


def list_qmgrs(home: Path) -> list[QMgrStatus]:
    """Every queue manager under ``home/qmgrs``, by name."""
    root = home / "qmgrs"
    check_home(root)
    if not root.is_dir():
        return []
    out = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        paths = QMgrPaths(Path(entry.path))
        if entry.is_dir() and paths.exists():
            out.append(QMgrStatus(entry.name, paths.root, *_connections(paths)))
    return out
