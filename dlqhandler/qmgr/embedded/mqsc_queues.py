"""runmqsc's queue commands: DEFINE/ALTER/DELETE/CLEAR/DISPLAY QLOCAL (DISPLAY QUEUE
too, with generic names, attribute lists, ALL and WHERE), DEFINE/ALTER/DELETE/DISPLAY
QALIAS (TARGET, TARGTYPE(QUEUE), PUT, GET, DESCR), DEFINE/ALTER/DELETE/DISPLAY QREMOTE
(RNAME, RQMNAME, XMITQ, PUT, DEFPRTY, DEFPSIST, DESCR) and DISPLAY QSTATUS. DISPLAY
QUEUE without TYPE (IBM's TYPE(ALL)) lists every queue type."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from dlqhandler.qmgr.embedded.admin import Admin, AdminError, ObjectRecord
from dlqhandler.qmgr.embedded.mqsc import Attr, Command
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Action,
    AdminOf,
    Planner,
    all_keywords,
    alter,
    define_queue_type,
    display_items,
    display_queue_type,
    matches,
    on_name,
    read_attrs,
    shown,
    syntax,
    then,
    wanted,
    where,
)
from dlqhandler.qmgr.embedded.mqsc_models import display_models
from dlqhandler.qmgr.embedded.objects import (
    ALIAS_ATTRS,
    MODEL_ATTRS,
    QUEUE_ATTRS,
    REMOTE_ATTRS,
    AttrSpec,
)

__all__ = ["QUEUE_COMMANDS"]

_QUEUE_STATUS = ("CURDEPTH", "IPPROCS", "OPPROCS")
_QSTATUS_KEYWORDS = frozenset(
    {
        "TYPE",
        "ALL",
        "CURDEPTH",
        "IPPROCS",
        "OPPROCS",
        "UNCOM",
        "MSGAGE",
        "APPLTAG",
        "APPLTYPE",
        "INPUT",
        "OUTPUT",
        "PID",
        "USERID",
        "CONNID",
    }
)


def _define_queue(cmd: Command, adm: AdminOf) -> Action:
    values, others = read_attrs(cmd, QUEUE_ATTRS, extra=("LIKE", "REPLACE", "NOREPLACE"))
    like = others["LIKE"].single() if "LIKE" in others else None
    name = str(cmd.name)
    return then(
        lambda: adm().define_queue(name, values, like=like, replace="REPLACE" in others),
        "AMQ8006I: IBM MQ queue created.",
    )


def _delete_queue(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=("PURGE", "NOPURGE"))
    name = str(cmd.name)
    return then(
        lambda: adm().delete_queue(name, purge="PURGE" in others), "AMQ8007I: IBM MQ queue deleted."
    )


_define_alias = define_queue_type(ALIAS_ATTRS, Admin.define_alias)
_display_aliases = display_queue_type(ALIAS_ATTRS, Admin.aliases, "QALIAS")
_define_remote = define_queue_type(REMOTE_ATTRS, Admin.define_remote)
_display_remotes = display_queue_type(REMOTE_ATTRS, Admin.remotes, "QREMOTE")


def _display_queues(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    if "TYPE" in others and others["TYPE"].single() == "QALIAS":
        return _display_aliases(cmd, adm)
    if "TYPE" in others and others["TYPE"].single() == "QREMOTE":
        return _display_remotes(cmd, adm)
    if "TYPE" in others and others["TYPE"].single() == "QMODEL":
        return display_models(cmd, adm)
    if "TYPE" in others and others["TYPE"].single() not in ("QLOCAL", "ALL"):
        raise syntax(
            cmd,
            others["TYPE"],
            "only TYPE(ALL), TYPE(QLOCAL), TYPE(QALIAS), TYPE(QREMOTE) and TYPE(QMODEL)"
            " queues exist here",
        )
    if cmd.objtype == "QUEUE" and ("TYPE" not in others or others["TYPE"].single() == "ALL"):
        return _display_all_types(cmd, adm, others)
    pattern = str(cmd.name)
    generic = pattern.endswith("*")
    names = wanted(cmd, QUEUE_ATTRS, others, _QUEUE_STATUS)
    if names is not None and not names and not generic and "TYPE" not in others:
        names = None  # a single queue and no attributes: ALL
    filter_ = where(cmd, others["WHERE"], QUEUE_ATTRS, _QUEUE_STATUS) if "WHERE" in others else None
    show_type = names is None or "TYPE" in others or not names

    def objects() -> Iterator[list[str]]:
        for rec in adm().queues(pattern):
            if filter_ is not None:
                value = rec.status.get(filter_[0], rec.attrs.get(filter_[0], ""))
                if not matches(value, filter_[1], filter_[2]):
                    continue
            head = [f"QUEUE({rec.name})"] + (["TYPE(QLOCAL)"] if show_type else [])
            yield head + display_items(rec, QUEUE_ATTRS, names, _QUEUE_STATUS)

    return lambda: shown(
        "AMQ8409I: Display Queue details.", objects(), pattern if filter_ is None else None
    )


# Each queue type DISPLAY QUEUE TYPE(ALL) lists: its TYPE value, its attribute table,
# its status attributes and how Admin lists it.
_QUEUE_TYPES: tuple[
    tuple[str, dict[str, AttrSpec], tuple[str, ...], Callable[[Admin, str], list[ObjectRecord]]],
    ...,
] = (
    ("QLOCAL", QUEUE_ATTRS, _QUEUE_STATUS, Admin.queues),
    ("QALIAS", ALIAS_ATTRS, (), Admin.aliases),
    ("QREMOTE", REMOTE_ATTRS, (), Admin.remotes),
    ("QMODEL", MODEL_ATTRS, (), Admin.models),
)


def _display_all_types(cmd: Command, adm: AdminOf, others: dict[str, Attr]) -> Action:
    """DISPLAY QUEUE(pattern) with TYPE(ALL), IBM's default: every queue type, by name,
    each with its TYPE and the asked-for attributes that apply to its type; a WHERE on
    an attribute a type does not have leaves that type's queues out."""
    every = {k: v for _, table, _, _ in _QUEUE_TYPES for k, v in table.items()}
    pattern = str(cmd.name)
    names = wanted(cmd, every, others, _QUEUE_STATUS)
    if names is not None and not names and not pattern.endswith("*"):
        names = None  # a single queue and no attributes: ALL
    filter_ = where(cmd, others["WHERE"], every, _QUEUE_STATUS) if "WHERE" in others else None

    def objects() -> Iterator[list[str]]:
        admin = adm()
        found: list[tuple[str, str, ObjectRecord, dict[str, AttrSpec], tuple[str, ...]]] = []
        for kind, table, status, listing in _QUEUE_TYPES:
            if filter_ is not None and filter_[0] not in table and filter_[0] not in status:
                continue
            for rec in listing(admin, pattern):
                if filter_ is not None:
                    value = rec.status.get(filter_[0], rec.attrs.get(filter_[0], ""))
                    if not matches(value, filter_[1], filter_[2]):
                        continue
                found.append((rec.name, kind, rec, table, status))
        for name, kind, rec, table, status in sorted(found, key=lambda f: f[0]):
            yield [f"QUEUE({name})", f"TYPE({kind})", *display_items(rec, table, names, status)]

    return lambda: shown(
        "AMQ8409I: Display Queue details.", objects(), pattern if filter_ is None else None
    )


def _display_qstatus(cmd: Command, adm: AdminOf) -> Action:
    """DISPLAY QSTATUS(q) [TYPE(QUEUE|HANDLE)]: every status attribute is shown."""
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    kind = others["TYPE"].single() if "TYPE" in others else "QUEUE"
    if kind not in ("QUEUE", "HANDLE"):
        raise syntax(cmd, others.get("TYPE"), "TYPE must be QUEUE or HANDLE")
    unknown = [a for k, a in others.items() if k not in _QSTATUS_KEYWORDS]
    if unknown:
        raise syntax(cmd, unknown[0], f"{unknown[0].keyword} is not a QSTATUS attribute")
    pattern = str(cmd.name)

    def run() -> list[str]:
        admin = adm()
        if not admin.queues(pattern):
            raise AdminError("AMQ8147E", f"IBM MQ object {pattern} not found.")
        found = admin.handle_status(pattern) if kind == "HANDLE" else admin.queue_status(pattern)
        return shown(
            "AMQ8450I: Display queue status details.", (status.items() for status in found), None
        )

    return run


QUEUE_COMMANDS: dict[tuple[str, str], Planner] = {
    ("DEFINE", "QLOCAL"): _define_queue,
    ("ALTER", "QLOCAL"): alter(QUEUE_ATTRS, Admin.alter_queue, "AMQ8008I: IBM MQ queue changed."),
    ("DELETE", "QLOCAL"): _delete_queue,
    ("CLEAR", "QLOCAL"): on_name(Admin.clear_queue, "AMQ8022I: IBM MQ queue cleared."),
    ("DISPLAY", "QLOCAL"): _display_queues,
    ("DISPLAY", "QUEUE"): _display_queues,
    ("DISPLAY", "QSTATUS"): _display_qstatus,
    ("DEFINE", "QALIAS"): _define_alias,
    ("ALTER", "QALIAS"): alter(ALIAS_ATTRS, Admin.alter_alias, "AMQ8008I: IBM MQ queue changed."),
    ("DELETE", "QALIAS"): on_name(Admin.delete_alias, "AMQ8007I: IBM MQ queue deleted."),
    ("DISPLAY", "QALIAS"): _display_aliases,
    ("DEFINE", "QREMOTE"): _define_remote,
    ("ALTER", "QREMOTE"): alter(
        REMOTE_ATTRS, Admin.alter_remote, "AMQ8008I: IBM MQ queue changed."
    ),
    ("DELETE", "QREMOTE"): on_name(Admin.delete_remote, "AMQ8007I: IBM MQ queue deleted."),
    ("DISPLAY", "QREMOTE"): _display_remotes,
}
