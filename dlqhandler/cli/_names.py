"""The MQ-name check of the names a user types (queues, queue managers), before use.

One rule (:mod:`dlqhandler.mq.names`, the one ``run`` applies to INPUTQ/INPUTQM)
for every option of ``drain`` and ``report`` that names a queue or a queue manager.
"""

from __future__ import annotations

import argparse

from dlqhandler.mq.names import validate_qmgr_name, validate_queue_name

__all__ = ["NAME_RULE", "names_problem"]

NAME_RULE = "not a valid MQ name (1-48 characters of A-Z a-z 0-9 . / _ %)"


def names_problem(args: argparse.Namespace, *, queues: dict[str, str],
                  qmgrs: dict[str, str]) -> str | None:
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
        return f"{exc}: {NAME_RULE}"
    return None
