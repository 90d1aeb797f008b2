"""MQINQ selectors and the attribute values they return, as IBM's cmqc.h names them.

Only the ones ``dlqhandler check`` asks for: the queue manager's DEADQ and
MAXMSGL; a queue's type, limits, inhibits, sharing, trigger set-up and, for an
alias or remote definition, what it points at; a process's APPLICID. The
values are IBM's (Linux x64); a test compares every name here with the ``ibmmq``
package's ``CMQC`` when that package is installed.
"""

from __future__ import annotations

from typing import Final

# --- object types (MQOD.ObjectType) ---
MQOT_Q: Final = 1
MQOT_PROCESS: Final = 3
MQOT_Q_MGR: Final = 5

# --- character attribute selectors (MQCA_*) ---
MQCA_APPL_ID: Final = 2001
MQCA_BASE_Q_NAME: Final = 2002
MQCA_DEAD_LETTER_Q_NAME: Final = 2006
MQCA_INITIATION_Q_NAME: Final = 2008
MQCA_PROCESS_NAME: Final = 2012
MQCA_Q_DESC: Final = 2013
MQCA_Q_MGR_NAME: Final = 2015
MQCA_Q_NAME: Final = 2016
MQCA_REMOTE_Q_MGR_NAME: Final = 2017
MQCA_REMOTE_Q_NAME: Final = 2018
MQCA_BACKOUT_REQ_Q_NAME: Final = 2019
MQCA_TRIGGER_DATA: Final = 2023
MQCA_XMIT_Q_NAME: Final = 2024
MQCA_DEF_XMIT_Q_NAME: Final = 2025
MQCA_FIRST: Final = 2001
MQCA_LAST: Final = 4000

# --- integer attribute selectors (MQIA_*) ---
MQIA_APPL_TYPE: Final = 1
MQIA_CODED_CHAR_SET_ID: Final = 2
MQIA_CURRENT_Q_DEPTH: Final = 3
MQIA_DEF_INPUT_OPEN_OPTION: Final = 4
MQIA_DEF_PERSISTENCE: Final = 5
MQIA_DEF_PRIORITY: Final = 6
MQIA_DEFINITION_TYPE: Final = 7
MQIA_HARDEN_GET_BACKOUT: Final = 8
MQIA_INHIBIT_GET: Final = 9
MQIA_INHIBIT_PUT: Final = 10
MQIA_USAGE: Final = 12
MQIA_MAX_MSG_LENGTH: Final = 13
MQIA_MAX_Q_DEPTH: Final = 15
MQIA_OPEN_INPUT_COUNT: Final = 17
MQIA_MAX_UNCOMMITTED_MSGS: Final = 33
MQIA_Q_TYPE: Final = 20
MQIA_SHAREABILITY: Final = 23
MQIA_TRIGGER_CONTROL: Final = 24
MQIA_TRIGGER_INTERVAL: Final = 25
MQIA_TRIGGER_MSG_PRIORITY: Final = 26
MQIA_TRIGGER_TYPE: Final = 28
MQIA_TRIGGER_DEPTH: Final = 29
MQIA_PROPERTY_CONTROL: Final = 190

# --- values ---
MQQT_LOCAL: Final = 1
MQQT_MODEL: Final = 2
MQQT_ALIAS: Final = 3
MQQT_REMOTE: Final = 6
MQQT_CLUSTER: Final = 7
MQPER_NOT_PERSISTENT: Final = 0
MQPER_PERSISTENT: Final = 1
MQQDT_PREDEFINED: Final = 1
MQQDT_PERMANENT_DYNAMIC: Final = 2
MQQDT_TEMPORARY_DYNAMIC: Final = 3
MQQA_GET_ALLOWED: Final = 0
MQQA_GET_INHIBITED: Final = 1
MQQA_PUT_ALLOWED: Final = 0
MQQA_PUT_INHIBITED: Final = 1
MQQA_NOT_SHAREABLE: Final = 0
MQQA_SHAREABLE: Final = 1
MQQA_BACKOUT_NOT_HARDENED: Final = 0
MQQA_BACKOUT_HARDENED: Final = 1
MQOO_INPUT_SHARED: Final = 0x2
MQOO_INPUT_EXCLUSIVE: Final = 0x4
MQTC_OFF: Final = 0
MQTC_ON: Final = 1
MQTT_NONE: Final = 0
MQTT_FIRST: Final = 1
MQTT_EVERY: Final = 2
MQTT_DEPTH: Final = 3
MQUS_NORMAL: Final = 0
MQUS_TRANSMISSION: Final = 1
MQPROP_COMPATIBILITY: Final = 0
MQPROP_NONE: Final = 1
MQPROP_ALL: Final = 2
MQPROP_FORCE_MQRFH2: Final = 3
MQPROP_V6COMPAT: Final = 4
MQAT_UNIX: Final = 6

SELECTOR_NAMES: Final[dict[int, str]] = {
    value: name
    for name, value in sorted(globals().items())
    if name.startswith(("MQCA_", "MQIA_")) and not name.endswith(("_FIRST", "_LAST"))
}
