"""Connecting to a queue manager from the command line (the composition root's job).

``--backend embedded`` (the default) opens an embedded queue manager under
``$DLQHANDLER_HOME``; with no name given it takes ``$DLQHANDLER_QMGR``, else
the only embedded queue manager there is.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable

from dlqhandler.config import Settings
from dlqhandler.errors import ConfigError
from dlqhandler.mq.constants import MQRC_Q_MGR_NAME_ERROR, mqi_error
from dlqhandler.qmgr.admin import AdminError
from dlqhandler.qmgr.embedded import connect as connect_embedded
from dlqhandler.qmgr.port import QueueManager
from dlqhandler.qmgr.qmgrs import list_qmgrs

__all__ = ["add_connection_arguments", "connect", "connection_factory", "ensure_queue",
           "resolve_qmgr_name"]


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("embedded",), default="embedded",
                        help="queue manager backend (default: embedded, under "
                             "$DLQHANDLER_HOME)")


def resolve_qmgr_name(settings: Settings, name: str | None) -> str:
    """An explicit name, else ``$DLQHANDLER_QMGR``, else the only embedded QM."""
    if name and name.strip():
        return name.strip()
    if settings.default_qmgr:
        return settings.default_qmgr
    found = list_qmgrs(settings.home)
    if len(found) == 1:
        return found[0].name
    if not found:
        raise mqi_error(MQRC_Q_MGR_NAME_ERROR,
                        f"no queue manager named and none exists under {settings.home}; "
                        "create one with `dlqhandler qm create NAME`")
    raise mqi_error(MQRC_Q_MGR_NAME_ERROR,
                    "no queue manager named and several exist ("
                    + ", ".join(q.name for q in found) + "); name one or set DLQHANDLER_QMGR")


def connect(args: argparse.Namespace, settings: Settings, name: str | None) -> QueueManager:
    """MQCONN for the chosen backend; MQIError 2058 when it cannot be found."""
    if getattr(args, "backend", "embedded") != "embedded":
        raise ConfigError(f"unknown backend {args.backend}")
    return connect_embedded(resolve_qmgr_name(settings, name), settings=settings)


def connection_factory(settings: Settings, name: str) -> Callable[[], QueueManager]:
    """A picklable factory of new connections (for Spark executors)."""
    return functools.partial(connect_embedded, name, home=settings.home)


def ensure_queue(qmgr: QueueManager, name: str, *, maxdepth: int = 999_999_999,
                 descr: str = "") -> None:
    """Define a local queue on an embedded queue manager if it does not exist.

    Several handlers may start at once: losing the race to define it is fine.
    """
    admin = getattr(qmgr, "admin", None)
    if admin is None:
        return
    a = admin()
    if a.queues(name, generic=False):
        return
    try:
        a.define_queue(name, {"MAXDEPTH": maxdepth, "DESCR": descr})
    except AdminError as exc:
        if exc.amq != "AMQ8150E":  # another process defined it meanwhile: fine
            raise
