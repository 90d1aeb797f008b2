"""Whether a message group is whole (dlqhandler.mq.groups.is_complete), as `run`, the
drain's --apply and `dlqhandler test` decide it before moving a group."""

from __future__ import annotations

from dlqhandler.mq import MQMD, Message
from dlqhandler.mq.constants import MQMF_LAST_MSG_IN_GROUP, MQMF_MSG_IN_GROUP
from dlqhandler.mq.groups import is_complete


def _group(*members: tuple[int, int]) -> list[Message]:
    return [
        Message(MQMD(group_id=b"G" * 24, msg_seq_number=seq, msg_flags=flags), b"x")
        for seq, flags in members
    ]


def test_a_last_member_with_a_huge_sequence_number_is_a_group_not_whole() -> None:
    """MsgSeqNumber is the message's to say (an MQLONG): a two-member group whose last
    member says 2,147,483,647 is not whole, answered without a list of that many numbers
    (which took the handler's memory).
    IBM's "Grouping logical messages" (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/q026280_.html):
    a group's messages are numbered from 1."""
    assert not is_complete(_group((1, MQMF_MSG_IN_GROUP), (2**31 - 1, MQMF_LAST_MSG_IN_GROUP)))


def test_whole_groups_and_groups_with_a_member_missing_or_twice() -> None:
    """IBM's "Grouping logical messages"
    (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.1.0/com.ibm.mq.dev.doc/
    q026280_.html): a group's messages are numbered from 1, the last flagged
    MQMF_LAST_MSG_IN_GROUP; whole means each number from 1 to the last once."""
    member, last = MQMF_MSG_IN_GROUP, MQMF_LAST_MSG_IN_GROUP
    assert is_complete(_group((2, member), (1, member), (3, last)))
    assert is_complete(_group((1, last)))
    assert not is_complete(_group((1, member), (3, last)))
    assert not is_complete(_group((1, member), (1, member), (2, last)))
    assert not is_complete(_group((0, member), (1, last)))
    assert not is_complete(_group((1, member), (2, member)))
