"""The Grafana dashboard as a ConfigMap for Grafana's dashboard sidecar: off by default, the
committed dashboards/kubesched.json as it is, the sidecar's label (and value, namespace,
folder annotation) configurable."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.manifests.chart_render import CHART, NAMESPACE, helm_template

DASHBOARD = CHART / "dashboards" / "kubesched.json"


def test_off_by_default(helm: Path) -> None:
    assert not [o for o in helm_template(helm) if o["metadata"]["name"].endswith("-dashboards")]


def test_the_sidecar_finds_the_dashboard(helm: Path) -> None:
    (config_map,) = helm_template(
        helm, "--set=dashboards.enabled=true", show="dashboards-configmap.yaml"
    )

    assert config_map["kind"] == "ConfigMap"
    assert config_map["metadata"]["name"] == "kubesched-dashboards"
    assert config_map["metadata"]["namespace"] == NAMESPACE
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert config_map["metadata"]["labels"]["app.kubernetes.io/instance"] == "kubesched"
    assert config_map["data"] == {"kubesched.json": DASHBOARD.read_text()}
    assert json.loads(config_map["data"]["kubesched.json"])["uid"] == "kubesched"


def test_label_namespace_and_annotations_are_values(helm: Path) -> None:
    sets = [
        "--set=dashboards.enabled=true,dashboards.label=grafana_dashboard_kubesched",
        "--set-string=dashboards.labelValue=yes,dashboards.namespace=monitoring",
        "--set=dashboards.annotations.grafana_folder=Kubernetes",
    ]
    (config_map,) = helm_template(helm, *sets, show="dashboards-configmap.yaml")
    meta = config_map["metadata"]

    assert meta["labels"]["grafana_dashboard_kubesched"] == "yes"
    assert "grafana_dashboard" not in meta["labels"]
    assert meta["namespace"] == "monitoring"
    assert meta["annotations"] == {"grafana_folder": "Kubernetes"}
