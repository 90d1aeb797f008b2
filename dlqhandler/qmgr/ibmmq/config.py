"""How the IBM MQ adapter connects: settings, validated once, from the environment.

The adapter (:mod:`dlqhandler.qmgr.ibmmq.adapter`) never reads credentials from the
command line. :func:`ibmmq_settings_from_env` builds :class:`IBMMQSettings`
from these variables (the MQ client's own ``MQSERVER``, ``MQCHLLIB`` and
``MQCHLTAB`` keep their usual meaning):

===============================  ==============================================
``DLQHANDLER_MQ_TRANSPORT``      ``auto`` (default: the MQ library decides),
                                 ``bindings`` (MQCNO_LOCAL_BINDING) or
                                 ``client`` (MQCNO_CLIENT_BINDING)
``DLQHANDLER_MQ_CONN_NAME``      ``host(port)[,host(port)...]``; with
``DLQHANDLER_MQ_CHANNEL``        the SVRCONN channel: an explicit MQCD
``MQSERVER``                     ``CHANNEL/TCP/host(port)``: an MQCD built from it
``MQCHLLIB`` / ``MQCHLTAB``      a CCDT: the MQ client reads it itself
``DLQHANDLER_MQ_CIPHER_SPEC``    TLS CipherSpec for the MQCD (``SSLCIPH``)
``DLQHANDLER_MQ_KEY_REPOSITORY`` key repository stem (MQSCO.KeyRepository;
                                 else the client's ``MQSSLKEYR``)
``DLQHANDLER_MQ_CERT_LABEL``     client certificate label (MQSCO)
``DLQHANDLER_MQ_USER``           user id for MQCSP authentication
``DLQHANDLER_MQ_PASSWORD``       its password, or
``DLQHANDLER_MQ_PASSWORD_FILE``  a file holding it (first line)
``DLQHANDLER_MQ_RECONNECT_*``    ``ATTEMPTS`` (default 5), ``DELAY`` (seconds,
                                 default 0.5, doubling), ``MAX_DELAY`` (30)
===============================  ==============================================

Precedence for client connections: explicit conn name + channel, then
``MQSERVER``, then a CCDT. The password is a :class:`pydantic.SecretStr`: it
shows as ``**********`` in reprs, logs and error messages, and is read only by
the adapter when it builds the MQCSP.
"""

from __future__ import annotations

import ipaddress
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from dlqhandler.errors import ConfigError
from dlqhandler.logs import get_logger
from dlqhandler.mq.names import validate_channel_name

__all__ = [
    "ClientChannel",
    "ConnectPlan",
    "IBMMQSettings",
    "check_conn_name",
    "ibmmq_settings_from_env",
    "parse_mqserver",
    "plan_connection",
]

Transport = Literal["auto", "bindings", "client"]
_MQSERVER = re.compile(r"^(?P<channel>[^/]{1,20})/(?P<transport>[A-Za-z0-9]+)/(?P<conn>\S.*)$")
_MQ_NAME = re.compile(r"^[A-Za-z0-9._/%]{1,48}$")
MQ_CONN_NAME_LENGTH = 264
# One CONNAME entry: a host name, IPv4 or IPv6 address, then an optional (port).
_CONN_ENTRY = re.compile(r"(?P<host>[A-Za-z0-9._:%-]+)(?:\((?P<port>[0-9]{1,5})\))?")


def _is_ipv6(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def check_conn_name(value: str, what: str = "connection name") -> str:
    """``value`` if it is IBM's CONNAME list syntax, else ``ValueError`` saying where.

    ``host(port)[,host(port)...]``: each entry a host name or IP address with an
    optional port in parentheses (1-65535; IBM's default 1414 when left out), entries
    separated by commas, at most 264 characters in all (MQ_CONN_NAME_LENGTH). Checked
    before IBM's library sees it, which would otherwise fail late with a bare 2538.
    """
    if not value.strip():
        raise ValueError(f"{what} is blank: use host(port)[,host(port)...]")
    if len(value) > MQ_CONN_NAME_LENGTH:
        raise ValueError(f"{what} is {len(value)} characters long (at most {MQ_CONN_NAME_LENGTH})")
    for number, entry in enumerate(value.split(","), 1):
        m = _CONN_ENTRY.fullmatch(entry.strip())
        if m is None:
            raise ValueError(
                f"{what} {value!r}: entry {number} {entry.strip()!r} is not "
                "host(port): use host(port)[,host(port)...], e.g. "
                "mq1.example.com(1414),mq2.example.com(1414)"
            )
        if ":" in m["host"] and not _is_ipv6(m["host"]):
            raise ValueError(
                f"{what} {value!r}: entry {number} {entry.strip()!r} is not "
                "host(port): a ':' belongs only in an IPv6 address; the port "
                "goes in parentheses, e.g. mq1.example.com(1414)"
            )
        if m["port"] is not None and not 1 <= int(m["port"]) <= 65535:
            raise ValueError(
                f"{what} {value!r}: entry {number} port {m['port']} is not a TCP port (1-65535)"
            )
    return value


class IBMMQSettings(BaseModel):
    """Everything the adapter needs to MQCONNX; frozen, validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    qmgr: str = Field(default="", description="queue manager name (blank: the default QM)")
    transport: Transport = "auto"
    conn_name: str | None = None
    channel: str | None = None
    mqserver: str | None = Field(default=None, description="the MQSERVER value, if any")
    ccdt: bool = Field(default=False, description="MQCHLLIB or MQCHLTAB is set")
    cipher_spec: str | None = None
    key_repository: str | None = None
    cert_label: str | None = None
    user: str | None = None
    password: SecretStr | None = None
    reconnect_attempts: int = Field(default=5, ge=0, le=1000)
    reconnect_delay: float = Field(default=0.5, ge=0, le=3600)
    reconnect_max_delay: float = Field(default=30.0, ge=0, le=3600)
    buffer_size: int = Field(
        default=65536, ge=1, le=104_857_600, description="first MQGET buffer; grows on 2080"
    )
    property_handles: int = Field(
        default=64, ge=1, le=4096, description="message handles kept for forwarding"
    )

    @model_validator(mode="after")
    def _consistent(self) -> IBMMQSettings:
        if self.qmgr and not _MQ_NAME.match(self.qmgr):
            raise ValueError(f"queue manager name {self.qmgr!r} is not a valid MQ name")
        try:
            if self.channel is not None:
                validate_channel_name(self.channel, "channel")
            if self.conn_name is not None:
                check_conn_name(self.conn_name, "conn_name")
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        if (self.conn_name is None) != (self.channel is None):
            raise ValueError("conn_name and channel go together (an explicit client channel)")
        if self.password is not None and not self.user:
            raise ValueError("a password needs a user (DLQHANDLER_MQ_USER)")
        if self.user and self.password is None:
            raise ValueError(
                "DLQHANDLER_MQ_USER needs DLQHANDLER_MQ_PASSWORD or DLQHANDLER_MQ_PASSWORD_FILE"
            )
        if self.mqserver is not None:
            try:
                parse_mqserver(self.mqserver)
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        if self.transport == "bindings" and (self.conn_name or self.cipher_spec):
            raise ValueError("transport 'bindings' takes no conn_name, channel or cipher_spec")
        if self.cipher_spec and self.conn_name is None and self.mqserver is None and self.ccdt:
            raise ValueError(
                "with a CCDT (MQCHLLIB/MQCHLTAB) the CipherSpec comes from the "
                "channel definition (SSLCIPH); unset DLQHANDLER_MQ_CIPHER_SPEC"
            )
        if self.cipher_spec and self.conn_name is None and self.mqserver is None:
            raise ValueError(
                "cipher_spec needs a client channel: DLQHANDLER_MQ_CONN_NAME and "
                "DLQHANDLER_MQ_CHANNEL, or MQSERVER"
            )
        return self


@dataclass(frozen=True, slots=True)
class ClientChannel:
    """A client-connection channel: what goes into the MQCD."""

    channel: str
    conn_name: str
    cipher_spec: str | None = None


@dataclass(frozen=True, slots=True)
class ConnectPlan:
    """The MQCONNX call the settings stand for (no secrets: see ``authenticate``).

    ``binding``: ``"local"`` (MQCNO_LOCAL_BINDING), ``"client"``
    (MQCNO_CLIENT_BINDING) or ``"standard"`` (let the MQ library choose).
    ``source``: where the client channel comes from, for logs.
    """

    binding: Literal["local", "client", "standard"]
    source: Literal["bindings", "conn_name", "mqserver", "ccdt", "client", "auto"]
    channel: ClientChannel | None
    tls: bool
    authenticate: bool


def parse_mqserver(value: str) -> ClientChannel:
    """``CHANNEL/TCP/host(port)[,host(port)...]`` as the MQ client reads MQSERVER."""
    match = _MQSERVER.match(value.strip())
    if match is None:
        raise ConfigError("MQSERVER must look like CHANNEL/TCP/host(port)")
    if match["transport"].upper() != "TCP":
        raise ConfigError(f"MQSERVER transport {match['transport']!r} is not supported; use TCP")
    try:
        channel = validate_channel_name(match["channel"], "MQSERVER channel")
        conn_name = check_conn_name(match["conn"].strip(), "MQSERVER connection name")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return ClientChannel(channel, conn_name)


def plan_connection(settings: IBMMQSettings) -> ConnectPlan:
    """Which binding and which client channel MQCONNX gets for ``settings``."""
    auth = settings.user is not None
    if settings.transport == "bindings":
        return ConnectPlan("local", "bindings", None, tls=False, authenticate=auth)
    if settings.conn_name is not None and settings.channel is not None:
        channel = ClientChannel(settings.channel, settings.conn_name, settings.cipher_spec)
        return ConnectPlan(
            "client", "conn_name", channel, tls=bool(settings.cipher_spec), authenticate=auth
        )
    if settings.mqserver is not None:
        parsed = parse_mqserver(settings.mqserver)
        channel = ClientChannel(parsed.channel, parsed.conn_name, settings.cipher_spec)
        return ConnectPlan(
            "client", "mqserver", channel, tls=bool(settings.cipher_spec), authenticate=auth
        )
    if settings.ccdt:
        return ConnectPlan("client", "ccdt", None, tls=False, authenticate=auth)
    if settings.transport == "client":
        return ConnectPlan("client", "client", None, tls=False, authenticate=auth)
    return ConnectPlan("standard", "auto", None, tls=False, authenticate=auth)


def _read_password_file(path: Path) -> SecretStr:
    """The first line of ``path``; the error names the file, never its content."""
    try:
        info = path.stat()
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read DLQHANDLER_MQ_PASSWORD_FILE {path}: {exc.strerror or type(exc).__name__}"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"DLQHANDLER_MQ_PASSWORD_FILE {path} is not UTF-8 text") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        get_logger("qmgr.ibmmq").warning(
            "mq_password_file_not_private", path=str(path), mode=oct(stat.S_IMODE(info.st_mode))
        )
    first = text.splitlines()[0] if text else ""
    return SecretStr(first)


def _env_number(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value.strip() if value and value.strip() else None


def ibmmq_settings_from_env(
    qmgr: str | None = None, env: Mapping[str, str] | None = None, **overrides: object
) -> IBMMQSettings:
    """Settings from ``env`` (default ``os.environ``); ``overrides`` win (None ignored).

    ``qmgr`` defaults to ``$DLQHANDLER_IBMMQ_QMGR``. Raises
    :class:`~dlqhandler.errors.ConfigError` listing every problem; the message
    never contains the password.
    """
    e = os.environ if env is None else env

    def text(name: str) -> str | None:
        value = e.get(name)
        return value if value else None

    password_value = text("DLQHANDLER_MQ_PASSWORD")
    password_file = text("DLQHANDLER_MQ_PASSWORD_FILE")
    if password_value is not None and password_file is not None:
        raise ConfigError("set DLQHANDLER_MQ_PASSWORD or DLQHANDLER_MQ_PASSWORD_FILE, not both")
    password: SecretStr | None = None
    if password_value is not None:
        password = SecretStr(password_value)
    elif password_file is not None:
        password = _read_password_file(Path(password_file))
    values: dict[str, object] = {
        "qmgr": (qmgr if qmgr is not None else e.get("DLQHANDLER_IBMMQ_QMGR", "")).strip(),
        "transport": (text("DLQHANDLER_MQ_TRANSPORT") or "auto").lower(),
        "conn_name": text("DLQHANDLER_MQ_CONN_NAME"),
        "channel": text("DLQHANDLER_MQ_CHANNEL"),
        "mqserver": text("MQSERVER"),
        "ccdt": bool(text("MQCHLLIB") or text("MQCHLTAB")),
        "cipher_spec": text("DLQHANDLER_MQ_CIPHER_SPEC"),
        "key_repository": text("DLQHANDLER_MQ_KEY_REPOSITORY"),
        "cert_label": text("DLQHANDLER_MQ_CERT_LABEL"),
        "user": text("DLQHANDLER_MQ_USER"),
        "password": password,
    }
    for key, name in (
        ("reconnect_attempts", "DLQHANDLER_MQ_RECONNECT_ATTEMPTS"),
        ("reconnect_delay", "DLQHANDLER_MQ_RECONNECT_DELAY"),
        ("reconnect_max_delay", "DLQHANDLER_MQ_RECONNECT_MAX_DELAY"),
    ):
        number = _env_number(e, name)
        if number is not None:
            values[key] = number
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return IBMMQSettings.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors(include_input=False)
        )
        raise ConfigError(f"IBM MQ connection settings: {problems}") from None
