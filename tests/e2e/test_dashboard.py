"""The Grafana dashboard (`charts/kubesched/dashboards/kubesched.json`) charts only metrics
kubesched exports: every metric name in its queries is in a real kubesched's /metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness import ApiClient, is_bound, wait_for
from prometheus_client.parser import text_string_to_metric_families
from test_serving import https_get

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod

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


def test_every_charted_metric_is_exported(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    api.create(make_node().name("dashboard-node").obj())
    proc = kubesched("--scheduler-name=dashboard-scheduler", "--leader-elect=true")
    proc.wait_log('"successfully acquired lease"')
    pods = make_pod().namespace(namespace).scheduler("dashboard-scheduler")
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
