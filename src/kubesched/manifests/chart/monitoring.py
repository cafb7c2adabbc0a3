"""The chart's monitoring extras: a PrometheusRule with kubesched's alerts and the Grafana
dashboard (`charts/kubesched/dashboards/`) as a ConfigMap for Grafana's dashboard sidecar.

Their templates are the text files beside this module (they hold no object of the manifests
model); their values are here. The alerts use kubesched's metric names, which are
kube-scheduler's (docs/operations.md, "Metrics"): `up` of the scrape targets,
`leader_election_master_status`, `scheduler_pending_pods` and
`scheduler_schedule_attempts_total{result="error"}`.
"""

from __future__ import annotations

from pathlib import Path

from kubesched.manifests.chart import home
from kubesched.manifests.chart import schemas as s
from kubesched.manifests.chart.spec import Entry, Group, Leaf

HERE = Path(__file__).parent
TEMPLATES = {
    "prometheusrule.yaml": HERE / "prometheusrule.yaml.txt",
    "dashboards-configmap.yaml": HERE / "dashboards.yaml.txt",
}
"""File name under `templates/` -> the text file it is copied from."""
SEVERITIES = ("critical", "warning", "info")
DASHBOARD_LABEL = "grafana_dashboard"
"""The label kube-prometheus-stack's Grafana sidecar looks for (`sidecar.dashboards.label`)."""


def templates() -> dict[str, str]:
    """File name under `templates/` -> its text."""
    return {name: path.read_text(encoding="utf-8") for name, path in TEMPLATES.items()}


def values() -> tuple[Entry, ...]:
    """The `prometheusRule` and `dashboards` values."""
    return (_prometheus_rule(), _dashboards())


def _alert(key: str, doc: str, *, after: str, severity: str, **more: Leaf) -> Group:
    return Group(
        key=key,
        doc=doc,
        children=(
            Leaf(
                key="for",
                default=after,
                doc="How long the condition holds before the alert fires.",
                schema=s.string(pattern=s.PROMETHEUS_DURATION, min_length=1),
            ),
            *more.values(),
            Leaf(
                key="severity",
                default=severity,
                doc="Its severity label.",
                schema=s.string(enum=SEVERITIES),
            ),
        ),
    )


def _prometheus_rule() -> Group:
    return Group(
        key="prometheusRule",
        doc="A PrometheusRule (Prometheus Operator) with kubesched's alerts (README: alerts).",
        children=(
            Leaf(key="enabled", default=False, doc="Create it.", schema=s.boolean()),
            Leaf(
                key="labels",
                default={},
                doc="More labels of the PrometheusRule: a Prometheus selects rules by label\n"
                "(kube-prometheus-stack: release: <its release name>).",
                schema=s.string_map(),
            ),
            Leaf(
                key="selector",
                default="",
                doc='PromQL label matchers of kubesched\'s series; empty: job="<name>",\n'
                'namespace="<release namespace>" (what the ServiceMonitor\'s scrapes carry).',
                schema=s.string(),
            ),
            Leaf(
                key="runbookUrl",
                default=home.RUNBOOKS,
                doc="The page of the alerts' runbooks: each alert's runbook_url is this page\n"
                "and its name in lowercase as the anchor (#kubescheddown, ...), the sections of\n"
                "docs/operations.md; point it at your own copy.",
                schema=s.string(pattern="^https?://\\S+$"),
            ),
            Leaf(
                key="alertLabels",
                default={},
                doc="Labels added to every alert of the chart (e.g. team: platform).",
                schema=s.string_map(),
            ),
            *_alerts(),
            Leaf(
                key="extraRules",
                default=[],
                doc="More alerting or recording rules, appended to the chart's group.",
                schema=s.array(s.PROMETHEUS_RULE),
            ),
        ),
    )


def _alerts() -> tuple[Group, ...]:
    """The chart's alerts, each switchable, with its `for:`, severity and thresholds."""
    return (
        _alert(
            "down",
            "KubeschedDown: no kubesched target is up (every replica down or unscraped).",
            after="5m",
            severity="critical",
        ),
        _alert(
            "noLeader",
            "KubeschedNoLeader: replicas are up but none leads (sum of\n"
            "leader_election_master_status is 0): nothing schedules. With leader election.",
            after="5m",
            severity="critical",
        ),
        _alert(
            "pendingPods",
            "KubeschedPendingPodsGrowing: more pods than `threshold` wait in kubesched's\n"
            "queues (scheduler_pending_pods, gated pods aside) and their number grew over\n"
            "`window`.",
            after="15m",
            severity="warning",
            threshold=Leaf(
                key="threshold",
                default=10,
                doc="Pending pods above which the alert may fire.",
                schema=s.integer(minimum=0),
            ),
            window=Leaf(
                key="window",
                default="15m",
                doc="Over how long the number must have grown.",
                schema=s.string(pattern=s.PROMETHEUS_DURATION, min_length=1),
            ),
        ),
        _alert(
            "schedulingErrors",
            "KubeschedSchedulingErrors: scheduling attempts end in error (an API call of\n"
            "the cycle or the binding failed: scheduler_schedule_attempts_total{result=\n"
            '"error"}) faster than `threshold` per second, per profile.',
            after="10m",
            severity="warning",
            threshold=Leaf(
                key="threshold",
                default=0,
                doc="Errors per second (5m rate) above which the alert may fire.",
                schema={"type": "number", "minimum": 0},
            ),
        ),
    )


def _dashboards() -> Group:
    return Group(
        key="dashboards",
        doc="The Grafana dashboard (dashboards/kubesched.json) in a ConfigMap that Grafana's\n"
        "dashboard sidecar loads (kube-prometheus-stack: sidecar.dashboards.enabled).",
        children=(
            Leaf(key="enabled", default=False, doc="Create it.", schema=s.boolean()),
            Leaf(
                key="label",
                default=DASHBOARD_LABEL,
                doc="The label the sidecar selects ConfigMaps by (its sidecar.dashboards.label).",
                schema=s.string(min_length=1),
            ),
            Leaf(
                key="labelValue",
                default="1",
                doc="That label's value (its sidecar.dashboards.labelValue).",
                schema=s.string(),
            ),
            Leaf(
                key="namespace",
                default="",
                doc="Namespace of the ConfigMap (one the sidecar watches); empty: the release's.",
                schema=s.optional_string(s.DNS_LABEL, max_length=63),
            ),
            Leaf(
                key="annotations",
                default={},
                doc="Its annotations (e.g. the sidecar's folder annotation).",
                schema=s.string_map(),
            ),
        ),
    )
