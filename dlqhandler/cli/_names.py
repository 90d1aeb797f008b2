"""The MQ-name check of the names a user types (queues, queue managers), before use.

One rule (:mod:`dlqhandler.mq.names`, the one ``run`` applies to INPUTQ/INPUTQM)
for every option of ``drain`` and ``report`` that names a queue or a queue manager.
"""

from __future__ import annotations

import argparse

from dlqhandler.mq.names import NAME_RULE, validate_qmgr_name, validate_queue_name

__all__ = ["names_problem"]


def names_problem(
    args: argparse.Namespace, *, queues: dict[str, str], qmgrs: dict[str, str]
) -> str | None:
    """Why a name given on the command line cannot be an MQ name, or None.

    ``queues`` and ``qmgrs`` map an ``args`` attribute to its option (``"catch_all":
    "--catch-all"``); an option not given (None) is not checked.
    """
    try:
        for attr, flag in queues.items():
            value = getattr(args, attr, None)
            if value is not None:
                validate_queue_name(value, flag)
        for attr, flag in qmgrs.items():
            value = getattr(args, attr, None)
            if value is not None:
                validate_qmgr_name(value.strip(), flag)
    except ValueError as exc:
        return f"{exc}: not a valid MQ name ({NAME_RULE})"
    return None
