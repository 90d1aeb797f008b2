"""MQSC: the parser's input conventions and runmqsc-shaped execution."""

from __future__ import annotations

import io

import pytest

from dlqhandler.mq import MQMD, Message
from dlqhandler.qmgr import EmbeddedQueueManager, PutOptions
from dlqhandler.qmgr.embedded.mqsc import MQSCSyntaxError, parse, split_commands
from dlqhandler.qmgr.embedded.runmqsc import MQSCResult, run_mqsc


def mqsc(qm: EmbeddedQueueManager, source: str, *, verify: bool = False) -> tuple[MQSCResult, str]:
    out = io.StringIO()
    result = run_mqsc(source, qm.admin(), out, qmgr_name=qm.name, verify=verify)
    return result, out.getvalue()


def test_continuations_comments_and_blank_lines() -> None:
    """'+' joins at the next line's first non-blank, '-' at its column 1; '*' lines and
    blank lines are skipped; each command keeps its first line number."""
    source = (
        "* comment\n\nDEFINE QLOCAL(A) +\n      MAXDEPTH(5)\n"
        "ALTER QLOCAL(A) -\n  DESCR('x')\nDISPLAY QMGR\n"
    )
    assert list(split_commands(source)) == [
        (3, "DEFINE QLOCAL(A) MAXDEPTH(5)"),
        (5, "ALTER QLOCAL(A)   DESCR('x')"),
        (7, "DISPLAY QMGR"),
    ]


def test_keywords_fold_case_and_quoted_values_do_not() -> None:
    """Keywords and unquoted values are upper-cased; quoted values keep case and ''."""
    cmd = parse("def ql(app.in) descr('It''s mine') usage(xmitq) , trigger")
    assert (cmd.verb, cmd.objtype, cmd.name) == ("DEFINE", "QLOCAL", "APP.IN")
    assert [(a.keyword, a.values) for a in cmd.attrs] == [
        ("DESCR", ("It's mine",)),
        ("USAGE", ("XMITQ",)),
        ("TRIGGER", None),
    ]


def test_parenthesised_values_may_follow_a_blank_and_hold_lists() -> None:
    """'KEY (v)' is 'KEY(v)'; lists separate with commas or blanks."""
    cmd = parse("SET AUTHREC PROFILE (Q1) PRINCIPAL('bob') AUTHADD(PUT, GET BROWSE)")
    assert cmd.attrs[0].values == ("Q1",)
    assert cmd.attrs[2].values == ("PUT", "GET", "BROWSE")


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("FROB QLOCAL(A)", "unknown command"),
        ("DEFINE CHANNEL(A)", "unsupported object type"),
        ("DEFINE QLOCAL", "needs a name"),
        ("DEFINE QLOCAL(A) DESCR('open", "unterminated"),
        ("DEFINE QLOCAL(A) MAXDEPTH(5", "missing ')'"),
        ("DEFINE QLOCAL(A) PUT(ENABLED) PUT(DISABLED)", "repeated"),
    ],
)
def test_syntax_errors_name_the_line_and_segment(source: str, problem: str) -> None:
    """Malformed commands raise MQSCSyntaxError with the line and the text up to the error."""
    with pytest.raises(MQSCSyntaxError) as exc:
        parse(source, 7)
    assert problem in exc.value.detail
    assert exc.value.line == 7
    assert source.startswith(exc.value.segment)


def test_define_display_in_runmqsc_shape(qm: EmbeddedQueueManager) -> None:
    """The echo, AMQ messages, two 40-character columns and the summary, as runmqsc."""
    result, out = mqsc(
        qm, "DEFINE QLOCAL(APP.IN)\nDEFINE QLOCAL(APP.OUT)\nDISPLAY QLOCAL(APP.*) CURDEPTH\n"
    )
    assert result.ok
    assert out.splitlines() == [
        "Starting MQSC for queue manager QM1.",
        "",
        "",
        "     1 : DEFINE QLOCAL(APP.IN)",
        "AMQ8006I: IBM MQ queue created.",
        "     2 : DEFINE QLOCAL(APP.OUT)",
        "AMQ8006I: IBM MQ queue created.",
        "     3 : DISPLAY QLOCAL(APP.*) CURDEPTH",
        "AMQ8409I: Display Queue details.",
        "   QUEUE(APP.IN)                           CURDEPTH(0)",
        "AMQ8409I: Display Queue details.",
        "   QUEUE(APP.OUT)                          CURDEPTH(0)",
        "3 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_attributes_are_stored_and_displayed(qm: EmbeddedQueueManager) -> None:
    """Every local-queue attribute, trigger ones included, is kept and shown by ALL."""
    result, out = mqsc(
        qm,
        """
        DEFINE QLOCAL(APP.T) MAXDEPTH(7) MAXMSGL(2048) PUT(DISABLED) GET(ENABLED) +
          DEFPRTY(4) DEFPSIST(YES) MSGDLVSQ(FIFO) USAGE(NORMAL) DESCR('Triggered queue') +
          TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(10) TRIGMPRI(3) TRIGDATA('go') +
          INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE) PROCESS(P1) BOTHRESH(3) BOQNAME(APP.BO) +
          HARDENBO
        DISPLAY QLOCAL(APP.T) ALL
    """,
    )
    assert result.ok, out
    for item in (
        "TYPE(QLOCAL)",
        "MAXDEPTH(7)",
        "MAXMSGL(2048)",
        "PUT(DISABLED)",
        "DEFPRTY(4)",
        "DEFPSIST(YES)",
        "MSGDLVSQ(FIFO)",
        "DESCR(Triggered queue)",
        "TRIGGER ",
        "TRIGTYPE(DEPTH)",
        "TRIGDPTH(10)",
        "TRIGMPRI(3)",
        "TRIGDATA(go)",
        "INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE)",
        "PROCESS(P1)",
        "BOTHRESH(3)",
        "BOQNAME(APP.BO)",
        " HARDENBO",
        "CURDEPTH(0)",
        "IPPROCS(0)",
        "OPPROCS(0)",
        "CRDATE(",
    ):
        assert item in out, item
    info = qm.inquire_queue("APP.T")
    assert (info.maxdepth, info.put_enabled, info.attributes["TRIGGER"]) == (7, False, "TRIGGER")
    assert info.attributes["HARDENBO"] == "HARDENBO"
    mqsc(qm, "ALTER QLOCAL(APP.T) NOTRIGGER PUT(ENABLED) NOHARDENBO")
    info = qm.inquire_queue("APP.T")
    assert (info.put_enabled, info.attributes["TRIGGER"], info.maxdepth) == (True, "NOTRIGGER", 7)
    assert info.attributes["HARDENBO"] == "NOHARDENBO"
    result, out = mqsc(qm, "DEFINE QLOCAL(APP.D)\nDISPLAY QLOCAL(APP.D) HARDENBO")
    assert result.ok, out
    assert "NOHARDENBO" in out, out  # IBM's default


def test_replace_like_purge_and_clear(qm: EmbeddedQueueManager) -> None:
    """DEFINE fails on an existing queue unless REPLACE; LIKE copies; DELETE needs PURGE
    when messages are there; CLEAR empties."""
    result, out = mqsc(
        qm,
        "DEFINE QLOCAL(A) MAXDEPTH(9)\nDEFINE QLOCAL(A)\n"
        "DEFINE QLOCAL(A) REPLACE MAXDEPTH(8)\nDEFINE QLOCAL(B) LIKE(A)\n",
    )
    assert "AMQ8150E: IBM MQ object already exists." in out
    assert [f.number for f in result.failures] == [2]
    assert qm.inquire_queue("B").maxdepth == 8
    for queue in ("A", "B"):
        qm.put1(queue, Message(MQMD(), b"x"), PutOptions(syncpoint=False))
    result, out = mqsc(
        qm,
        "DELETE QLOCAL(A)\nDELETE QLOCAL(A) PURGE\nCLEAR QLOCAL(B)\n"
        "DISPLAY QLOCAL(B) CURDEPTH\nDELETE QLOCAL(A)\n",
    )
    assert "AMQ8143E: IBM MQ queue A not empty." in out
    assert "AMQ8007I: IBM MQ queue deleted." in out
    assert "AMQ8022I: IBM MQ queue cleared." in out
    assert "CURDEPTH(0)" in out
    assert "AMQ8147E: IBM MQ object A not found." in out
    assert [f.number for f in result.failures] == [1, 5]


def test_clear_refuses_an_open_queue_or_uncommitted_messages(qm: EmbeddedQueueManager) -> None:
    """CLEAR and DELETE fail with AMQ8148E while the queue is open or has a unit of work."""
    mqsc(qm, "DEFINE QLOCAL(A)")
    q = qm.open("A")
    _, out = mqsc(qm, "CLEAR QLOCAL(A)\nDELETE QLOCAL(A) PURGE")
    assert out.count("AMQ8148E: IBM MQ object in use.") == 2
    q.close()
    qm.put1("A", Message(MQMD(), b"x"), PutOptions(syncpoint=True))
    _, out = mqsc(qm, "CLEAR QLOCAL(A)")
    assert "AMQ8148E" in out
    qm.commit()
    result, _ = mqsc(qm, "CLEAR QLOCAL(A)")
    assert result.ok


def test_qmgr_process_and_authrec_commands(qm: EmbeddedQueueManager) -> None:
    """ALTER/DISPLAY QMGR (DEADQ, TRIGINT), DEFINE PROCESS, SET/DISPLAY/DELETE AUTHREC."""
    result, out = mqsc(
        qm,
        """
        ALTER QMGR DEADQ(MY.DLQ) TRIGINT(60000)
        DISPLAY QMGR DEADQ TRIGINT
        DEFINE PROCESS(DLQ.HANDLER) APPLICID('/usr/bin/dlqhandler run') USERDATA('rules.tbl')
        DISPLAY PROCESS(DLQ.*) APPLICID
        SET AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(ALLMQI) +
            AUTHRMV(PUT)
        DISPLAY AUTHREC PRINCIPAL('bob')
        DELETE AUTHREC PROFILE(APP.**) OBJTYPE(QUEUE) PRINCIPAL('bob')
        PING QMGR
    """,
    )
    assert result.ok, out
    assert qm.inquire().dead_letter_q_name == "MY.DLQ"
    assert qm.inquire().extra["TRIGINT"] == "60000"
    assert "AMQ8408I: Display Queue Manager details." in out
    assert "   QMNAME(QM1)                             DEADQ(MY.DLQ)" in out
    assert "APPLICID(/usr/bin/dlqhandler run)" in out
    assert "AUTHLIST(ALTUSR,BROWSE,GET,INQ,PASSALL,PASSID,SET,SETALL,SETID)" in out
    assert "ENTITY(bob)" in out
    assert qm.admin().authrecs() == []
    assert qm.admin().processes()[0].attrs["USERDATA"] == "rules.tbl"


def test_authrec_on_the_queue_manager_object(qm: EmbeddedQueueManager) -> None:
    """SET AUTHREC OBJTYPE(QMGR) takes the queue manager's name as its profile (or none);
    ALLMQI grants only what applies to a queue manager (CONNECT, INQ, SET...: no GET, PUT,
    BROWSE), and to a queue only what applies to a queue (no CONNECT); DISPLAY AUTHREC
    OBJTYPE(QMGR) lists only those records; another PROFILE is refused. IBM, Authorities
    you can set on IBM MQ objects
    (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.0.0/com.ibm.mq.explorer.doc/o_authorities.htm):
    Connect "Allow the application to connect to the queue manager"."""
    result, out = mqsc(
        qm,
        """
        SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(ALLMQI)
        SET AUTHREC PROFILE(APP.*) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(ALLMQI)
        DISPLAY AUTHREC OBJTYPE(QMGR)
    """,
    )
    assert result.ok, out
    assert "AUTHLIST(ALTUSR,CONNECT,INQ,SET,SETALL,SETID)" in out
    assert out.count("PROFILE(APP.*)") == 1  # (the echoed command only)
    records = {r.objtype: r.authorities for r in qm.admin().authrecs()}
    assert records["QMGR"] == {"ALTUSR", "CONNECT", "INQ", "SET", "SETALL", "SETID"}
    assert "CONNECT" not in records["QUEUE"]
    assert "GET" in records["QUEUE"]
    result, out = mqsc(qm, "SET AUTHREC PROFILE(OTHER) OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(INQ)")
    assert not result.ok
    assert "OTHER not found" in out
    result, out = mqsc(qm, "DELETE AUTHREC PROFILE(QM1) OBJTYPE(QMGR) PRINCIPAL('bob')")
    assert result.ok, out
    assert [r.objtype for r in qm.admin().authrecs()] == ["QUEUE"]


def test_maxumsgs_is_shown_altered_and_checked(qm: EmbeddedQueueManager) -> None:
    """DISPLAY QMGR shows MAXUMSGS, IBM's default 10000; ALTER QMGR MAXUMSGS(n) sets it
    and 0 is refused. IBM's MaxUncommittedMsgs page (a copy at
    http://setgetweb.com/p/MQ90/ref.dev/q102540_.htm): "The lower limit for this
    attribute is 1; the upper limit is 999 999 999. The default value is 10000"."""
    result, out = mqsc(qm, "DISPLAY QMGR MAXUMSGS")
    assert result.ok, out
    assert "MAXUMSGS(10000)" in out
    result, out = mqsc(qm, "ALTER QMGR MAXUMSGS(0)")
    assert result.failed + result.syntax_errors == 1, out
    result, out = mqsc(qm, "ALTER QMGR MAXUMSGS(25)\nDISPLAY QMGR MAXUMSGS")
    assert result.ok, out
    assert "MAXUMSGS(25)" in out
    assert qm.inquire().extra["MAXUMSGS"] == "25"


def test_failures_make_the_summary_and_name_their_lines(qm: EmbeddedQueueManager) -> None:
    """Syntax errors and failed commands are counted apart, each with its line."""
    result, out = mqsc(
        qm,
        "DEFINE QLOCAL(A)\n\nDEFINE QLOCAL(B) MAXDEPTH(lots)\n"
        "ALTER QLOCAL(NOPE) MAXDEPTH(1)\nDEFINE QLOCAL(C) COLOUR(RED)\n",
    )
    assert (result.read, result.syntax_errors, result.failed) == (4, 2, 1)
    assert [(f.number, f.line, f.syntax) for f in result.failures] == [
        (2, 3, True),
        (3, 4, False),
        (4, 5, True),
    ]
    assert "AMQ8405I: Syntax error detected at or near end of command segment below:-" in out
    assert out.endswith(
        "4 MQSC commands read.\n2 commands have a syntax error.\n"
        "One valid MQSC command could not be processed.\n"
    )


def test_verify_mode_changes_nothing(qm: EmbeddedQueueManager) -> None:
    """runmqsc -v: commands are checked, not run; the summary has two lines."""
    result, out = mqsc(qm, "DEFINE QLOCAL(NEW.Q)\nDEFINE QLOCAL(X) MAXDEPTH(-1)\n", verify=True)
    assert (result.read, result.syntax_errors) == (2, 1)
    assert out.endswith("2 MQSC commands read.\nOne command has a syntax error.\n")
    assert qm.admin().queues("NEW.*") == []


def test_end_stops_reading(qm: EmbeddedQueueManager) -> None:
    """END ends the input; later commands are ignored."""
    result, out = mqsc(qm, "DEFINE QLOCAL(A)\nEND\nDEFINE QLOCAL(B)\n")
    assert result.read == 1
    assert "One MQSC command read." in out
    assert [r.name for r in qm.admin().queues("A*") + qm.admin().queues("B*")] == ["A"]


def test_display_where_and_generic_names(qm: EmbeddedQueueManager) -> None:
    """DISPLAY QUEUE(*) WHERE(CURDEPTH GT 0) shows only matching queues, with the filter."""
    mqsc(qm, "DEFINE QLOCAL(APP.A)\nDEFINE QLOCAL(APP.B)")
    qm.put1("APP.B", Message(MQMD(), b"x"), PutOptions(syncpoint=False))
    result, out = mqsc(
        qm, "DISPLAY QUEUE(APP.*) WHERE(CURDEPTH GT 0)\nDISPLAY QLOCAL(APP.*)\nDISPLAY QLOCAL(ZZZ*)"
    )
    assert "QUEUE(APP.B)                            TYPE(QLOCAL)" in out
    assert "CURDEPTH(1)" in out
    assert out.count("QUEUE(APP.A)") == 1
    assert "AMQ8147E: IBM MQ object ZZZ* not found." in out
    assert result.failed == 1


def test_propctl_is_defined_altered_and_displayed(qm: EmbeddedQueueManager) -> None:
    """PROPCTL: COMPAT by default (IBM's), each of IBM's values taken by DEFINE and ALTER
    and shown by DISPLAY; any other value is refused and names the choices."""
    result, out = mqsc(qm, "DEFINE QLOCAL(APP.P)\nDISPLAY QLOCAL(APP.P) PROPCTL")
    assert result.ok, out
    assert "PROPCTL(COMPAT)" in out, out
    for value in ("ALL", "FORCE", "NONE", "V6COMPAT", "COMPAT"):
        result, out = mqsc(
            qm, f"ALTER QLOCAL(APP.P) PROPCTL({value.lower()})\nDISPLAY QLOCAL(APP.P) PROPCTL"
        )
        assert result.ok, out
        assert f"PROPCTL({value})" in out, out
        assert qm.inquire_queue("APP.P").attributes["PROPCTL"] == value
    result, out = mqsc(qm, "DEFINE QLOCAL(APP.Q) PROPCTL(SOME)")
    assert not result.ok
    assert "ALL, COMPAT, FORCE, NONE, V6COMPAT" in out, out


def test_share_and_defsopt_are_defined_altered_and_displayed(qm: EmbeddedQueueManager) -> None:
    """SHARE/NOSHARE and DEFSOPT(SHARED|EXCL): IBM's defaults SHARE and DEFSOPT(SHARED),
    each value taken by DEFINE and ALTER and shown by DISPLAY (the flag as its bare keyword);
    DEFSOPT with another value, or SHARE with a value, is refused and names the problem.

    IBM, DEFINE QLOCAL (https://www.ibm.com/support/knowledgecenter/SSFKSJ_9.4.0/refadmin/q085710_.html):
    "Values shown above the main line in the syntax diagram are the defaults supplied with
    IBM MQ", DEFSOPT(SHARED) marked "Default for Multiplatforms"; ALTER QLOCAL
    (https://www.ibm.com/docs/ja/SSFKSJ_9.3.0/refadmin/q085350_.html) takes
    "DEFSOPT(EXCLSHARED)" and "NOSHARESHARE"."""
    result, out = mqsc(qm, "DEFINE QLOCAL(APP.S)\nDISPLAY QLOCAL(APP.S) SHARE DEFSOPT")
    assert result.ok, out
    assert "DEFSOPT(SHARED)" in out, out
    assert "   SHARE" in out, out
    result, out = mqsc(
        qm, "ALTER QLOCAL(APP.S) NOSHARE DEFSOPT(excl)\nDISPLAY QLOCAL(APP.S) SHARE DEFSOPT"
    )
    assert result.ok, out
    assert "DEFSOPT(EXCL)" in out, out
    assert "NOSHARE" in out, out
    attributes = qm.inquire_queue("APP.S").attributes
    assert (attributes["SHARE"], attributes["DEFSOPT"]) == ("NOSHARE", "EXCL")
    result, out = mqsc(qm, "DEFINE QLOCAL(APP.T) DEFSOPT(BOTH)\nDEFINE QLOCAL(APP.U) SHARE(YES)")
    assert len(result.failures) == 2, out
    assert "must be one of SHARED, EXCL" in out, out
    assert "SHARE takes no value" in out, out


def test_qmodel_is_defined_altered_displayed_and_deleted(qm: EmbeddedQueueManager) -> None:
    """DEFINE QMODEL takes DEFTYPE (TEMPDYN by default, as IBM's default model) and the
    local-queue attributes; ALTER changes them, DISPLAY QMODEL and DISPLAY QUEUE TYPE(QMODEL)
    show them, DELETE removes the model. A model's name is taken for every queue type (and
    the reverse): AMQ8150E; DEFTYPE with another value is refused naming the choices.

    IBM, Working with model queues (https://www.ibm.com/support/knowledgecenter/en/SSFKSJ_9.0.0/com.ibm.mq.adm.doc/q020830_.html):
    "You can use the appropriate MQSC commands to display or alter a model queue's
    attributes, or to delete the model queue object"."""
    result, out = mqsc(
        qm,
        "DEFINE QMODEL(APP.MODEL) MAXDEPTH(10) DESCR('replies')\n"
        "DISPLAY QMODEL(APP.MODEL) DEFTYPE MAXDEPTH DESCR",
    )
    assert result.ok, out
    for item in ("TYPE(QMODEL)", "DEFTYPE(TEMPDYN)", "MAXDEPTH(10)", "DESCR(replies)"):
        assert item in out, out
    result, out = mqsc(
        qm, "ALTER QMODEL(APP.MODEL) DEFTYPE(PERMDYN)\nDISPLAY QUEUE(APP.*) TYPE(QMODEL) DEFTYPE"
    )
    assert result.ok, out
    assert "DEFTYPE(PERMDYN)" in out, out
    result, out = mqsc(
        qm,
        "DEFINE QLOCAL(APP.MODEL)\nDEFINE QALIAS(APP.MODEL) TARGET(X)\n"
        "DEFINE QLOCAL(APP.L)\nDEFINE QMODEL(APP.L)\nDEFINE QMODEL(APP.M2) DEFTYPE(SHAREDYN)",
    )
    assert len(result.failures) == 4, out
    assert out.count("AMQ8150E") == 3, out
    assert "must be one of TEMPDYN, PERMDYN" in out, out
    result, out = mqsc(qm, "DELETE QMODEL(APP.MODEL)\nDISPLAY QMODEL(APP.MODEL)")
    assert "AMQ8007I" in out, out
    assert "AMQ8147E" in out, out


def test_display_queue_without_type_lists_every_queue_type(qm: EmbeddedQueueManager) -> None:
    """DISPLAY QUEUE(pattern) without TYPE, and with TYPE(ALL), lists the local, alias,
    remote and model queues that match, by name, each with its TYPE and only the asked-for
    attributes its type has; a WHERE on a local-queue attribute leaves the other types out;
    DISPLAY QLOCAL still lists local queues only.

    IBM, DISPLAY QUEUE (https://www.ibm.com/docs/en/SSFKSJ_9.2.0/com.ibm.mq.ref.adm.doc/q086270_.html):
    "display the attributes of one or more queues of any type", and TYPE(ALL) is the
    default of its TYPE(ALL|QLOCAL|QMODEL|QALIAS|QREMOTE|QCLUSTER) parameter."""
    result, out = mqsc(
        qm,
        "DEFINE QLOCAL(APP.D)\nDEFINE QALIAS(APP.A) TARGET(APP.D)\n"
        "DEFINE QREMOTE(APP.C) RNAME(X) RQMNAME(QM2) XMITQ(APP.D)\n"
        "DEFINE QMODEL(APP.B)\nDEFINE QLOCAL(OTHER)",
    )
    assert result.ok, out
    for command in ("DISPLAY QUEUE(APP.*) DESCR", "DISPLAY QUEUE(APP.*) TYPE(ALL) DESCR"):
        result, out = mqsc(qm, command)
        assert result.ok, out
        heads = [line.split()[0] for line in out.splitlines() if line.startswith("   QUEUE(")]
        assert heads == ["QUEUE(APP.A)", "QUEUE(APP.B)", "QUEUE(APP.C)", "QUEUE(APP.D)"], out
        for kind in ("QALIAS", "QMODEL", "QREMOTE", "QLOCAL"):
            assert f"TYPE({kind})" in out, out
        assert out.count("DESCR( )") == 4, out
    result, out = mqsc(qm, "DISPLAY QUEUE(APP.*) RNAME TARGET")
    assert "RNAME(X)" in out, out
    assert "TARGET(APP.D)" in out, out
    assert (out.count("RNAME("), out.count("TARGET(")) == (1, 1), out
    result, out = mqsc(qm, "DISPLAY QUEUE(APP.*) WHERE(CURDEPTH EQ 0)")
    assert "QUEUE(APP.D)" in out, out
    assert "APP.A" not in out, out
    assert "APP.C" not in out, out
    result, out = mqsc(qm, "DISPLAY QLOCAL(APP.*)")
    assert "QUEUE(APP.D)" in out, out
    assert "APP.A" not in out, out
    assert "APP.B" not in out, out
