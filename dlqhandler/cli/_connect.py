"""Connecting to a queue manager from the command line (the composition root's job).

``--backend embedded`` (the default) opens an embedded queue manager under
``$DLQHANDLER_HOME``; with no name given it takes ``$DLQHANDLER_QMGR``, else
the only embedded queue manager there is.

``--backend ibmmq`` connects to IBM MQ through :mod:`dlqhandler.qmgr.ibmmq.adapter`,
imported only then (it needs ``pip install 'dlqhandler[ibmmq]'`` and the MQ C
client). Its settings come from the environment
(:func:`~dlqhandler.qmgr.ibmmq.config.ibmmq_settings_from_env`: transport, CCDT,
key repository, user and password); ``--conn-name``, ``--channel`` and
``--cipher-spec`` override theirs. Credentials never come from the command line.
With no queue manager named, ``$DLQHANDLER_IBMMQ_QMGR``, else the default one.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable

from dlqhandler.config import Settings
from dlqhandler.errors import ConfigError
from dlqhandler.mq.constants import MQRC_Q_MGR_NAME_ERROR, mqi_error
from dlqhandler.mq.names import validate_channel_name
from dlqhandler.qmgr.embedded.admin import AdminError
from dlqhandler.qmgr.embedded.manager import connect as connect_embedded
from dlqhandler.qmgr.embedded.qmgrs import list_qmgrs
from dlqhandler.qmgr.port import QueueManager

__all__ = [
    "add_connection_arguments",
    "connect",
    "connection_factory",
    "connection_usage_problem",
    "ensure_queue",
    "ibmmq_connection",
    "resolve_qmgr_name",
]

_IBMMQ_OPTIONS = (
    ("conn_name", "--conn-name"),
    ("channel", "--channel"),
    ("cipher_spec", "--cipher-spec"),
)


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("embedded", "ibmmq"),
        default="embedded",
        help="queue manager backend: embedded (default; under "
        "$DLQHANDLER_HOME) or ibmmq (IBM MQ; needs "
        "pip install 'dlqhandler[ibmmq]' and the MQ C client)",
    )
    mq = parser.add_argument_group(
        "IBM MQ (--backend ibmmq)",
        "Override the DLQHANDLER_MQ_* environment variables of the same name; everything "
        "else (transport, CCDT, TLS key repository, user, password) comes from the "
        "environment only (see dlqhandler/qmgr/ibmmq/config.py).",
    )
    mq.add_argument(
        "--conn-name",
        metavar="HOST(PORT)[,...]",
        type=_conn_name,
        help="client connection name (with --channel: an explicit MQCD)",
    )
    mq.add_argument(
        "--channel",
        metavar="NAME",
        type=_channel,
        help="SVRCONN channel, 1-20 characters (with --conn-name)",
    )
    mq.add_argument(
        "--cipher-spec", metavar="CIPHER", help="TLS CipherSpec of the client channel (SSLCIPH)"
    )


def _channel(text: str) -> str:
    """argparse type: a channel name MQ accepts (checked before IBM's library sees it)."""
    try:
        return validate_channel_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _conn_name(text: str) -> str:
    """argparse type: IBM's CONNAME list syntax, ``host(port)[,host(port)...]``."""
    # config.py holds the rule; imported here, when the option is given (no IBM MQ code).
    from dlqhandler.qmgr.ibmmq.config import check_conn_name

    try:
        return check_conn_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def connection_usage_problem(args: argparse.Namespace) -> str | None:
    """Why the connection options do not go together, or None."""
    if getattr(args, "backend", "embedded") == "ibmmq":
        return None
    given = [flag for attr, flag in _IBMMQ_OPTIONS if getattr(args, attr, None)]
    return f"{', '.join(given)} need --backend ibmmq" if given else None


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
        raise mqi_error(
            MQRC_Q_MGR_NAME_ERROR,
            f"no queue manager named and none exists under {settings.home}; "
            "create one with `dlqhandler qm create NAME`",
        )
    raise mqi_error(
        MQRC_Q_MGR_NAME_ERROR,
        "no queue manager named and several exist ("
        + ", ".join(q.name for q in found)
        + "); name one or set DLQHANDLER_QMGR",
    )


def connect(args: argparse.Namespace, settings: Settings, name: str | None) -> QueueManager:
    """MQCONN for the chosen backend; MQIError 2058 when it cannot be found.

    ConfigError when the backend cannot be used (``ibmmq`` not installed,
    inconsistent IBM MQ settings).
    """
    backend = getattr(args, "backend", "embedded")
    if backend == "ibmmq":
        return _connect_ibmmq(args, name)
    if backend != "embedded":
        raise ConfigError(f"unknown backend {backend}")
    return connect_embedded(resolve_qmgr_name(settings, name), settings=settings)


def _connect_ibmmq(args: argparse.Namespace, name: str | None) -> QueueManager:
    overrides = {attr: getattr(args, attr, None) for attr, _flag in _IBMMQ_OPTIONS}
    return ibmmq_connection(name.strip() if name and name.strip() else None, overrides)


def ibmmq_connection(name: str | None, overrides: dict[str, object]) -> QueueManager:
    """MQCONNX to IBM MQ: settings from this process's environment, ``overrides`` (the
    command line's conn name, channel, CipherSpec) winning."""
    # Imported here, only for this backend: nothing imports IBM MQ code at start-up.
    from dlqhandler.qmgr.ibmmq.adapter import connect as connect_ibmmq
    from dlqhandler.qmgr.ibmmq.config import ibmmq_settings_from_env

    return connect_ibmmq(settings=ibmmq_settings_from_env(name, None, **overrides))


def connection_factory(
    settings: Settings, name: str, args: argparse.Namespace | None = None
) -> Callable[[], QueueManager]:
    """A picklable factory of new connections (for Spark executors).

    With ``--backend ibmmq`` only the queue manager name and the command-line
    overrides travel; each executor reads the rest, credentials included, from its
    own environment.
    """
    if args is not None and getattr(args, "backend", "embedded") == "ibmmq":
        overrides = {attr: getattr(args, attr, None) for attr, _flag in _IBMMQ_OPTIONS}
        return functools.partial(ibmmq_connection, name, overrides)
    return functools.partial(connect_embedded, name, home=settings.home)


def ensure_queue(
    qmgr: QueueManager, name: str, *, maxdepth: int = 999_999_999, descr: str = ""
) -> None:
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
