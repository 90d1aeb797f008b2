"""runmqsc's authority record commands: SET/DELETE/DISPLAY AUTHREC (OBJTYPE(QUEUE) or
OBJTYPE(QMGR), whose profile is the queue manager's name; PRINCIPAL; GROUP is refused)."""

from __future__ import annotations

from collections.abc import Iterator

from dlqhandler.qmgr.embedded.admin import AdminError
from dlqhandler.qmgr.embedded.mqsc import Attr, Command
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Action,
    AdminOf,
    Planner,
    read_attrs,
    shown,
    syntax,
    then,
)
from dlqhandler.qmgr.embedded.objects import AttrError, expand_authorities

__all__ = ["AUTHREC_COMMANDS"]

_AUTHREC_KEYS = ("PROFILE", "OBJTYPE", "PRINCIPAL", "GROUP", "AUTHADD", "AUTHRMV")


def _authrec_keys(
    cmd: Command, others: dict[str, Attr], *, need: bool
) -> tuple[str | None, str | None, str | None]:
    """(profile, principal, objtype); OBJTYPE(QMGR)'s profile is the queue manager."""
    if "GROUP" in others:
        raise syntax(cmd, others["GROUP"], "GROUP is not supported: use PRINCIPAL")
    objtype = others["OBJTYPE"].single() if "OBJTYPE" in others else None
    if objtype not in (None, "QUEUE", "QMGR"):
        raise syntax(cmd, others["OBJTYPE"], "only OBJTYPE(QUEUE) and OBJTYPE(QMGR) are supported")
    if need and objtype is None:
        raise syntax(cmd, None, "OBJTYPE(QUEUE) or OBJTYPE(QMGR) is required")
    profile = others["PROFILE"].single() if "PROFILE" in others else None
    principal = others["PRINCIPAL"].single() if "PRINCIPAL" in others else None
    if need and (not (profile or objtype == "QMGR") or not principal):
        raise syntax(cmd, None, "PROFILE(...) and PRINCIPAL(...) are required")
    return profile, principal, objtype


def _profile(adm: AdminOf, profile: str | None, objtype: str | None) -> str:
    """The record's profile: OBJTYPE(QMGR)'s is the queue manager's name (when run)."""
    if objtype != "QMGR":
        return str(profile)
    qmgr = adm().qmgr_name
    if profile not in (None, qmgr):
        raise AdminError("AMQ8147E", f"IBM MQ object {profile} not found.")
    return qmgr


def _auth_list(cmd: Command, a: Attr | None) -> frozenset[str]:
    if a is None:
        return frozenset()
    try:
        return expand_authorities(list(a.values or ()))
    except AttrError as exc:
        raise syntax(cmd, a, str(exc)) from exc


def _set_authrec(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=_AUTHREC_KEYS)
    profile, principal, objtype = _authrec_keys(cmd, others, need=True)
    add = _auth_list(cmd, others.get("AUTHADD"))
    remove = _auth_list(cmd, others.get("AUTHRMV"))
    return then(
        lambda: adm().set_authrec(
            _profile(adm, profile, objtype),
            str(principal),
            add=add,
            remove=remove,
            objtype=str(objtype),
        ),
        "AMQ8862I: IBM MQ authority record set.",
    )


def _delete_authrec(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=_AUTHREC_KEYS[:4])
    profile, principal, objtype = _authrec_keys(cmd, others, need=True)
    return then(
        lambda: adm().delete_authrec(
            _profile(adm, profile, objtype), str(principal), objtype=str(objtype)
        ),
        "AMQ8863I: IBM MQ authority record deleted.",
    )


def _display_authrecs(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=_AUTHREC_KEYS[:4])
    profile, principal, objtype = _authrec_keys(cmd, others, need=False)

    def objects() -> Iterator[list[str]]:
        for rec in adm().authrecs(profile, principal):
            if objtype is not None and rec.objtype != objtype:
                continue
            auths = ",".join(sorted(rec.authorities)) or "NONE"
            yield [
                f"PROFILE({rec.profile})",
                f"ENTITY({rec.principal})",
                "ENTTYPE(PRINCIPAL)",
                f"OBJTYPE({rec.objtype})",
                f"AUTHLIST({auths})",
            ]

    return lambda: shown("AMQ8864I: Display authority record details.", objects(), profile or "*")


AUTHREC_COMMANDS: dict[tuple[str, str], Planner] = {
    ("SET", "AUTHREC"): _set_authrec,
    ("DELETE", "AUTHREC"): _delete_authrec,
    ("DISPLAY", "AUTHREC"): _display_authrecs,
}
