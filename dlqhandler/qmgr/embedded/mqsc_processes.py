"""runmqsc's process commands: DEFINE/ALTER/DELETE/DISPLAY PROCESS."""

from __future__ import annotations

from dlqhandler.qmgr.embedded.admin import AdminError
from dlqhandler.qmgr.embedded.mqsc import Command
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Action,
    AdminOf,
    Planner,
    all_keywords,
    columns,
    display_items,
    read_attrs,
    then,
    wanted,
)
from dlqhandler.qmgr.embedded.objects import PROCESS_ATTRS

__all__ = ["PROCESS_COMMANDS"]


def _define_process(cmd: Command, adm: AdminOf) -> Action:
    values, others = read_attrs(cmd, PROCESS_ATTRS, extra=("REPLACE", "NOREPLACE"))
    name = str(cmd.name)
    return then(lambda: adm().define_process(name, values, replace="REPLACE" in others),
                "AMQ8010I: IBM MQ process created.")


def _alter_process(cmd: Command, adm: AdminOf) -> Action:
    values, _ = read_attrs(cmd, PROCESS_ATTRS)
    name = str(cmd.name)
    return then(lambda: adm().alter_process(name, values), "AMQ8011I: IBM MQ process changed.")


def _delete_process(cmd: Command, adm: AdminOf) -> Action:
    read_attrs(cmd, {})
    name = str(cmd.name)
    return then(lambda: adm().delete_process(name), "AMQ8012I: IBM MQ process deleted.")


def _display_processes(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    names = wanted(cmd, PROCESS_ATTRS, others, ())
    pattern = str(cmd.name)
    if names is not None and not names and not pattern.endswith("*"):
        names = None

    def run() -> list[str]:
        out: list[str] = []
        for rec in adm().processes(pattern):
            items = [f"PROCESS({rec.name})", *display_items(rec, PROCESS_ATTRS, names, ())]
            out += ["AMQ8407I: Display Process details.", *columns(items)]
        if not out:
            raise AdminError("AMQ8147E", f"IBM MQ object {pattern} not found.")
        return out
    return run


PROCESS_COMMANDS: dict[tuple[str, str], Planner] = {
    ("DEFINE", "PROCESS"): _define_process, ("ALTER", "PROCESS"): _alter_process,
    ("DELETE", "PROCESS"): _delete_process, ("DISPLAY", "PROCESS"): _display_processes,
}
