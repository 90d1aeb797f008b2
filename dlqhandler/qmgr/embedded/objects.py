"""The attributes of queue manager objects: local queues, the queue manager, processes.

One table per object type maps each MQSC keyword to its kind, default and
limits. The admin layer stores attribute values as a JSON object keyed by MQSC
keyword; :class:`QueueView` is the typed slice the MQI calls need on every put
and get. Trigger attributes (TRIGGER, TRIGTYPE, TRIGDPTH, TRIGMPRI, TRIGDATA,
INITQ, PROCESS, and TRIGINT on the queue manager) are stored and displayed
here; acting on them belongs to :mod:`dlqhandler.qmgr.embedded.trigger`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from dlqhandler.errors import DLQHandlerError

__all__ = [
    "ALIAS_ATTRS",
    "AUTHORITIES",
    "MODEL_ATTRS",
    "PROCESS_ATTRS",
    "QMGR_ATTRS",
    "QUEUE_ATTRS",
    "REMOTE_ATTRS",
    "AttrError",
    "AttrSpec",
    "QueueView",
    "alias_view",
    "defaults",
    "expand_authorities",
    "generic_match",
    "parse_value",
    "queue_view",
    "render_value",
]

Kind = Literal["int", "str", "enum", "flag"]
Value = int | str
MAX_INT = 999_999_999


class AttrError(DLQHandlerError):
    """An attribute value that is not valid for its keyword."""


@dataclass(frozen=True, slots=True)
class AttrSpec:
    """One MQSC attribute: its keyword, kind, default and limits.

    A ``flag`` is a pair of bare keywords (``TRIGGER``/``NOTRIGGER``); its value
    is the keyword in force. ``alter`` is False for attributes only the queue
    manager sets (CCSID).
    """

    name: str
    kind: Kind
    default: Value
    low: int = 0
    high: int = MAX_INT
    length: int = 48
    choices: tuple[str, ...] = ()
    off: str = ""
    alter: bool = True


def _table(*specs: AttrSpec) -> dict[str, AttrSpec]:
    return {s.name: s for s in specs}


QUEUE_ATTRS = _table(
    AttrSpec("DESCR", "str", "", length=64),
    AttrSpec("PUT", "enum", "ENABLED", choices=("ENABLED", "DISABLED")),
    AttrSpec("GET", "enum", "ENABLED", choices=("ENABLED", "DISABLED")),
    AttrSpec("DEFPRTY", "int", 0, high=9),
    AttrSpec("DEFPSIST", "enum", "NO", choices=("NO", "YES")),
    AttrSpec("MAXDEPTH", "int", 5000),
    AttrSpec("MAXMSGL", "int", 4_194_304, high=104_857_600),
    AttrSpec("MSGDLVSQ", "enum", "PRIORITY", choices=("PRIORITY", "FIFO")),
    AttrSpec("USAGE", "enum", "NORMAL", choices=("NORMAL", "XMITQ")),
    AttrSpec("BOTHRESH", "int", 0),
    AttrSpec("BOQNAME", "str", ""),
    # IBM's default: a get under syncpoint hardens nothing until its unit of work ends
    # (see dlqhandler.qmgr.embedded.store for what each value means here).
    AttrSpec("HARDENBO", "flag", "NOHARDENBO", off="NOHARDENBO"),
    AttrSpec("TRIGGER", "flag", "NOTRIGGER", off="NOTRIGGER"),
    # What a get that does not ask for a message handle receives of message properties
    # (IBM's default COMPAT; see dlqhandler.qmgr.embedded.propctl).
    AttrSpec("PROPCTL", "enum", "COMPAT", choices=("ALL", "COMPAT", "FORCE", "NONE", "V6COMPAT")),
    AttrSpec("TRIGTYPE", "enum", "FIRST", choices=("FIRST", "EVERY", "DEPTH", "NONE")),
    AttrSpec("TRIGDPTH", "int", 1, low=1),
    AttrSpec("TRIGMPRI", "int", 0, high=9),
    AttrSpec("TRIGDATA", "str", "", length=64),
    AttrSpec("INITQ", "str", ""),
    AttrSpec("PROCESS", "str", ""),
    # Input sharing (IBM's defaults on distributed platforms): SHARE lets several handles
    # open the queue for input; DEFSOPT is what MQOO_INPUT_AS_Q_DEF means. NOSHARE makes
    # every input open exclusive (see QueueView.input_exclusive).
    AttrSpec("SHARE", "flag", "SHARE", off="NOSHARE"),
    AttrSpec("DEFSOPT", "enum", "SHARED", choices=("SHARED", "EXCL")),
)

# DEFINE QALIAS: a name that resolves to a local queue (TARGTYPE(QUEUE) only: no topics
# or remote queues here), with PUT and GET inhibits of its own (IBM: "the attributes of
# the alias queue" decide, as well as the base queue's). DEFPRTY, DEFPSIST, PROPCTL and
# the rest of IBM's alias attributes are not kept: MQSC refuses them.
ALIAS_ATTRS = _table(
    AttrSpec("DESCR", "str", "", length=64),
    AttrSpec("TARGET", "str", ""),
    AttrSpec("TARGTYPE", "enum", "QUEUE", choices=("QUEUE",)),
    AttrSpec("PUT", "enum", "ENABLED", choices=("ENABLED", "DISABLED")),
    AttrSpec("GET", "enum", "ENABLED", choices=("ENABLED", "DISABLED")),
)

# DEFINE QREMOTE: a local definition of a remote queue (RNAME at RQMNAME, through XMITQ),
# or, with RNAME blank, a queue manager alias (see dlqhandler.qmgr.embedded.remote for
# IBM's name resolution). PUT, DEFPRTY and DEFPSIST are the first definition's in the
# resolution path, as IBM documents; DEFBIND, CLUSTER, SCOPE and the rest of IBM's remote
# queue attributes are not kept: MQSC refuses them.
REMOTE_ATTRS = _table(
    AttrSpec("DESCR", "str", "", length=64),
    AttrSpec("RNAME", "str", ""),
    AttrSpec("RQMNAME", "str", ""),
    AttrSpec("XMITQ", "str", ""),
    AttrSpec("PUT", "enum", "ENABLED", choices=("ENABLED", "DISABLED")),
    AttrSpec("DEFPRTY", "int", 0, high=9),
    AttrSpec("DEFPSIST", "enum", "NO", choices=("NO", "YES")),
)

# DEFINE QMODEL: the local-queue attributes a model passes on to the dynamic queues MQOPEN
# creates from it, and DEFTYPE (IBM's default model, SYSTEM.DEFAULT.MODEL.QUEUE, is
# TEMPDYN). See dlqhandler.qmgr.embedded.dynamic.
MODEL_ATTRS = {
    **QUEUE_ATTRS,
    "DEFTYPE": AttrSpec("DEFTYPE", "enum", "TEMPDYN", choices=("TEMPDYN", "PERMDYN")),
}

QMGR_ATTRS = _table(
    AttrSpec("DESCR", "str", "", length=64),
    AttrSpec("DEADQ", "str", ""),
    # The default transmission queue: where a message for a queue manager with no
    # transmission queue of its name goes (IBM's DefXmitQName).
    AttrSpec("DEFXMITQ", "str", ""),
    AttrSpec("TRIGINT", "int", MAX_INT),
    AttrSpec("CCSID", "int", 819, low=1, high=65535, alter=False),
    AttrSpec("MAXMSGL", "int", 4_194_304, low=32768, high=104_857_600),
    AttrSpec("MAXPRTY", "int", 9, low=9, high=9, alter=False),
    # MaxUncommittedMsgs: gets and puts under syncpoint (and the trigger and COA/COD
    # report messages they make) in one unit of work; IBM's default and range.
    AttrSpec("MAXUMSGS", "int", 10_000, low=1, high=MAX_INT),
)

PROCESS_ATTRS = _table(
    AttrSpec("DESCR", "str", "", length=64),
    AttrSpec("APPLICID", "str", "", length=256),
    AttrSpec(
        "APPLTYPE",
        "enum",
        "UNIX",
        choices=(
            "UNIX",
            "CICS",
            "DEF",
            "DOS",
            "IMS",
            "MVS",
            "OS2",
            "OS400",
            "NSK",
            "WINDOWS",
            "WINDOWSNT",
            "SYSTEM",
            "USER",
        ),
    ),
    AttrSpec("USERDATA", "str", "", length=128),
    AttrSpec("ENVRDATA", "str", "", length=128),
)

# Authorities of SET AUTHREC (queues; CONNECT for the queue manager), and what the
# umbrella names expand to.
_MQI = (
    "BROWSE",
    "CONNECT",
    "GET",
    "INQ",
    "PASSALL",
    "PASSID",
    "PUT",
    "SET",
    "SETALL",
    "SETID",
    "ALTUSR",
)
_ADMIN = ("CHG", "CLR", "DLT", "DSP", "CRT")
AUTHORITIES = frozenset((*_MQI, *_ADMIN))
_UMBRELLAS = {
    "ALL": AUTHORITIES,
    "ALLMQI": frozenset(_MQI),
    "ALLADM": frozenset(_ADMIN),
    "NONE": frozenset(),
}


def defaults(table: dict[str, AttrSpec]) -> dict[str, Value]:
    """Every attribute of a table at its default value."""
    return {name: spec.default for name, spec in table.items()}


def parse_value(spec: AttrSpec, raw: str) -> Value:
    """Check and convert an MQSC value for ``spec`` (raises :class:`AttrError`)."""
    if spec.kind == "int":
        try:
            number = int(raw)
        except ValueError:
            raise AttrError(f"{spec.name}({raw}): not a number") from None
        if not spec.low <= number <= spec.high:
            raise AttrError(f"{spec.name}({raw}): must be {spec.low} to {spec.high}")
        return number
    if spec.kind == "enum":
        value = raw.upper()
        if value not in spec.choices:
            raise AttrError(f"{spec.name}({raw}): must be one of {', '.join(spec.choices)}")
        return value
    if spec.kind == "str":
        if len(raw.encode("utf-8")) > spec.length:
            raise AttrError(f"{spec.name}: longer than {spec.length} characters")
        return raw.rstrip(" ")
    raise AttrError(f"{spec.name} takes no value")


def render_value(spec: AttrSpec, value: Value) -> str:
    """How DISPLAY shows one attribute: ``MAXDEPTH(5000)``, ``DESCR( )``, ``NOTRIGGER``."""
    if spec.kind == "flag":
        return str(value)
    text = str(value)
    return f"{spec.name}({text if text else ' '})"


def expand_authorities(names: list[str]) -> frozenset[str]:
    """``[ALLMQI, CLR]`` -> the set of single authorities (raises on unknown names)."""
    out: set[str] = set()
    for name in names:
        upper = name.upper()
        if upper in _UMBRELLAS:
            out |= _UMBRELLAS[upper]
        elif upper in AUTHORITIES:
            out.add(upper)
        else:
            known = ", ".join(sorted(AUTHORITIES | set(_UMBRELLAS)))
            raise AttrError(f"unknown authority {name!r} (known: {known})")
    return frozenset(out)


@lru_cache(maxsize=1024)
def _generic_regex(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            parts.append(".*")
            i += 2
        elif pattern[i] == "*":
            parts.append("[^.]*" if "." in pattern else ".*")
            i += 1
        elif pattern[i] == "?":
            parts.append(".")
            i += 1
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(parts))


def generic_match(pattern: str, name: str, *, profile: bool = False) -> bool:
    """MQ generic names. DISPLAY: a trailing ``*`` matches any rest (``APP.*``).

    Authority profiles (``profile=True``) use the OAM's rules: ``?`` one
    character, ``*`` any characters within a qualifier, ``**`` any run of
    qualifiers.
    """
    if not profile:
        if pattern.endswith("*"):
            return name.startswith(pattern[:-1])
        return name == pattern
    return bool(_generic_regex(pattern).fullmatch(name))


@dataclass(frozen=True, slots=True)
class QueueView:
    """The attributes of a local queue that every put and get consults."""

    name: str
    put_enabled: bool
    get_enabled: bool
    maxdepth: int
    maxmsgl: int
    defprty: int
    defpsist: int
    fifo: bool
    xmitq: bool
    triggered: bool = False  # TRIGGER and TRIGTYPE not NONE: puts go through triggering
    hardenbo: bool = False  # HARDENBO: a get under syncpoint commits its claim at once
    propctl: str = "COMPAT"  # PROPCTL: how a get receives message properties
    shareable: bool = True  # SHARE (NOSHARE: every input open is exclusive)
    deftype: str = "PREDEFINED"  # or a dynamic queue's TEMPDYN / PERMDYN (see .dynamic)
    defsopt_exclusive: bool = False  # DEFSOPT(EXCL): MQOO_INPUT_AS_Q_DEF is exclusive

    def input_exclusive(self, requested: bool | None) -> bool:
        """Whether an input open is exclusive: ``requested`` is True for
        MQOO_INPUT_EXCLUSIVE, False for MQOO_INPUT_SHARED, None for MQOO_INPUT_AS_Q_DEF
        (DEFSOPT decides); on a NOSHARE queue every input open is exclusive (IBM: "An
        MQOPEN call with the MQOO_INPUT_SHARED option is treated as
        MQOO_INPUT_EXCLUSIVE")."""
        if not self.shareable:
            return True
        return self.defsopt_exclusive if requested is None else requested


@lru_cache(maxsize=4096)
def queue_view(name: str, attrs_json: str) -> QueueView:
    """Parse a queue's stored JSON attributes once (cached by content)."""
    import json

    a = {**defaults(QUEUE_ATTRS), **json.loads(attrs_json)}
    return QueueView(
        name=name,
        put_enabled=a["PUT"] == "ENABLED",
        get_enabled=a["GET"] == "ENABLED",
        maxdepth=int(a["MAXDEPTH"]),
        maxmsgl=int(a["MAXMSGL"]),
        defprty=int(a["DEFPRTY"]),
        defpsist=1 if a["DEFPSIST"] == "YES" else 0,
        fifo=a["MSGDLVSQ"] == "FIFO",
        xmitq=a["USAGE"] == "XMITQ",
        triggered=a["TRIGGER"] == "TRIGGER" and a["TRIGTYPE"] != "NONE",
        hardenbo=a["HARDENBO"] == "HARDENBO",
        propctl=str(a["PROPCTL"]),
        shareable=a["SHARE"] == "SHARE",
        defsopt_exclusive=a["DEFSOPT"] == "EXCL",
        deftype=str(a.get("DEFTYPE", "PREDEFINED")),
    )


def alias_view(base: QueueView, alias_json: str) -> QueueView:
    """What a put or get through an alias queue sees: its base queue (the messages, the
    name MQ resolves to), inhibited when either the alias or the base is."""
    import json

    a = {**defaults(ALIAS_ATTRS), **json.loads(alias_json)}
    return replace(
        base,
        put_enabled=base.put_enabled and a["PUT"] == "ENABLED",
        get_enabled=base.get_enabled and a["GET"] == "ENABLED",
    )
