"""runmqsc's model queue commands: DEFINE/ALTER/DELETE/DISPLAY QMODEL (the local-queue
attributes a model passes on, and DEFTYPE(TEMPDYN|PERMDYN); see :mod:`.dynamic`)."""

from __future__ import annotations

from collections.abc import Iterator

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
from dlqhandler.qmgr.embedded.objects import MODEL_ATTRS

__all__ = ["MODEL_COMMANDS", "display_models"]


def _define_model(cmd: Command, adm: AdminOf) -> Action:
    values, others = read_attrs(cmd, MODEL_ATTRS, extra=("LIKE", "REPLACE", "NOREPLACE"))
    like = others["LIKE"].single() if "LIKE" in others else None
    name = str(cmd.name)
    return then(
        lambda: adm().define_model(name, values, like=like, replace="REPLACE" in others),
        "AMQ8006I: IBM MQ queue created.",
    )


def display_models(cmd: Command, adm: AdminOf) -> Action:
    """DISPLAY QMODEL(pattern) [attributes | ALL], and DISPLAY QUEUE(...) TYPE(QMODEL)."""
    _, others = read_attrs(cmd, {}, extra=all_keywords(cmd))
    pattern = str(cmd.name)
    names = wanted(cmd, MODEL_ATTRS, {k: v for k, v in others.items() if k != "TYPE"}, ())
    if names is not None and not names:
        names = None  # no attributes: ALL

    def objects() -> Iterator[list[str]]:
        for rec in adm().models(pattern):
            yield [
                f"QUEUE({rec.name})",
                "TYPE(QMODEL)",
                *display_items(rec, MODEL_ATTRS, names, ()),
            ]

    return lambda: shown("AMQ8409I: Display Queue details.", objects(), pattern)


MODEL_COMMANDS: dict[tuple[str, str], Planner] = {
    ("DEFINE", "QMODEL"): _define_model,
    ("ALTER", "QMODEL"): alter(MODEL_ATTRS, Admin.alter_model, "AMQ8008I: IBM MQ queue changed."),
    ("DELETE", "QMODEL"): on_name(Admin.delete_model, "AMQ8007I: IBM MQ queue deleted."),
    ("DISPLAY", "QMODEL"): display_models,
}
