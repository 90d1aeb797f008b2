"""runmqsc's queue manager commands: ALTER/DISPLAY/PING QMGR."""

from __future__ import annotations

from dlqhandler.qmgr.embedded.mqsc import Command
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Action,
    AdminOf,
    Planner,
    all_keywords,
    columns,
    read_attrs,
    then,
    wanted,
)
from dlqhandler.qmgr.embedded.objects import QMGR_ATTRS, render_value

__all__ = ["QMGR_COMMANDS"]


def _alter_qmgr(cmd: Command, adm: AdminOf) -> Action:
    values, _ = read_attrs(cmd, QMGR_ATTRS, altering=True)
    return then(lambda: adm().alter_qmgr(values), "AMQ8005I: IBM MQ queue manager changed.")


def _display_qmgr(cmd: Command, adm: AdminOf) -> Action:
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    names = wanted(cmd, QMGR_ATTRS, others, ("QMNAME",))
    names = None if names is not None and not names else names

    def run() -> list[str]:
        attrs = adm().qmgr_attributes()
        shown = sorted(QMGR_ATTRS if names is None else names)
        items = [f"QMNAME({attrs['QMNAME']})"]
        items += [render_value(QMGR_ATTRS[n], attrs[n]) for n in shown if n in QMGR_ATTRS]
        return ["AMQ8408I: Display Queue Manager details.", *columns(items)]

    return run


def _ping(cmd: Command, adm: AdminOf) -> Action:
    read_attrs(cmd, {})
    return lambda: ["AMQ8415I: Ping IBM MQ Queue Manager command complete."]


QMGR_COMMANDS: dict[tuple[str, str], Planner] = {
    ("ALTER", "QMGR"): _alter_qmgr,
    ("DISPLAY", "QMGR"): _display_qmgr,
    ("PING", "QMGR"): _ping,
}
