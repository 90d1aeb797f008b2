"""runmqsc's model queue commands: DEFINE/ALTER/DELETE/DISPLAY QMODEL (the local-queue
attributes a model passes on, and DEFTYPE(TEMPDYN|PERMDYN); see :mod:`.dynamic`)."""

from __future__ import annotations

from dlqhandler.qmgr.embedded.admin import Admin
from dlqhandler.qmgr.embedded.mqsc_attrs import (
    Planner,
    alter,
    define_queue_type,
    display_queue_type,
    on_name,
)
from dlqhandler.qmgr.embedded.objects import MODEL_ATTRS

__all__ = ["MODEL_COMMANDS", "display_models"]


_define_model = define_queue_type(MODEL_ATTRS, Admin.define_model)
# DISPLAY QMODEL(pattern) [attributes | ALL], and DISPLAY QUEUE(...) TYPE(QMODEL).
display_models = display_queue_type(MODEL_ATTRS, Admin.models, "QMODEL")


MODEL_COMMANDS: dict[tuple[str, str], Planner] = {
    ("DEFINE", "QMODEL"): _define_model,
    ("ALTER", "QMODEL"): alter(MODEL_ATTRS, Admin.alter_model, "AMQ8008I: IBM MQ queue changed."),
    ("DELETE", "QMODEL"): on_name(Admin.delete_model, "AMQ8007I: IBM MQ queue deleted."),
    ("DISPLAY", "QMODEL"): display_models,
}
