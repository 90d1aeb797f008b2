"""Which MQI options the stand-in honours, and the reason it gives for those it does not.

IBM's rule for an option field: a bit the call does not define, or "a combination of
options that is not valid", is MQRC_OPTIONS_ERROR (2046). The stand-in answers the same
for an option IBM defines but the stand-in cannot honour: it is refused before the call
does anything, never accepted and ignored. :data:`REFUSED` names each such option and
why (docs/ibmmq.md lists them; ``tests/mqi/test_options.py`` holds the two together).
Options accepted that have no effect here have the reason said in :data:`NO_EFFECT`.
"""

from __future__ import annotations

from dlqhandler.errors import MQIError
from dlqhandler.mq.constants import (
    MQRC_GMO_ERROR,
    MQRC_MATCH_OPTIONS_ERROR,
    MQRC_OD_ERROR,
    MQRC_OPTION_NOT_VALID_FOR_TYPE,
    MQRC_OPTIONS_ERROR,
    MQRC_PMO_ERROR,
    MQRC_WAIT_INTERVAL_ERROR,
)
from dlqhandler.qmgr.embedded.dynamic import CloseDelete
from tests.mqi.cmqc import CMQC
from tests.mqi.structs import MQGMO, MQOD, MQPMO, raw

__all__ = ["NO_EFFECT", "REFUSED", "check_close", "check_gmo", "check_open", "check_pmo"]

# (call, option name, value, reason, why)
REFUSED: tuple[tuple[str, str, int, int, str], ...] = (
    ("MQGET", "MQGMO_SET_SIGNAL", 0x8, 2046, "z/OS only (IBM refuses it elsewhere)"),
    (
        "MQGET",
        "MQGMO_MARK_SKIP_BACKOUT",
        0x80,
        2046,
        "the embedded unit of work has no skip-backout mark",
    ),
    (
        "MQGET",
        "MQGMO_SYNCPOINT_IF_PERSISTENT",
        0x1000,
        2046,
        "the port chooses syncpoint before it knows the message's persistence",
    ),
    ("MQGET", "MQGMO_MARK_BROWSE_HANDLE", 0x100000, 2046, "no browse marks"),
    ("MQGET", "MQGMO_MARK_BROWSE_CO_OP", 0x200000, 2046, "no cooperative browsing"),
    ("MQGET", "MQGMO_UNMARK_BROWSE_CO_OP", 0x400000, 2046, "no cooperative browsing"),
    ("MQGET", "MQGMO_UNMARK_BROWSE_HANDLE", 0x800000, 2046, "no browse marks"),
    ("MQGET", "MQGMO_UNMARKED_BROWSE_MSG", 0x1000000, 2046, "no browse marks"),
    (
        "MQGET",
        "MQMO_MATCH_MSG_SEQ_NUMBER",
        0x8,
        2247,
        "the port matches MsgId, CorrelId and GroupId only (MQRC_MATCH_OPTIONS_ERROR)",
    ),
    ("MQGET", "MQMO_MATCH_OFFSET", 0x10, 2247, "as MQMO_MATCH_MSG_SEQ_NUMBER"),
    ("MQGET", "MQMO_MATCH_MSG_TOKEN", 0x20, 2247, "no message tokens"),
    (
        "MQPUT1",
        "MQPMO_LOGICAL_ORDER",
        0x8000,
        2046,
        "no queue handle keeps the group status (IBM: with MQPUT1 the application sets GroupId)",
    ),
    ("MQPUT", "MQPMO_ASYNC_RESPONSE", 0x10000, 2046, "every put is synchronous"),
    (
        "MQPUT",
        "MQPMO_MD_FOR_OUTPUT_ONLY",
        0x800000,
        2046,
        "the MQMD is always input (no descriptor from message handles)",
    ),
    ("MQPUT", "MQPMO_RETAIN", 0x200000, 2046, "publish/subscribe"),
    ("MQPUT", "MQPMO_WARN_IF_NO_SUBS_MATCHED", 0x80000, 2046, "publish/subscribe"),
    ("MQPUT", "MQPMO_SUPPRESS_REPLYTO", 0x8000000, 2046, "publish/subscribe"),
    ("MQPUT", "MQPMO_SCOPE_QMGR", 0x4000000, 2046, "publish/subscribe"),
    ("MQPUT", "MQPMO_NOT_OWN_SUBS", 0x10000000, 2046, "publish/subscribe"),
    ("MQOPEN", "MQOO_CO_OP", 0x20000, 2046, "no cooperative browsing"),
    ("MQCLOSE", "MQCO_QUIESCE", 0x20, 2046, "no reconnectable quiesce"),
    ("MQCLOSE", "MQCO_KEEP_SUB", 0x4, 2045, "no subscriptions (a queue handle)"),
    ("MQCLOSE", "MQCO_REMOVE_SUB", 0x8, 2045, "no subscriptions (a queue handle)"),
)

# Accepted, with nothing to do here (as on IBM MQ for a local, non-clustered queue).
NO_EFFECT = {
    "MQGMO_FAIL_IF_QUIESCING": "the embedded queue manager never quiesces",
    "MQPMO_FAIL_IF_QUIESCING": "the embedded queue manager never quiesces",
    "MQOO_FAIL_IF_QUIESCING": "the embedded queue manager never quiesces",
    "MQPMO_SYNC_RESPONSE": "every put is synchronous",
    "MQPMO_RESOLVE_LOCAL_Q": "ResolvedQName is the local queue's",
    "MQOO_BIND_ON_OPEN": "no clusters",
    "MQOO_BIND_NOT_FIXED": "no clusters",
    "MQOO_BIND_ON_GROUP": "no clusters",
    "MQOO_RESOLVE_NAMES": "ResolvedQName is always set (MQOD version 3)",
    "MQOO_RESOLVE_LOCAL_Q": "ResolvedQName is always set (MQOD version 3)",
    "MQOO_NO_READ_AHEAD": "a bindings connection reads no messages ahead",
    "MQOO_READ_AHEAD": "a bindings connection reads no messages ahead",
    "MQOO_NO_MULTICAST": "no multicast",
}

_GMO_OK = (
    CMQC.MQGMO_WAIT
    | CMQC.MQGMO_SYNCPOINT
    | CMQC.MQGMO_NO_SYNCPOINT
    | CMQC.MQGMO_BROWSE_FIRST
    | CMQC.MQGMO_BROWSE_NEXT
    | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
    | CMQC.MQGMO_MSG_UNDER_CURSOR
    | CMQC.MQGMO_LOCK
    | CMQC.MQGMO_UNLOCK
    | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR
    | CMQC.MQGMO_FAIL_IF_QUIESCING
    | CMQC.MQGMO_CONVERT
    | CMQC.MQGMO_LOGICAL_ORDER
    | CMQC.MQGMO_ALL_MSGS_AVAILABLE
    | CMQC.MQGMO_COMPLETE_MSG
    | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
    | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2
    | CMQC.MQGMO_NO_PROPERTIES
    | CMQC.MQGMO_PROPERTIES_IN_HANDLE
    | CMQC.MQGMO_PROPERTIES_COMPATIBILITY
)
_MO_OK = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID | CMQC.MQMO_MATCH_GROUP_ID
_PMO_OK = (
    CMQC.MQPMO_SYNCPOINT
    | CMQC.MQPMO_NO_SYNCPOINT
    | CMQC.MQPMO_DEFAULT_CONTEXT
    | CMQC.MQPMO_NEW_MSG_ID
    | CMQC.MQPMO_NEW_CORREL_ID
    | CMQC.MQPMO_PASS_IDENTITY_CONTEXT
    | CMQC.MQPMO_PASS_ALL_CONTEXT
    | CMQC.MQPMO_SET_IDENTITY_CONTEXT
    | CMQC.MQPMO_SET_ALL_CONTEXT
    | CMQC.MQPMO_ALTERNATE_USER_AUTHORITY
    | CMQC.MQPMO_FAIL_IF_QUIESCING
    | CMQC.MQPMO_NO_CONTEXT
    | CMQC.MQPMO_LOGICAL_ORDER
    | 0x20000  # MQPMO_SYNC_RESPONSE
    | 0x40000  # MQPMO_RESOLVE_LOCAL_Q
)
_OO_OK = (
    CMQC.MQOO_INPUT_AS_Q_DEF
    | CMQC.MQOO_INPUT_SHARED
    | CMQC.MQOO_INPUT_EXCLUSIVE
    | CMQC.MQOO_BROWSE
    | CMQC.MQOO_OUTPUT
    | CMQC.MQOO_INQUIRE
    | CMQC.MQOO_SET
    | CMQC.MQOO_SAVE_ALL_CONTEXT
    | CMQC.MQOO_PASS_IDENTITY_CONTEXT
    | CMQC.MQOO_PASS_ALL_CONTEXT
    | CMQC.MQOO_SET_IDENTITY_CONTEXT
    | CMQC.MQOO_SET_ALL_CONTEXT
    | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    | CMQC.MQOO_FAIL_IF_QUIESCING
    | 0x4000  # MQOO_BIND_ON_OPEN
    | 0x8000  # MQOO_BIND_NOT_FIXED
    | 0x10000  # MQOO_RESOLVE_NAMES
    | 0x40000  # MQOO_RESOLVE_LOCAL_Q
    | 0x80000  # MQOO_NO_READ_AHEAD
    | 0x100000  # MQOO_READ_AHEAD
    | 0x200000  # MQOO_NO_MULTICAST
    | 0x400000  # MQOO_BIND_ON_GROUP
)
# Options valid on the queue manager object (MQOT_Q_MGR): IBM gives 2045 for the others.
_QMGR_OO = (
    CMQC.MQOO_INQUIRE
    | CMQC.MQOO_SET
    | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
    | CMQC.MQOO_FAIL_IF_QUIESCING
    | 0x10000  # MQOO_RESOLVE_NAMES
)
_INPUTS = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE
_PROPERTY_OPTIONS = (
    CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2
    | CMQC.MQGMO_NO_PROPERTIES
    | CMQC.MQGMO_PROPERTIES_IN_HANDLE
    | CMQC.MQGMO_PROPERTIES_COMPATIBILITY
)


def _fail(reason: int, why: str) -> MQIError:
    return MQIError(reason, why, comp=CMQC.MQCC_FAILED)


def _one_of(options: int, group: int) -> None:
    chosen = options & group
    if chosen & (chosen - 1):
        raise _fail(MQRC_OPTIONS_ERROR, "more than one option of a group")


def check_gmo(gmo: MQGMO) -> None:
    """MQGMO: its StrucId and Version (2186), Options (2046), MatchOptions (2247) and
    WaitInterval (2090), before the get does anything."""
    if raw(gmo, "StrucId") != b"GMO " or not 1 <= gmo.Version <= 4:
        raise _fail(MQRC_GMO_ERROR, "not an MQGMO version 1 to 4")
    o = gmo.Options
    if o & ~_GMO_OK:
        raise _fail(MQRC_OPTIONS_ERROR, f"MQGMO options {o & ~_GMO_OK:#x}")
    _one_of(o, _PROPERTY_OPTIONS)
    if gmo.Version >= 2 and gmo.MatchOptions & ~_MO_OK:
        raise _fail(MQRC_MATCH_OPTIONS_ERROR, f"MatchOptions {gmo.MatchOptions:#x}")
    if o & CMQC.MQGMO_WAIT and gmo.WaitInterval < 0 and gmo.WaitInterval != CMQC.MQWI_UNLIMITED:
        raise _fail(MQRC_WAIT_INTERVAL_ERROR, f"WaitInterval {gmo.WaitInterval}")


def check_pmo(pmo: MQPMO) -> None:
    """MQPMO: its StrucId and Version (2173) and Options (2046)."""
    if raw(pmo, "StrucId") != b"PMO " or not 1 <= pmo.Version <= 3:
        raise _fail(MQRC_PMO_ERROR, "not an MQPMO version 1 to 3")
    if pmo.Options & ~_PMO_OK:
        raise _fail(MQRC_OPTIONS_ERROR, f"MQPMO options {pmo.Options & ~_PMO_OK:#x}")


def check_open(od: MQOD, options: int) -> None:
    """MQOPEN: the MQOD (2044), the options (2046: unknown, refused or more than one
    input option) and, for the queue manager object, IBM's 2045."""
    if raw(od, "StrucId") != b"OD  " or not 1 <= od.Version <= 4:
        raise _fail(MQRC_OD_ERROR, "not an MQOD version 1 to 4")
    if options & ~_OO_OK:
        raise _fail(MQRC_OPTIONS_ERROR, f"MQOO options {options & ~_OO_OK:#x}")
    _one_of(options, _INPUTS)
    if od.ObjectType == CMQC.MQOT_Q_MGR and options & ~_QMGR_OO:
        raise _fail(MQRC_OPTION_NOT_VALID_FOR_TYPE, "not an option of the queue manager object")


def check_close(options: int) -> CloseDelete:
    """MQCLOSE: MQCO_NONE, or one of MQCO_DELETE / MQCO_DELETE_PURGE (whether the queue
    may be deleted is the queue manager's to say: 2045 on a predefined queue, 2055...);
    the subscription options are IBM's 2045 on a queue handle, the rest 2046."""
    if options & ~0xF or (options & 0x3) == 0x3:
        raise _fail(MQRC_OPTIONS_ERROR, f"MQCO options {options:#x}")
    if options & 0xC:
        raise _fail(MQRC_OPTION_NOT_VALID_FOR_TYPE, "no subscription here")
    return "delete" if options & 0x1 else "purge" if options & 0x2 else ""
