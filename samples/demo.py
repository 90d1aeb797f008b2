"""`make demo`: the newest finished piece of dlqhandler, run end to end.

Today: build a few dead-lettered messages the way a queue manager does, in
several encodings and code pages, and decode them back with the MQDLH codec.
Later issues move this forward to the handler on the embedded queue manager.
"""

from __future__ import annotations

from dlqhandler.mq import MQMD, Message, decode_dead_letter
from dlqhandler.mq.constants import reason_name


def main() -> int:
    cases = [
        ("APP.ORDERS", 2053, 546, 1208),
        ("APP.BILLING", 2051, 273, 819),
        ("PAYROLL.IN", 2085, 785, 500),
        ("CICS.BRIDGE", 2035, 785, 1047),
    ]
    print(f"{'DestQName':<14}{'Reason':<30}{'Enc':>5}{'CCSID':>7}  payload")
    for dest, reason, enc, ccsid in cases:
        original = MQMD(format="MQSTR", persistence=1, coded_char_set_id=1208)
        msg = Message.dead_letter(original, f"order for {dest}".encode(), reason=reason,
                                  dest_q_name=dest, dest_q_mgr_name="QM1",
                                  encoding=enc, ccsid=ccsid)
        back = decode_dead_letter(msg.md, msg.body)
        assert back.dlh is not None
        print(f"{back.dlh.dest_q_name:<14}{reason_name(back.dlh.reason):<30}"
              f"{enc:>5}{ccsid:>7}  {back.strip_dead_letter_header().body.decode()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
