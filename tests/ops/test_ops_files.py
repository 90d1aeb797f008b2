"""Every deployment file in ``ops/`` (bar ``ops/mqsc``, tested with the triggering) is valid.

The systemd unit goes through ``systemd-analyze verify`` when the tool exists
(skipped with the reason otherwise, failed when ``$DLQHANDLER_REQUIRE_SYSTEMD`` is set)
and through configparser for the settings we rely on; the env example carries no
secret; the Grafana dashboard is valid JSON whose PromQL uses only the metrics the
handler exports; the Spark wrapper passes ``bash -n`` and builds the spark-submit
command it documents.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.ops.prometheus import require_tool
from tests.required import SYSTEMD

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "ops"
UNIT = OPS / "systemd" / "dlqhandler.service"
ENV_EXAMPLE = OPS / "systemd" / "dlqhandler.env.example"
DASHBOARD = OPS / "grafana" / "dlqhandler-dashboard.json"
ALERTS = OPS / "prometheus" / "alerts.yml"
ALERTS_TEST = OPS / "prometheus" / "alerts_test.yml"
SUBMIT = OPS / "spark" / "submit.sh"
SPARK_DEFAULTS = OPS / "spark" / "spark-defaults.conf"
EXEC_START = "/opt/dlqhandler/venv/bin/dlqhandler"

METRICS = {
    "dlqhandler_messages_total",
    "dlqhandler_put_failures_total",
    "dlqhandler_dlq_depth",
    "dlqhandler_dlq_oldest_message_age_seconds",
    "dlqhandler_decisions_per_second",
    "dlqhandler_rules_reloads_total",
    "dlqhandler_rules_info",
    "dlqhandler_dlq_inflow_r4ha",
}
# Exported for the alerts (ops/prometheus/alerts.yml), not drawn on the dashboard.
ALERT_METRICS = {"dlqhandler_ready", "dlqhandler_healthy", "dlqhandler_dlq_inflow_messages_total"}
PROMQL_WORDS = {
    "sum",
    "max",
    "min",
    "avg",
    "count",
    "topk",
    "bottomk",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "rate",
    "irate",
    "increase",
    "delta",
    "and",
    "or",
    "unless",
    "offset",
    "bool",
    "label_values",
    "instance",
}


def unit_config() -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(
        strict=False, interpolation=None, delimiters=("=",), comment_prefixes=("#", ";")
    )
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def env_assignments(text: str, *, commented: bool) -> list[tuple[str, str]]:
    """KEY=VALUE lines (and ``#KEY=VALUE`` ones when ``commented``)."""
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if commented:
            stripped = stripped.lstrip("#").strip()
        elif stripped.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", stripped)
        if match:
            out.append((match[1], match[2]))
    return out


def promql_expressions(dashboard: dict[str, Any]) -> list[str]:
    """Every PromQL expression: panel targets (nested rows too) and template queries."""
    exprs: list[str] = []

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            exprs.extend(t["expr"] for t in panel.get("targets", []) if "expr" in t)
            walk(panel.get("panels", []))

    walk(dashboard["panels"])
    for var in dashboard["templating"]["list"]:
        query = var.get("query")
        if isinstance(query, dict):
            exprs.append(query["query"])
        elif var["type"] == "query":
            exprs.append(query)
    return exprs


def metric_names(expr: str) -> set[str]:
    """Identifiers of ``expr`` that name series (not functions, keywords or labels)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)  # strings
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges
    text = re.sub(r"\b(?:by|without|on|ignoring)\s*\([^)]*\)", "", text)  # grouping labels
    text = re.sub(r"\$\w+", "", text)  # Grafana variables
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = match.group()
        following = text[match.end() :].lstrip()[:1]
        if word in PROMQL_WORDS or following == "(":
            continue
        names.add(word)
    return names


# -- systemd ----------------------------------------------------------------------------------
def test_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    """``systemd-analyze verify`` accepts the unit. The installed binary
    (/opt/dlqhandler/venv/bin/dlqhandler) does not exist here, so the copy checked points
    ExecStart at this interpreter; everything else is verified as shipped."""
    tool = SYSTEMD.tool("systemd-analyze")  # fails when $DLQHANDLER_REQUIRE_SYSTEMD is set
    text = UNIT.read_text(encoding="utf-8")
    assert EXEC_START in text
    copy = tmp_path / "dlqhandler.service"
    copy.write_text(text.replace(EXEC_START, sys.executable), encoding="utf-8")
    done = subprocess.run(
        [tool, "verify", str(copy)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dlqhandler.service" not in done.stderr, done.stderr


def test_systemd_unit_runs_the_handler_with_restart_reload_and_graceful_stop() -> None:
    """ExecStart runs `dlqhandler run --rules /etc/dlqhandler/rules.rul`; restarts on
    failure; SIGTERM with a stop timeout; SIGHUP reloads; reads the env file."""
    unit = unit_config()
    service = unit["Service"]
    assert service["ExecStart"].startswith(f"{EXEC_START} run --rules /etc/dlqhandler/rules.rul")
    assert service["Restart"] == "on-failure"
    assert service["KillSignal"] == "SIGTERM"
    assert int(service["TimeoutStopSec"]) > 0
    assert service["ExecReload"] == "/bin/kill -HUP $MAINPID"
    assert service["EnvironmentFile"] == "/etc/dlqhandler/dlqhandler.env"
    assert service["User"] == "mqm"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert unit["Unit"]["After"]


def test_systemd_unit_is_hardened_and_can_write_its_home() -> None:
    """NoNewPrivileges, ProtectSystem=strict, PrivateTmp; DLQHANDLER_HOME (as the unit and
    the env example set it) is among ReadWritePaths."""
    service = unit_config()["Service"]
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert service["PrivateTmp"] == "yes"
    writable = {p.lstrip("-") for p in service["ReadWritePaths"].split()}
    unit_homes = re.findall(
        r"^Environment=DLQHANDLER_HOME=(\S+)$", UNIT.read_text(encoding="utf-8"), re.MULTILINE
    )
    env_homes = [
        v
        for k, v in env_assignments(ENV_EXAMPLE.read_text(encoding="utf-8"), commented=False)
        if k == "DLQHANDLER_HOME"
    ]
    assert unit_homes
    assert env_homes
    assert set(unit_homes + env_homes) <= writable


def test_env_example_has_no_secrets() -> None:
    """No password, token or secret is assigned, even in a comment; credentials go in a
    password file the example only points at."""
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    secretive = re.compile(
        r"PASSWORD|PASSWD|SECRET|TOKEN|PASSPHRASE|CREDENTIAL|APIKEY", re.IGNORECASE
    )
    for key, value in env_assignments(text, commented=True):
        if secretive.search(key):
            assert key.endswith("_FILE"), f"{key} would hold a secret"
            assert value.startswith("/"), f"{key} must be a path"
    assert "DLQHANDLER_MQ_PASSWORD=" not in text


def test_env_example_is_a_valid_environment_file() -> None:
    """Each active line is KEY=VALUE (what EnvironmentFile= reads); the MQ variables named
    are ones dlqhandler reads."""
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*(?: \S+)*", line), line
    known = set(
        re.findall(
            r"DLQHANDLER_[A-Z0-9_]+",
            "".join(p.read_text(encoding="utf-8") for p in (ROOT / "dlqhandler").rglob("*.py")),
        )
    )
    known.add("DLQHANDLER_RUN_OPTIONS")  # consumed by the unit's ExecStart
    used = {k for k, _ in env_assignments(text, commented=True) if k.startswith("DLQHANDLER_")}
    assert used <= known, used - known


# -- Grafana ------------------------------------------------------------------------------------
def test_grafana_dashboard_is_valid_json_with_unique_panel_ids() -> None:
    """The dashboard loads as JSON, has a uid and title, unique panel ids, and every panel
    queries the selectable Prometheus data source."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert dashboard["uid"]
    assert dashboard["title"]
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            assert panel["targets"]
    names = {v["name"] for v in dashboard["templating"]["list"]}
    assert {"datasource", "instance"} <= names


def test_grafana_dashboard_uses_only_the_handler_metrics_and_all_of_them() -> None:
    """Every metric named in the dashboard's PromQL is one the handler exports, and each of
    them is shown."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    used: set[str] = set()
    for expr in promql_expressions(dashboard):
        used |= metric_names(expr)
    assert used - METRICS == set()
    assert used == METRICS


def test_promql_name_extraction_sees_unknown_metrics() -> None:
    """The check above can fail: a stray series name is reported, functions and labels not."""
    expr = (
        'sum by (action) (rate(dlqhandler_messages_total{outcome="ok"}[5m])) '
        '/ on (instance) up{job="x"}'
    )
    assert metric_names(expr) == {"dlqhandler_messages_total", "up"}


def test_grafana_metrics_match_what_the_metrics_module_registers() -> None:
    """The names the dashboard expects are those ``dlqhandler.worker.metrics`` registers."""
    metrics = pytest.importorskip("dlqhandler.worker.metrics")
    registry = metrics.HandlerMetrics().registry
    exported = set()
    for family in registry.collect():
        exported.add(family.name + ("_total" if family.type == "counter" else ""))
    assert exported >= METRICS | ALERT_METRICS


# -- Prometheus alerts ----------------------------------------------------------------------
def alert_names() -> list[str]:
    """The alerts of alerts.yml, in order (Prometheus itself reads them in the live test)."""
    return re.findall(r"^\s+- alert: (\w+)$", ALERTS.read_text(encoding="utf-8"), re.M)


def test_promtool_check_rules_accepts_the_alerts() -> None:
    """``promtool check rules`` (Prometheus's own parser and template checks) accepts
    ops/prometheus/alerts.yml."""
    promtool = require_tool("promtool")
    done = subprocess.run(
        [promtool, "check", "rules", str(ALERTS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(alert_names())} rules found" in done.stdout


def test_promtool_test_rules_passes_every_alert_test() -> None:
    """``promtool test rules`` runs alerts_test.yml: each rule fires on its input series
    with the expected labels and rendered annotations, and stays silent where it must."""
    promtool = require_tool("promtool")
    done = subprocess.run(
        [promtool, "test", "rules", ALERTS_TEST.name],
        cwd=ALERTS_TEST.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_every_alert_is_tested_firing_and_silent() -> None:
    """alerts_test.yml has, for every alert, an evaluation where it fires and one where it
    does not (so a rule that never or always fires is caught)."""
    checks = re.findall(
        r"^\s+alertname: (\w+)\n\s+exp_alerts:(.*)$", ALERTS_TEST.read_text(encoding="utf-8"), re.M
    )
    firing = {name for name, rest in checks if rest.strip() != "[]"}
    silent = {name for name, rest in checks if rest.strip() == "[]"}
    names = set(alert_names())
    assert len(names) == 9
    assert names - firing == set()
    assert names - silent == set()
    assert (firing | silent) - names == set()


# -- Spark --------------------------------------------------------------------------------------
def test_submit_sh_passes_bash_n() -> None:
    """The spark-submit wrapper is valid bash and executable."""
    done = subprocess.run(["bash", "-n", str(SUBMIT)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert os.access(SUBMIT, os.X_OK)


def test_submit_sh_builds_the_spark_submit_command(tmp_path: Path) -> None:
    """It calls spark-submit with drain.py and the arguments unchanged; with the options
    set it adds --master, --properties-file, the venv archive and a --py-files zip of the
    package (sources only)."""
    record, kept = tmp_path / "args", tmp_path / "kept.zip"
    fake = tmp_path / "spark-submit"
    fake.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n'
        f'prev=""\nfor a in "$@"; do [ "$prev" = --py-files ] && cp "$a" {kept}; '
        'prev="$a"; done\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    env = {**os.environ, "SPARK_SUBMIT": str(fake)}
    for key in (
        "SPARK_MASTER",
        "SPARK_PROPERTIES_FILE",
        "DLQHANDLER_VENV_ARCHIVE",
        "DLQHANDLER_SHIP_PACKAGE",
    ):
        env.pop(key, None)
    subprocess.run(
        [str(SUBMIT), "--rules", "my rules.rul", "--output", "out"], env=env, check=True, timeout=60
    )
    assert record.read_text().splitlines() == [
        str(OPS / "spark" / "drain.py"),
        "--rules",
        "my rules.rul",
        "--output",
        "out",
    ]
    env.update(
        SPARK_MASTER="yarn",
        SPARK_PROPERTIES_FILE=str(SPARK_DEFAULTS),
        DLQHANDLER_VENV_ARCHIVE="venv.tar.gz",
        DLQHANDLER_SHIP_PACKAGE="1",
    )
    subprocess.run([str(SUBMIT), "--rules", "r.rul"], env=env, check=True, timeout=60)
    args = record.read_text().splitlines()
    assert args[:8] == [
        "--master",
        "yarn",
        "--properties-file",
        str(SPARK_DEFAULTS),
        "--archives",
        "venv.tar.gz#environment",
        "--conf",
        "spark.pyspark.python=./environment/bin/python",
    ]
    assert args[8] == "--py-files"
    assert args[-3:] == [str(OPS / "spark" / "drain.py"), "--rules", "r.rul"]
    with zipfile.ZipFile(kept) as zf:
        names = zf.namelist()
    assert "dlqhandler/__init__.py" in names
    assert "dlqhandler/spark/drain/job.py" in names
    assert not [n for n in names if "__pycache__" in n]


def test_spark_defaults_conf_is_well_formed() -> None:
    """Each setting is `spark.key value`, none repeated, and its Python is the archive's."""
    seen: dict[str, str] = {}
    for line in SPARK_DEFAULTS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, value = line.strip().partition(" ")
        assert key.startswith("spark."), line
        assert value.strip(), line
        assert key not in seen, f"{key} twice"
        seen[key] = value.strip()
    assert seen["spark.pyspark.python"] == "./environment/bin/python"
    assert "environment" in SUBMIT.read_text(encoding="utf-8")


def test_the_operating_guide_lists_every_alert() -> None:
    """docs/operating.md's table names each alert of alerts.yml (and no other)."""
    guide = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| (\w+) \|", guide, re.M)) - {"alert"}
    assert listed == set(alert_names())


def test_paths_named_in_ops_files_and_the_operating_guide_exist() -> None:
    """Every repository file that an ops file or docs/operating.md names (a module to read,
    a file to install) exists, so the administrator's instructions do not point nowhere."""
    pattern = re.compile(r"(?<![\w/.])((?:dlqhandler|ops|rules|docs)/[\w./-]*\w)")
    sources = [p for p in OPS.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    named: set[str] = set()
    for source in [*sources, ROOT / "docs" / "operating.md"]:
        named |= set(pattern.findall(source.read_text(encoding="utf-8")))
    assert "ops/prometheus/alerts.yml" in named
    missing = sorted(name for name in named if not (ROOT / name).exists())
    assert missing == []


def test_every_ops_file_is_checked_here() -> None:
    """A new file in ops/ (outside ops/mqsc) needs a check in this module."""
    checked = {
        UNIT,
        ENV_EXAMPLE,
        DASHBOARD,
        SUBMIT,
        SPARK_DEFAULTS,
        OPS / "spark" / "drain.py",
        ALERTS,
        ALERTS_TEST,
    }
    present = {
        p
        for p in OPS.rglob("*")
        if p.is_file() and "mqsc" not in p.parts and "__pycache__" not in p.parts
    }
    assert present - checked == set()
    drain = OPS / "spark" / "drain.py"
    compile(drain.read_text(encoding="utf-8"), str(drain), "exec")
