"""``dlqhandler check``: is a queue manager set up so dead letters can be handled at all?

:func:`check_setup` asks the queue manager through the ``QueueManager`` port and
returns a :class:`SetupReport` of :class:`Finding` s; :func:`render_text` and
:func:`render_json` show it. :func:`require_status_queue` raises the one wording of a
missing status queue (:func:`missing_status_queue`), used by ``run`` and ``drain`` too.

It may import outcomes, acting, rules, qmgr (the port, never an adapter), mq and errors;
never worker, spark or cli.
"""

from dlqhandler.check.findings import SEVERITIES, Finding, SetupReport, Severity, worst
from dlqhandler.check.render import render_json, render_text
from dlqhandler.check.setup import check_setup
from dlqhandler.check.status import (
    STATUS_QUEUE_WHY,
    missing_status_queue,
    require_status_queue,
    status_queue_mqsc,
)
from dlqhandler.check.table import RulesTable

__all__ = [
    "SEVERITIES",
    "STATUS_QUEUE_WHY",
    "Finding",
    "RulesTable",
    "SetupReport",
    "Severity",
    "check_setup",
    "missing_status_queue",
    "render_json",
    "render_text",
    "require_status_queue",
    "status_queue_mqsc",
    "worst",
]
