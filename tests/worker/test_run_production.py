"""`dlqhandler run` in production: metrics and health, selectors, --max-rate, IBM MQ backend.

The metrics are scraped over HTTP from a real handler process; selectors and
the IBM MQ backend run the CLI in-process; --max-rate is checked with a fake
clock in the token bucket (never by wall-clock bounds).
"""

from __future__ import annotations

import calendar
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from dlqhandler.cli.exitcodes import ExitCode
from dlqhandler.mq.ages import put_at
from dlqhandler.qmgr import connect
from dlqhandler.rules import compile_rules
from dlqhandler.worker import Handler, HandlerOptions
from dlqhandler.worker.metrics import HandlerMetrics, MetricsServer
from dlqhandler.worker.selection import RateLimiter
from tests.worker.helpers import (
    DLQ,
    MQ_ENV,
    ROOT,
    STATUS,
    Ledger,
    RunCli,
    browse,
    dead_letter,
    define,
    depth,
    json_events,
    load,
    mqsc,
    start_handler,
    terminate,
    until,
)


def _get(url: str) -> tuple[int, str]:
    """(status, body) of a GET; HTTP errors are answers too."""
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class FakeClock:
    """Monotonic seconds that move only when the limiter sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# -- metrics from a real handler process ---------------------------------------------------
RULES = (
    "RETRYINT(60) WAIT(YES)\n"
    "DESTQ(APP.*) ACTION(FWD) FWDQ(CATCH)\n"
    "DESTQ(BLK.*) ACTION(FWD) FWDQ(BLOCKED)\n"
    "DESTQ(OLD.*) ACTION(DISCARD)\n"
)
RELOADED = RULES.replace("FWDQ(CATCH)", "FWDQ(CATCH2)")
BROKEN = "RETRYINT(60) WAIT(MAYBE)\nACTION(FWDD)\n"


def test_metrics_health_and_reloads_of_a_running_handler(home, qm, tmp_path: Path) -> None:
    """--metrics-port 0 serves on a free port (logged): the message counter matches what
    was done per rule line, action and outcome; a put to a PUT(DISABLED) queue shows as
    a failure with reason 2051; DLQ depth and oldest age are sampled; /readyz and
    /healthz answer 200 while running; a good reload and a refused one are counted and
    the table hash in force follows the good one."""
    define(qm, "CATCH", "CATCH2")
    define(qm, "BLOCKED", put="DISABLED")
    load(
        qm,
        [dead_letter(f"app{i}", destq="APP.Q") for i in range(3)]
        + [dead_letter("blocked", destq="BLK.Q")],
    )
    old = load(qm, [dead_letter(f"old{i}", destq="OLD.Q") for i in range(2)])
    book = Ledger.of(qm)
    rules = tmp_path / "prod.rul"
    rules.write_text(RULES)
    log = tmp_path / "handler.log"
    child = start_handler(home, rules, "--no-watch", "--metrics-port", "0", log=log)
    try:
        until(
            lambda: [e for e in json_events(log) if e["event"] == "metrics_started"],
            "the metrics server did not start",
        )
        [started] = [e for e in json_events(log) if e["event"] == "metrics_started"]
        assert started["port"] > 0
        base = f"http://127.0.0.1:{started['port']}"
        expected = [
            'dlqhandler_messages_total{action="FWD",outcome="ok",rule_line="2"} 3.0',
            'dlqhandler_messages_total{action="FWD",outcome="failed",rule_line="3"} 1.0',
            'dlqhandler_messages_total{action="DISCARD",outcome="ok",rule_line="4"} 2.0',
            'dlqhandler_put_failures_total{reason="2051"} 1.0',
            "dlqhandler_dlq_depth 1.0",
            f'dlqhandler_rules_info{{sha256="{_sha(RULES)}"}} 1.0',
        ]
        until(
            lambda: all(line in _get(base + "/metrics")[1] for line in expected),
            "the counters do not match what was processed",
        )
        assert _get(base + "/readyz") == (200, "ready\n")
        assert _get(base + "/healthz") == (200, "ok\n")
        text = _get(base + "/metrics")[1]
        [age] = [
            line
            for line in text.splitlines()
            if line.startswith("dlqhandler_dlq_oldest_message_age_seconds ")
        ]
        dead_lettered = put_at("20241121", "06000100")
        assert dead_lettered is not None
        assert float(age.split()[1]) >= time.time() - dead_lettered - 3600
        assert "APP.Q" not in text  # no queue names in labels
        assert "BLOCKED" not in text

        rules.write_text(RELOADED)
        child.send_signal(signal.SIGHUP)
        until(
            lambda: (
                'dlqhandler_rules_reloads_total{result="success"} 1.0' in _get(base + "/metrics")[1]
            ),
            "the good reload was not counted",
        )
        rules.write_text(BROKEN)
        child.send_signal(signal.SIGHUP)
        until(
            lambda: (
                'dlqhandler_rules_reloads_total{result="failure"} 1.0' in _get(base + "/metrics")[1]
            ),
            "the refused reload was not counted",
        )
        text = _get(base + "/metrics")[1]
        assert f'dlqhandler_rules_info{{sha256="{_sha(RELOADED)}"}} 1.0' in text
        assert _sha(RULES) not in text
        assert _sha(BROKEN) not in text
    finally:
        out = terminate(child, timeout=30)
    assert child.returncode == 6, out  # PARTIAL: the BLK.Q message could not be forwarded
    book.check(["CATCH", "CATCH2", "BLOCKED"], discarded=[m.md.msg_id for m in old])


def test_readyz_is_not_ready_until_connected_and_healthz_sees_a_stuck_loop() -> None:
    """/readyz is 503 until the handler is connected with a table loaded; /healthz turns
    503 when the loop has not beaten for ``stuck_after_s`` (a fake clock moves time)."""
    clock = [1000.0]
    metrics = HandlerMetrics(clock=lambda: clock[0], stuck_after_s=120)
    server = MetricsServer(metrics, 0).start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        assert _get(base + "/readyz")[0] == 503
        assert _get(base + "/healthz")[0] == 200  # alive before the loop starts
        metrics.connected = True
        metrics.rules("ab" * 32)
        metrics.beat()
        assert _get(base + "/readyz")[0] == 200
        clock[0] += 120
        assert _get(base + "/healthz")[0] == 200
        clock[0] += 1
        assert _get(base + "/healthz") == (503, "stuck\n")
        metrics.beat()
        assert _get(base + "/healthz")[0] == 200
    finally:
        server.stop()


def test_an_unusable_metrics_port_is_a_usage_error(qm, run_cli: RunCli) -> None:
    """A port out of range is refused before anything is touched."""
    load(qm, [dead_letter("stays")])
    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", "--metrics-port", "70000")
    assert run.rc == ExitCode.USAGE
    assert "--metrics-port" in run.err
    assert depth(qm, DLQ) == 1


def test_dead_letter_time_is_the_mqdlh_put_date_and_time_in_gmt() -> None:
    """PutDate/PutTime (GMT, hundredths) become Unix seconds; blanks give None."""
    expected = calendar.timegm((2024, 11, 21, 6, 0, 1, 0, 0, 0)) + 0.25
    assert put_at("20241121", "06000125") == expected
    assert put_at("", "") is None
    assert put_at("2024112X", "06000125") is None


# -- selectors ------------------------------------------------------------------------------
def test_msgid_moves_exactly_that_message_in_one_pass(qm, run_cli: RunCli) -> None:
    """--msgid acts on that message only; the others stay on the DLQ byte-identical with
    no attempt counted, and the run ends after one pass although the table says WAIT(30)."""
    define(qm, "CATCH")
    messages = load(qm, [dead_letter(f"m{i}") for i in range(3)])
    book = Ledger.of(qm)
    chosen = messages[1]

    run = run_cli(
        "RETRYINT(5) WAIT(30)\nACTION(FWD) FWDQ(CATCH)\n", "--msgid", chosen.md.msg_id.hex()
    )

    assert run.rc == ExitCode.OK
    [ended] = run.events("handler_ended")
    assert ended["reason"] == "selection_done"
    assert [m.md.msg_id for m in browse(qm, "CATCH")] == [chosen.md.msg_id]
    assert run.summary("not selected") == 2
    assert depth(qm, STATUS) == 0
    per_queue = book.check(["CATCH"])
    assert [m.md.msg_id for m in per_queue[DLQ]] == [messages[0].md.msg_id, messages[2].md.msg_id]


def test_match_selects_by_the_rules_language(qm, run_cli: RunCli) -> None:
    """--match 'REASON(MQRC_Q_FULL)' moves the queue-full messages and leaves the others."""
    define(qm, "CATCH")
    full = load(qm, [dead_letter(f"full{i}", reason=2053) for i in range(2)])
    others = load(qm, [dead_letter("inhibited", reason=2051), dead_letter("unknown", reason=2085)])
    book = Ledger.of(qm)

    run = run_cli("WAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n", "--match", "REASON(MQRC_Q_FULL)")

    assert run.rc == ExitCode.OK
    assert {m.md.msg_id for m in browse(qm, "CATCH")} == {m.md.msg_id for m in full}
    per_queue = book.check(["CATCH"])
    assert {m.md.msg_id for m in per_queue[DLQ]} == {m.md.msg_id for m in others}


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--msgid", "zz"], "--msgid"),
        (["--match", "ACTION(FWD)"], "--match"),
        (["--max-rate", "0"], "--max-rate"),
    ],
)
def test_bad_selection_or_rate_is_a_usage_error(
    qm, run_cli: RunCli, args: list[str], word: str
) -> None:
    """An unusable selector or rate ends the run with exit 2, naming the option."""
    load(qm, [dead_letter("stays")])
    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", *args)
    assert run.rc == ExitCode.USAGE
    assert word in run.err
    assert depth(qm, DLQ) == 1


# -- --max-rate -----------------------------------------------------------------------------
def test_max_rate_never_waits_with_a_unit_of_work_open(home, qm) -> None:
    """Every message acted on takes a token; whenever the handler must wait for one, all
    it has done so far is committed (visible to another connection), so a low rate never
    holds messages uncommitted, and it holds no browse lock either (another connection's
    browse sees every message still on the DLQ; a locked one would be hidden). Ten messages
    at 2/s with bursts of 2 wait 4 s of fake time."""
    define(qm, STATUS, "CATCH")
    load(qm, [dead_letter(f"m{i}") for i in range(10)])
    clock = FakeClock()
    visible_at_wait: list[tuple[int, int]] = []
    dlq_at_wait: list[tuple[int, int]] = []

    def sleep(seconds: float) -> None:
        # Browse sees committed messages only (CURDEPTH would count uncommitted puts).
        visible_at_wait.append((limiter.granted, len(browse(qm, "CATCH"))))
        dlq_at_wait.append((depth(qm, DLQ), len(browse(qm, DLQ))))
        clock.now += seconds

    limiter = RateLimiter(2, burst=2, clock=clock, sleep=sleep)
    ruleset = compile_rules("WAIT(NO)\nACTION(FWD) FWDQ(CATCH)\n").ruleset
    assert ruleset is not None
    conn = connect("QM1", home=home)
    try:
        handler = Handler(
            conn,
            ruleset,
            HandlerOptions(DLQ, batch_size=50),
            limiter=limiter,
            stop=threading.Event(),
        )
        stats = handler.run()
    finally:
        conn.disconnect()

    assert stats.forwarded == 10
    assert limiter.granted == 10
    assert clock.now == pytest.approx(4.0)
    assert visible_at_wait
    assert all(granted == moved for granted, moved in visible_at_wait)
    assert all(on_queue == browsable for on_queue, browsable in dlq_at_wait)


def test_healthz_and_readyz_during_a_hold_after_an_mq_error(home, qm) -> None:
    """A triggered run that ends on an MQ error holds the DLQ open a while (linger): the
    loop keeps beating, so /healthz stays 200 and names the error, and /readyz is 503."""
    define(qm, STATUS)
    load(qm, [dead_letter("m")])
    metrics = HandlerMetrics(stuck_after_s=0.5)
    server = MetricsServer(metrics, 0).start()
    base = f"http://127.0.0.1:{server.port}"
    ruleset = compile_rules("WAIT(NO)\nACTION(FWD) FWDQ(NO.SUCH.QUEUE)\n").ruleset
    assert ruleset is not None
    conn = connect("QM1", home=home)
    qm.admin().alter_queue(DLQ, {"GET": "DISABLED"})  # the first MQGET fails: fatal
    stop = threading.Event()
    answers: list[tuple[int, str]] = []
    handler = Handler(
        conn, ruleset, HandlerOptions(DLQ), stop=stop, metrics=metrics, linger=lambda stats: 2.0
    )
    runner = threading.Thread(target=handler.run)
    try:
        metrics.connected = True
        metrics.rules(ruleset.sha256)
        runner.start()
        until(lambda: metrics.holding_after is not None, "the handler did not hold")
        for _ in range(4):
            time.sleep(0.3)
            answers.append(_get(base + "/healthz"))
        ready = _get(base + "/readyz")
        runner.join(timeout=30)
        after = _get(base + "/readyz")
    finally:
        stop.set()
        runner.join(timeout=30)
        server.stop()
        conn.disconnect()
    assert handler.stop_reason == "fatal"
    assert answers == [(200, "holding after MQ error MQRC_GET_INHIBITED\n")] * 4
    assert ready == (503, "not ready: holding after MQ error MQRC_GET_INHIBITED\n")
    assert after[0] == 200


def test_max_rate_option_reaches_the_handler(qm, run_cli: RunCli, monkeypatch) -> None:
    """--max-rate N builds a token bucket of N per second; each message acted on takes
    one token, messages left alone take none."""
    import dlqhandler.worker.handler as handler_module

    made: list[RateLimiter] = []

    class Recording(RateLimiter):
        def __init__(self, rate: float, **kw: Any) -> None:
            super().__init__(rate, clock=FakeClock())
            made.append(self)

    monkeypatch.setattr(handler_module, "RateLimiter", Recording)
    define(qm, "CATCH")
    load(
        qm,
        [dead_letter(f"go{i}", destq="APP.Q") for i in range(3)]
        + [dead_letter("stay", destq="KEEP.Q")],
    )

    run = run_cli("WAIT(NO)\nDESTQ(APP.Q) ACTION(FWD) FWDQ(CATCH)\n", "--max-rate", "250")

    assert run.rc == ExitCode.OK
    [limiter] = made
    assert (limiter.rate, limiter.granted) == (250, 3)
    assert depth(qm, "CATCH") == 3


# -- the IBM MQ backend --------------------------------------------------------------------


@pytest.fixture
def mq_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No IBM MQ connection settings inherited from the environment."""
    for name in MQ_ENV:
        monkeypatch.delenv(name, raising=False)


def test_ibmmq_backend_without_the_package_says_how_to_install_it(
    qm, run_cli: RunCli, monkeypatch, mq_env
) -> None:
    """--backend ibmmq where the ibmmq package cannot be imported: the connect exit code
    and an error naming pip install 'dlqhandler[ibmmq]'."""
    monkeypatch.setitem(sys.modules, "ibmmq", None)  # import ibmmq raises ImportError
    load(qm, [dead_letter("stays")])

    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", "--backend", "ibmmq")

    assert run.rc == ExitCode.CONNECTION_ERROR
    assert "AMQ8741" in run.err
    assert "pip install 'dlqhandler[ibmmq]'" in run.err
    assert depth(qm, DLQ) == 1


def test_ibmmq_options_need_the_ibmmq_backend(qm, run_cli: RunCli) -> None:
    """--conn-name, --channel and --cipher-spec with the embedded backend: exit 2."""
    run = run_cli("WAIT(NO)\nACTION(DISCARD)\n", "--conn-name", "mq1(1414)")
    assert run.rc == ExitCode.USAGE
    assert "--conn-name" in run.err


def test_ibmmq_backend_connects_with_the_command_line_channel(
    home, run_cli: RunCli, monkeypatch, mq_env
) -> None:
    """Against a recorder of the ibmmq module: --conn-name/--channel make the MQCD,
    credentials come only from the environment, the DLQ (the QM's DEADQ) is opened, one
    empty pass ends a WAIT(NO) run, and MQBACK comes before MQDISC."""
    from tests.qmgr.ibmmq_fake import FakeMQ

    fake = FakeMQ()
    monkeypatch.setitem(sys.modules, "ibmmq", fake.module)
    monkeypatch.setenv("DLQHANDLER_MQ_USER", "dlqsvc")
    monkeypatch.setenv("DLQHANDLER_MQ_PASSWORD", "s3cr3t-Pa55w0rd!")

    run = run_cli(
        "WAIT(NO)\nACTION(DISCARD)\n",
        "--backend",
        "ibmmq",
        " ",
        "QM1",
        "--conn-name",
        "mq1(1414),mq2(1414)",
        "--channel",
        "DLQ.SVRCONN",
    )

    assert run.rc == ExitCode.OK, run.err
    connect_call = fake.of("MQCONNX")[0]
    assert connect_call.target == "QM1"
    cd = connect_call.detail["cd"]
    assert (cd["ChannelName"], cd["ConnectionName"]) == (b"DLQ.SVRCONN", b"mq1(1414),mq2(1414)")
    assert connect_call.detail["csp"]["CSPUserId"] == b"dlqsvc"
    assert DLQ in {c.target for c in fake.of("MQOPEN")}
    verbs = fake.verbs()
    assert verbs.index("MQBACK", verbs.index("MQCONNX")) < verbs.index("MQDISC")
    assert "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)" in run.out
    assert "s3cr3t" not in run.out + run.err + repr(run.logs)


def test_nothing_imports_ibm_mq_code_at_start_up() -> None:
    """Building the whole command line imports neither ibmmq nor the adapter."""
    code = (
        "import sys\nfrom dlqhandler.cli import build_parser\nbuild_parser()\n"
        "import dlqhandler.cli.run, dlqhandler.cli._connect\n"
        "print(sorted(m for m in sys.modules if 'ibmmq' in m))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.stdout.strip() == "[]"


def test_a_refused_depth_inquiry_makes_the_depth_metric_nan_and_is_logged(home, qm) -> None:
    """A handler that may get from its DLQ but not inquire it (an authority record without
    INQ: 2035, "On an MQOPEN or MQPUT1 call, the user is not authorized to open the object
    for the options specified", https://www.ibm.com/docs/en/SSFKSJ_latest/reference/q041060_.html)
    exports dlqhandler_dlq_depth as NaN (no data), not 0 (which reads as an empty DLQ and
    keeps DLQNotEmpty quiet), and logs dlq_depth_unknown once with the reason."""
    define(qm, STATUS)
    load(qm, [dead_letter("stays", reason=2085)])
    conn = connect("QM1", home=home)
    user = conn.user
    mqsc(
        home, f"SET AUTHREC PROFILE({DLQ}) OBJTYPE(QUEUE) PRINCIPAL('{user}') AUTHADD(GET, BROWSE)"
    )
    metrics = HandlerMetrics()
    ruleset = compile_rules("WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(DISCARD)\n").ruleset
    assert ruleset is not None
    with capture_logs() as logs:
        try:
            Handler(conn, ruleset, HandlerOptions(DLQ), metrics=metrics).run()
        finally:
            conn.disconnect()
    text = metrics.exposition().decode()
    assert "dlqhandler_dlq_depth NaN" in text
    refused = [e for e in logs if e["event"] == "dlq_depth_unknown"]
    assert [e["reason"] for e in refused] == [2035]
