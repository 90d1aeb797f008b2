"""MQINQ on the embedded queue manager: MQCA_*/MQIA_* selectors from the stored attributes.

Each object type has one table from selector to how its value is read from the
MQSC attributes the admin layer keeps (:mod:`.objects`). A selector is answered
only when the attribute it reads is known to this queue manager: an attribute
the embedded queue manager does not keep is left out of the answer, as the port
asks, never filled with a default the queue manager does not enforce.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from dlqhandler.mq import selectors as s
from dlqhandler.mq.constants import MQRC_UNKNOWN_OBJECT_NAME, mqi_error
from dlqhandler.qmgr.embedded.admin import Admin
from dlqhandler.qmgr.embedded.objects import Value
from dlqhandler.qmgr.port import ObjectType

__all__ = ["inquire_object"]

Reader = Callable[[Mapping[str, Value]], int | str]


def _int(keyword: str) -> tuple[str, Reader]:
    return keyword, lambda a: int(a[keyword])


def _str(keyword: str) -> tuple[str, Reader]:
    return keyword, lambda a: str(a[keyword]).rstrip(" ")


def _enum(keyword: str, values: dict[str, int]) -> tuple[str, Reader]:
    return keyword, lambda a: values[str(a[keyword])]


_DEFTYPES = {
    "PREDEFINED": s.MQQDT_PREDEFINED,
    "PERMDYN": s.MQQDT_PERMANENT_DYNAMIC,
    "TEMPDYN": s.MQQDT_TEMPORARY_DYNAMIC,
}

_QUEUE: dict[int, tuple[str, Reader]] = {
    s.MQCA_Q_NAME: ("NAME", lambda a: str(a["NAME"])),
    s.MQIA_Q_TYPE: ("NAME", lambda a: s.MQQT_LOCAL),  # only local queues exist here
    s.MQIA_CURRENT_Q_DEPTH: _int("CURDEPTH"),
    # (a dynamic queue keeps the DEFTYPE of its model, see .dynamic; others are predefined)
    s.MQIA_DEFINITION_TYPE: ("NAME", lambda a: _DEFTYPES[str(a.get("DEFTYPE", "PREDEFINED"))]),
    s.MQIA_OPEN_INPUT_COUNT: _int("IPPROCS"),
    s.MQIA_MAX_Q_DEPTH: _int("MAXDEPTH"),
    s.MQIA_MAX_MSG_LENGTH: _int("MAXMSGL"),
    s.MQIA_INHIBIT_PUT: _enum(
        "PUT", {"ENABLED": s.MQQA_PUT_ALLOWED, "DISABLED": s.MQQA_PUT_INHIBITED}
    ),
    s.MQIA_INHIBIT_GET: _enum(
        "GET", {"ENABLED": s.MQQA_GET_ALLOWED, "DISABLED": s.MQQA_GET_INHIBITED}
    ),
    s.MQIA_USAGE: _enum("USAGE", {"NORMAL": s.MQUS_NORMAL, "XMITQ": s.MQUS_TRANSMISSION}),
    s.MQIA_HARDEN_GET_BACKOUT: _enum(
        "HARDENBO", {"HARDENBO": s.MQQA_BACKOUT_HARDENED, "NOHARDENBO": s.MQQA_BACKOUT_NOT_HARDENED}
    ),
    s.MQCA_BACKOUT_REQ_Q_NAME: _str("BOQNAME"),
    s.MQIA_TRIGGER_CONTROL: _enum("TRIGGER", {"TRIGGER": s.MQTC_ON, "NOTRIGGER": s.MQTC_OFF}),
    s.MQIA_TRIGGER_TYPE: _enum(
        "TRIGTYPE",
        {"NONE": s.MQTT_NONE, "FIRST": s.MQTT_FIRST, "EVERY": s.MQTT_EVERY, "DEPTH": s.MQTT_DEPTH},
    ),
    s.MQIA_TRIGGER_DEPTH: _int("TRIGDPTH"),
    s.MQIA_TRIGGER_MSG_PRIORITY: _int("TRIGMPRI"),
    s.MQCA_TRIGGER_DATA: _str("TRIGDATA"),
    s.MQCA_INITIATION_Q_NAME: _str("INITQ"),
    s.MQCA_PROCESS_NAME: _str("PROCESS"),
    s.MQIA_PROPERTY_CONTROL: _enum(
        "PROPCTL",
        {
            "COMPAT": s.MQPROP_COMPATIBILITY,
            "NONE": s.MQPROP_NONE,
            "ALL": s.MQPROP_ALL,
            "FORCE": s.MQPROP_FORCE_MQRFH2,
            "V6COMPAT": s.MQPROP_V6COMPAT,
        },
    ),
    s.MQIA_DEF_INPUT_OPEN_OPTION: _enum(
        "DEFSOPT", {"SHARED": s.MQOO_INPUT_SHARED, "EXCL": s.MQOO_INPUT_EXCLUSIVE}
    ),
    s.MQIA_SHAREABILITY: _enum(
        "SHARE", {"SHARE": s.MQQA_SHAREABLE, "NOSHARE": s.MQQA_NOT_SHAREABLE}
    ),
}

_INHIBITS: dict[int, tuple[str, Reader]] = {
    k: _QUEUE[k] for k in (s.MQIA_INHIBIT_PUT, s.MQIA_INHIBIT_GET)
}
_ALIAS: dict[int, tuple[str, Reader]] = {
    s.MQCA_Q_NAME: ("NAME", lambda a: str(a["NAME"])),
    s.MQIA_Q_TYPE: ("NAME", lambda a: s.MQQT_ALIAS),
    s.MQCA_BASE_Q_NAME: _str("TARGET"),
    **_INHIBITS,
}

# A remote queue definition or queue manager alias (QREMOTE): its own attributes, as
# IBM lists them for MQQT_REMOTE (MQINQ never resolves it to its transmission queue).
_REMOTE: dict[int, tuple[str, Reader]] = {
    s.MQCA_Q_NAME: ("NAME", lambda a: str(a["NAME"])),
    s.MQIA_Q_TYPE: ("NAME", lambda a: s.MQQT_REMOTE),
    s.MQCA_Q_DESC: _str("DESCR"),
    s.MQCA_REMOTE_Q_NAME: _str("RNAME"),
    s.MQCA_REMOTE_Q_MGR_NAME: _str("RQMNAME"),
    s.MQCA_XMIT_Q_NAME: _str("XMITQ"),
    s.MQIA_INHIBIT_PUT: _QUEUE[s.MQIA_INHIBIT_PUT],
    s.MQIA_DEF_PRIORITY: _int("DEFPRTY"),
    s.MQIA_DEF_PERSISTENCE: _enum(
        "DEFPSIST", {"NO": s.MQPER_NOT_PERSISTENT, "YES": s.MQPER_PERSISTENT}
    ),
}

_QMGR: dict[int, tuple[str, Reader]] = {
    s.MQCA_Q_MGR_NAME: ("QMNAME", lambda a: str(a["QMNAME"])),
    s.MQCA_DEAD_LETTER_Q_NAME: _str("DEADQ"),
    s.MQCA_DEF_XMIT_Q_NAME: _str("DEFXMITQ"),
    s.MQIA_CODED_CHAR_SET_ID: _int("CCSID"),
    s.MQIA_MAX_MSG_LENGTH: _int("MAXMSGL"),
    s.MQIA_TRIGGER_INTERVAL: _int("TRIGINT"),
    s.MQIA_MAX_UNCOMMITTED_MSGS: _int("MAXUMSGS"),
}

_PROCESS: dict[int, tuple[str, Reader]] = {
    s.MQCA_PROCESS_NAME: ("NAME", lambda a: str(a["NAME"])),
    s.MQCA_APPL_ID: _str("APPLICID"),
}


def _answer(
    table: dict[int, tuple[str, Reader]], attrs: Mapping[str, Value], selectors: Sequence[int]
) -> dict[int, int | str]:
    out: dict[int, int | str] = {}
    for selector in selectors:
        how = table.get(selector)
        if how is None or how[0] not in attrs:
            continue
        try:
            out[selector] = how[1](attrs)
        except KeyError:  # a value this table does not know: not answered, not guessed
            continue
    return out


def inquire_object(
    admin: Admin, objtype: ObjectType, name: str, selectors: Sequence[int]
) -> dict[int, int | str]:
    """The port's ``inquire_object`` on this queue manager's definitions."""
    if objtype == "qmgr":
        return _answer(_QMGR, admin.qmgr_attributes(), selectors)
    if objtype == "queue":
        aliases = admin.aliases(name.strip(), generic=False)
        if aliases:  # (an alias queue answers with its own attributes, as on IBM MQ)
            return _answer(_ALIAS, {**aliases[0].attrs, "NAME": aliases[0].name}, selectors)
        remotes = admin.remotes(name.strip(), generic=False)
        if remotes:
            return _answer(_REMOTE, {**remotes[0].attrs, "NAME": remotes[0].name}, selectors)
        record = admin.queue(name.strip())
        return _answer(_QUEUE, {**record.attrs, **record.status, "NAME": record.name}, selectors)
    found = [p for p in admin.processes(name.strip()) if p.name == name.strip()]
    if not found:
        raise mqi_error(MQRC_UNKNOWN_OBJECT_NAME, f"process {name.strip()}")
    return _answer(_PROCESS, {**found[0].attrs, "NAME": found[0].name}, selectors)
