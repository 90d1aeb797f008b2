"""runmqsc's process commands: DEFINE/ALTER/DELETE/DISPLAY PROCESS."""

from __future__ import annotations

from dlqhandler.qmgr.embedded.admin import Admin
from dlqhandler.qmgr.embedded.mqsc import Command
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Action,
    AdminOf,
    Planner,
    all_keywords,
    alter,
    display_items,
    on_name,
    read_attrs,
    shown,
    then,
    wanted,
)
from dlqhandler.qmgr.embedded.objects import PROCESS_ATTRS

__all__ = ["PROCESS_COMMANDS"]


def _define_process(cmd: Command, adm: AdminOf) -> Action:
    values, others = read_attrs(cmd, PROCESS_ATTRS, extra=("REPLACE", "NOREPLACE"))
    name = str(cmd.name)
    return then(
        lambda: adm().define_process(name, values, replace="REPLACE" in others),
        "AMQ8010I: IBM MQ process created.",
    )


def _display_processes(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    names = wanted(cmd, PROCESS_ATTRS, others, ())
    pattern = str(cmd.name)
    if names is not None and not names and not pattern.endswith("*"):
        names = None

    return lambda: shown(
        "AMQ8407I: Display Process details.",
        (
            [f"PROCESS({rec.name})", *display_items(rec, PROCESS_ATTRS, names, ())]
            for rec in adm().processes(pattern)
        ),
        pattern,
    )


PROCESS_COMMANDS: dict[tuple[str, str], Planner] = {
    ("DEFINE", "PROCESS"): _define_process,
    ("ALTER", "PROCESS"): alter(
        PROCESS_ATTRS, Admin.alter_process, "AMQ8011I: IBM MQ process changed."
    ),
    ("DELETE", "PROCESS"): on_name(Admin.delete_process, "AMQ8012I: IBM MQ process deleted."),
    ("DISPLAY", "PROCESS"): _display_processes,
}
