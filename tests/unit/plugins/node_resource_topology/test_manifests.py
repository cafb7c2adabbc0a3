"""What NodeResourceTopologyMatch needs deployed: get/list/watch noderesourcetopologies when
a profile enables it (and only then), and the v1alpha2 CRD beside the others, with the
fields the exporter writes and the plugin reads."""

from __future__ import annotations

from pathlib import Path

from kubesched.manifests.crd_topology import node_resource_topology_crd
from kubesched.manifests.crds import crd_objects
from kubesched.manifests.rbac import cluster_rules
from kubesched.plugins import config_resources, in_tree_resources
from kubesched.plugins.node_resource_topology import NODE_RESOURCE_TOPOLOGIES
from tests.unit.manifests.manifests_helpers import config_for

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: numa
  plugins: {multiPoint: {enabled: [{name: NodeResourceTopologyMatch}]}}
"""


def _nrt_verbs(tmp_path: Path, argv: list[str]) -> list[list[str]]:
    config = config_for(argv, tmp_path=tmp_path)
    rules = cluster_rules(preemption=False, resources=config_resources(config))
    return [
        r["verbs"]
        for r in rules
        if r["apiGroups"] == ["topology.node.k8s.io"]
        and r["resources"] == ["noderesourcetopologies"]
    ]


def test_rbac_reads_nrt_objects_when_a_profile_enables_the_plugin(tmp_path: Path) -> None:
    path = tmp_path / "numa.yaml"
    path.write_text(CONFIG)

    assert _nrt_verbs(tmp_path, [f"--config={path}"]) == [["get", "list", "watch"]]
    assert _nrt_verbs(tmp_path, ["--scheduler-name=plain"]) == []
    assert in_tree_resources()["NodeResourceTopologyMatch"] == (NODE_RESOURCE_TOPOLOGIES,)


def test_the_crd_is_shipped_cluster_scoped_with_the_exporter_s_fields() -> None:
    crd = node_resource_topology_crd()
    version = crd["spec"]["versions"][0]
    schema = version["schema"]["openAPIV3Schema"]
    zone = schema["properties"]["zones"]["items"]
    resource = zone["properties"]["resources"]["items"]

    assert crd in crd_objects()
    assert crd["metadata"]["name"] == "noderesourcetopologies.topology.node.k8s.io"
    assert (crd["spec"]["scope"], version["name"]) == ("Cluster", "v1alpha2")
    assert {"zones", "attributes", "topologyPolicies"} <= set(schema["properties"])
    assert set(zone["properties"]) == {"name", "type", "parent", "costs", "attributes", "resources"}
    assert resource["required"] == ["allocatable", "available", "capacity", "name"]
