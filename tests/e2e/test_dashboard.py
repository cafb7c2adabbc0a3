"""The Grafana dashboard (`charts/kubesched/dashboards/kubesched.json`) charts only metrics
kubesched exports: every metric name in its queries is in a real kubesched's /metrics; and,
for the README's `helm install ... --set schedulerName=my-scheduler`, its variables offer the
release and its panels show that scrape's series once labelled as the chart's ServiceMonitor
labels them (`dashboard_queries`, evaluated by promtool)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from kubesched.localcluster import LocalCluster, ensure_helm, ensure_promtool
from kubesched.testing import make_node, make_pod
from tests.e2e.chart_compare import helm_template
from tests.e2e.dashboard_queries import check_dashboard, target_labels
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.test_serving import https_get

DASHBOARD = (
    Path(__file__).resolve().parents[2] / "charts" / "kubesched" / "dashboards" / "kubesched.json"
)
_SUFFIXES = ("", "_total", "_bucket", "_sum", "_count")
_METRIC = re.compile(r"\b((?:scheduler|rest_client|process|leader_election|kubesched)_[a-z_]+)\b")


def queried_metrics() -> set[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    exprs += [var.get("query", "") for var in dashboard["templating"]["list"]]
    return {name for expr in exprs for name in _METRIC.findall(expr)}


def test_every_charted_metric_is_exported_and_shown_for_the_release(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    api.create(make_node().name("dashboard-node").obj())
    proc = kubesched("--scheduler-name=my-scheduler", "--leader-elect=true")
    proc.wait_log('"successfully acquired lease"')
    pods = make_pod().namespace(namespace).scheduler("my-scheduler")
    api.create(pods.name("p").obj())
    api.create(pods.name("huge").req(cpu="1000").obj())  # for the unschedulable-pods panel
    wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="bound")
    # As kube-scheduler's, a labelled family is served once it has a series.
    text = wait_for(
        lambda: https_get(proc.port, "/metrics", local_cluster.admin_token)[1],
        until=lambda body: (
            "scheduler_pod_scheduling_sli_duration_seconds_bucket" in body
            and "scheduler_unschedulable_pods{" in body
        ),
        message="the bound pod is measured and the unschedulable one counted",
    )
    families = list(text_string_to_metric_families(text))
    exported = {sample.name for family in families for sample in family.samples}
    exported |= {f"{family.name}{suffix}" for family in families for suffix in _SUFFIXES}
    wanted = queried_metrics()
    assert len(wanted) >= 12
    missing = sorted(name for name in wanted if name not in exported)
    assert not missing, f"the dashboard charts metrics kubesched does not export: {missing}"

    # The README's install: its series as the chart's ServiceMonitor labels them.
    objects = helm_template(
        ensure_helm(),
        "kubesched-system",
        "--set=schedulerName=my-scheduler,serviceMonitor.enabled=true",
        release="kubesched",
    )
    labels = target_labels(objects)
    assert labels["job"] == "my-scheduler"  # what the old `job=~".*kubesched.*"` missed
    dashboard = json.loads(DASHBOARD.read_text())
    shown = check_dashboard(dashboard, text, labels, promtool=ensure_promtool(), tmp=tmp_path)
    assert len(shown) >= 12, shown
