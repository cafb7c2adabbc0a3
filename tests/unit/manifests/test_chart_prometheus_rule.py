"""The chart's PrometheusRule: its rules, as `helm template` renders them, pass `promtool check
rules`, and `promtool test rules` shows each alert firing on the series a failing kubesched
exports (kube-scheduler's metric names) and staying quiet on a healthy one. promtool is built
once from the Prometheus Go module, as helm and the control-plane binaries are."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import ensure_promtool
from kubesched.manifests.chart import home
from kubesched.scheduler.metrics import SchedulerMetrics
from tests.unit.manifests.chart_render import NAMESPACE, helm_refusal, helm_template

ENABLED = "--set=prometheusRule.enabled=true"
JOB = f'job="kubesched", namespace="{NAMESPACE}"'
TARGET = f"{NAMESPACE}/kubesched"
LABELS = {"job": "kubesched", "namespace": NAMESPACE}


@pytest.fixture(scope="module")
def promtool() -> Path:
    return ensure_promtool()


def _groups(helm: Path, *sets: str) -> list[dict[str, Any]]:
    (rule,) = helm_template(helm, ENABLED, *sets, show="prometheusrule.yaml")
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    groups: list[dict[str, Any]] = rule["spec"]["groups"]
    return groups


def _promtool(promtool: Path, *args: str, cwd: Path) -> str:
    argv = [str(promtool), *args]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False, cwd=cwd)
    assert result.returncode == 0, f"{' '.join(argv)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _alert(
    name: str, severity: str, description: str, summary: str, **labels: str
) -> dict[str, Any]:
    return {
        "exp_labels": {**LABELS, **labels, "severity": severity},
        "exp_annotations": {
            "summary": summary,
            "description": description,
            "runbook_url": f"{home.RUNBOOKS}#{name.lower()}",
        },
    }


DOWN = _alert(
    "KubeschedDown",
    "critical",
    f"No target of kubesched ({TARGET}) has been up for 5m: pods for its schedulers stay "
    "Pending. See docs/operations.md.",
    "kubesched is down.",
)
NO_LEADER = _alert(
    "KubeschedNoLeader",
    "critical",
    f"The replicas of kubesched {TARGET} are up but none has led for 5m, so none schedules: "
    "see who holds the Lease with kubesched leases (or kubesched doctor).",
    "No kubesched replica holds its Lease.",
)


def _pending(value: int) -> dict[str, Any]:
    return _alert(
        "KubeschedPendingPodsGrowing",
        "warning",
        f"{value} pods wait in the queues of kubesched {TARGET} and their number keeps growing: "
        "kubesched explain says why a pod is Pending.",
        "Pods pile up in kubesched's queues.",
    )


ERRORS = _alert(
    "KubeschedSchedulingErrors",
    "warning",
    f"Scheduling attempts of profile kubesched of kubesched {TARGET} end in error (0.10 per "
    "second): an API call of the cycle or the binding fails; its log says which (forbidden: "
    "RBAC, docs/deploying.md).",
    "kubesched fails to schedule or bind pods.",
    profile="kubesched",
)


def _series(metric: str, values: str, /, **labels: str) -> dict[str, str]:
    matchers = ", ".join([JOB, *(f'{key}="{value}"' for key, value in labels.items())])
    return {"series": f"{metric}{{{matchers}}}", "values": values}


def _test(series: list[dict[str, str]], *checks: tuple[str, str, list[Any]]) -> dict[str, Any]:
    return {
        "interval": "1m",
        "input_series": series,
        "alert_rule_test": [
            {"eval_time": at, "alertname": name, "exp_alerts": alerts}
            for at, name, alerts in checks
        ],
    }


TESTS = [
    # Both replicas go down at 6m: KubeschedDown once that has lasted 5m.
    _test(
        [
            _series("up", "1x5 0x20", instance="a"),
            _series("up", "1x5 0x20", instance="b"),
        ],
        ("5m", "KubeschedDown", []),
        ("10m", "KubeschedDown", []),
        ("12m", "KubeschedDown", [DOWN]),
    ),
    # One replica of two up: not down. None scraped at all: down.
    _test(
        [_series("up", "1x20", instance="a"), _series("up", "0x20", instance="b")],
        ("15m", "KubeschedDown", []),
    ),
    _test([], ("6m", "KubeschedDown", [DOWN])),
    # The leader stops leading at 6m, the standby never takes over.
    _test(
        [
            _series("leader_election_master_status", "1x5 0x20", instance="a", name="kubesched"),
            _series("leader_election_master_status", "0x25", instance="b", name="kubesched"),
        ],
        ("10m", "KubeschedNoLeader", []),
        ("12m", "KubeschedNoLeader", [NO_LEADER]),
    ),
    # A hand-over: the standby leads a minute after the leader stopped.
    _test(
        [
            _series("leader_election_master_status", "1x5 0x20", instance="a", name="kubesched"),
            _series("leader_election_master_status", "0x6 1x20", instance="b", name="kubesched"),
        ],
        ("20m", "KubeschedNoLeader", []),
    ),
    # Pending pods grow by 2 a minute: above 10 from 6m, firing 15m later (value at 30m: 60).
    # The standby reports none, gated pods do not count.
    _test(
        [
            _series("scheduler_pending_pods", "0+2x40", instance="a", queue="active"),
            _series("scheduler_pending_pods", "0x40", instance="a", queue="gated"),
            _series("scheduler_pending_pods", "0x40", instance="b", queue="active"),
        ],
        ("20m", "KubeschedPendingPodsGrowing", []),
        ("30m", "KubeschedPendingPodsGrowing", [_pending(60)]),
    ),
    # Many pending but not growing, and growing gated pods: quiet.
    _test(
        [
            _series("scheduler_pending_pods", "50x40", instance="a", queue="unschedulable"),
            _series("scheduler_pending_pods", "0+5x40", instance="a", queue="gated"),
        ],
        ("30m", "KubeschedPendingPodsGrowing", []),
    ),
    # 6 errors a minute (0.1/s) for 30m: firing after 10m; scheduled attempts do not count.
    _test(
        [
            _series(
                "scheduler_schedule_attempts_total",
                "0+6x30",
                instance="a",
                profile="kubesched",
                result="error",
            ),
            _series(
                "scheduler_schedule_attempts_total",
                "0+600x30",
                instance="a",
                profile="kubesched",
                result="scheduled",
            ),
        ],
        ("5m", "KubeschedSchedulingErrors", []),
        ("20m", "KubeschedSchedulingErrors", [ERRORS]),
    ),
    _test(
        [
            _series(
                "scheduler_schedule_attempts_total",
                "0+600x30",
                instance="a",
                profile="kubesched",
                result="scheduled",
            ),
        ],
        ("20m", "KubeschedSchedulingErrors", []),
    ),
]


def test_the_alerts_fire_when_kubesched_fails_and_only_then(
    helm: Path, promtool: Path, tmp_path: Path
) -> None:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": _groups(helm)}))
    tests = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": TESTS}
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(tests, sort_keys=False))

    assert "SUCCESS" in _promtool(promtool, "check", "rules", "rules.yaml", cwd=tmp_path)
    assert "SUCCESS" in _promtool(promtool, "test", "rules", "tests.yaml", cwd=tmp_path)


def test_the_values_reach_the_rules(helm: Path, promtool: Path, tmp_path: Path) -> None:
    extra = {"record": "kubesched:pending:sum", "expr": "sum(scheduler_pending_pods)"}
    sets = [
        '--set-string=prometheusRule.selector=job="sched"',
        "--set=prometheusRule.labels.release=kube-prometheus-stack",
        "--set=prometheusRule.alertLabels.team=platform",
        "--set=prometheusRule.pendingPods.threshold=100,prometheusRule.pendingPods.window=30m",
        "--set=prometheusRule.down.severity=warning,prometheusRule.schedulingErrors.for=1h",
        "--set=prometheusRule.runbookUrl=https://wiki.example.com/kubesched",
        f"--set-json=prometheusRule.extraRules=[{json.dumps(extra)}]",
    ]
    (rule,) = helm_template(helm, ENABLED, *sets, show="prometheusrule.yaml")
    rules = {r.get("alert", r.get("record")): r for r in rule["spec"]["groups"][0]["rules"]}

    assert rule["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert rules["KubeschedDown"]["expr"] == (
        '(sum by (namespace, job) (up{job="sched"}) == 0) or absent(up{job="sched"})'
    )
    assert rules["KubeschedDown"]["labels"] == {"severity": "warning", "team": "platform"}
    assert "> 100) and" in rules["KubeschedPendingPodsGrowing"]["expr"]
    assert "[30m]" in rules["KubeschedPendingPodsGrowing"]["expr"]
    assert rules["KubeschedSchedulingErrors"]["for"] == "1h"
    assert rules["KubeschedNoLeader"]["annotations"]["runbook_url"] == (
        "https://wiki.example.com/kubesched#kubeschednoleader"
    )
    assert rules["kubesched:pending:sum"] == extra
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    assert "SUCCESS" in _promtool(promtool, "check", "rules", "rules.yaml", cwd=tmp_path)


def test_no_leader_alert_without_leader_election(helm: Path) -> None:
    sets = ["--set=leaderElection.leaderElect=false,replicas=1"]
    alerts = [r.get("alert") for r in _groups(helm, *sets)[0]["rules"]]

    assert alerts == ["KubeschedDown", "KubeschedPendingPodsGrowing", "KubeschedSchedulingErrors"]


def test_off_by_default(helm: Path) -> None:
    assert not [o for o in helm_template(helm) if o["kind"] == "PrometheusRule"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("prometheusRule.down.for=5", "at '/prometheusRule/down/for'", id="for"),
        pytest.param(
            "prometheusRule.noLeader.severity=page",
            "at '/prometheusRule/noLeader/severity': value must be one of",
            id="severity",
        ),
        pytest.param(
            "prometheusRule.pendingPods.treshold=3",
            "additional properties 'treshold' not allowed",
            id="typo",
        ),
    ],
)
def test_the_schema_refuses_bad_rule_values(helm: Path, value: str, message: str) -> None:
    assert message in helm_refusal(helm, f"--set={value}")


def test_the_alerts_query_metrics_kubesched_exports(helm: Path) -> None:
    """Every metric an alert reads is one of kubesched's families (kube-scheduler's names),
    or Prometheus' own `up`."""
    exported = set()
    for family in SchedulerMetrics().registry.collect():
        exported |= {family.name, f"{family.name}_total"}
    queried = {
        name
        for rule in _groups(helm)[0]["rules"]
        for name in re.findall(r"([a-z_:]+)\{", rule["expr"])
    }

    assert queried - exported == {"up"}
    assert {"leader_election_master_status", "scheduler_pending_pods"} <= queried


def test_every_runbook_link_is_a_section_of_the_operations_guide(helm: Path) -> None:
    """Each alert's runbook_url is docs/operations.md at the anchor GitHub gives the heading
    named after the alert (lowercase), and that section exists."""
    guide = Path(__file__).parents[3] / "docs" / "operations.md"
    headings = {
        line.lstrip("#").strip().lower()
        for line in guide.read_text().splitlines()
        if line.startswith("#")
    }
    links = {
        rule["alert"]: rule["annotations"]["runbook_url"] for rule in _groups(helm)[0]["rules"]
    }

    assert len(links) == 4
    for alert, link in links.items():
        page, _, anchor = link.partition("#")
        assert page == home.RUNBOOKS
        assert page.endswith("/docs/operations.md")
        assert anchor == alert.lower()
        assert anchor in headings, f"docs/operations.md has no section {alert}"
