"""The test cases of `catalogue_more`: upstream's parameters, namespaces, node kinds and
scheduler config, and what their objects ask of a scheduler."""

from __future__ import annotations

from pathlib import Path

from kubesched.bench.catalogue import catalogue_workload
from kubesched.bench.contenders import ClientLimits, scheduler_config
from kubesched.bench.templates import ZONE
from kubesched.bench.templates_more import DAEMONSET_NODE, NAMESPACE_LABELS
from kubesched.bench.workloads import Workload
from kubesched.config import load_config
from kubesched.model import Node, Pod


def _pods(workload: Workload) -> list[Pod]:
    groups = [*workload.initial, workload.measured]
    return [Pod.from_json(body) for group in groups for _path, body in group.pods("bench")]


def test_namespace_selector_cases_label_every_namespace_their_pods_use() -> None:
    workload = catalogue_workload("SchedulingRequiredPodAntiAffinityWithNSSelector", "500")
    init = [f"init-ns-{i}" for i in range(10)]
    assert workload.labelled_namespaces == (*init, "measure-ns-0")
    assert [g.namespace for g in workload.initial] == init
    assert [g.count for g in workload.initial] == [4] * 10
    assert (workload.measured.namespace, workload.pods) == ("measure-ns-0", 100)
    affinity = _pods(workload)[0].affinity
    assert affinity is not None
    assert affinity.pod_anti_affinity is not None
    assert affinity.pod_anti_affinity.required[0].namespace_selector is not None
    assert NAMESPACE_LABELS == {"team": "devops"}
    at_5000 = catalogue_workload("SchedulingRequiredPodAffinityWithNSSelector", "5000")
    assert (len(at_5000.initial), at_5000.initial[0].count) == (100, 50)
    assert at_5000.node(7)["metadata"]["labels"][ZONE] == "zone1"


def test_default_spreading_creates_the_service_its_pods_match() -> None:
    workload = catalogue_workload("DefaultTopologySpreading", "5")
    ((path, service),) = workload.objects
    assert path == "/api/v1/namespaces/service-ns/services"
    measured = Pod.from_json(next(workload.measured.pods("bench"))[1])
    assert measured.namespace == "service-ns"
    assert service["spec"]["selector"].items() <= measured.labels.items()
    assert "service-ns" in workload.all_namespaces()


def test_node_inclusion_policy_taints_a_fifth_of_the_nodes_and_honours_them() -> None:
    workload = catalogue_workload("SchedulingWithNodeInclusionPolicy", "500")
    nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
    assert sum(1 for node in nodes if node.taints) == 100
    (constraint,) = _pods(workload)[0].topology_spread_constraints
    assert (constraint.node_affinity_policy, constraint.node_taints_policy) == ("Honor", "Honor")


def test_daemonset_pods_require_the_named_node_which_comes_first() -> None:
    workload = catalogue_workload("SchedulingDaemonset", "5")
    assert workload.nodes == 6
    first = Node.from_json(workload.node(0))
    assert first.name == DAEMONSET_NODE
    assert first.allocatable.allowed_pods == 90000
    assert all(Node.from_json(workload.node(i)).name != DAEMONSET_NODE for i in range(1, 6))


def test_batching_cases_run_upstreams_config_without_default_spreading(tmp_path: Path) -> None:
    for name in ("HostPortConflict", "ResourceSaturation"):
        workload = catalogue_workload(name, "5000")
        assert (workload.nodes, workload.pods) == (20000, 20000)
        (entry,) = workload.plugin_config
        assert entry["name"] == "PodTopologySpread"
    hostport = _pods(catalogue_workload("HostPortConflict", "5"))[0]
    assert [port.port for port in hostport.host_ports] == [80]
    workload = catalogue_workload("HostPortConflict", "5")
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("")
    config = tmp_path / "config.yaml"
    limits = ClientLimits("bench", 5000, 5000)
    config.write_text(
        scheduler_config(kubeconfig=kubeconfig, limits=limits, plugin_config=workload.plugin_config)
    )
    (profile,) = load_config([f"--config={config}"]).config.profiles
    assert profile.scheduler_name == "bench"
