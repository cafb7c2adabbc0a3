"""The templates of scheduler_perf's `podgroup` test cases (kubernetes/kubernetes
`test/integration/scheduler_perf/podgroup/{basicscheduling,gangscheduling,tas}/templates/`,
v1.37), as builders in the style of `templates`.

Pods are one `pause` container requesting 100m CPU and 100Mi (no limits, no ports) that
join PodGroup `<group prefix><index // podsPerGroup>` of their namespace through
`spec.schedulingGroup.podGroupName`; PodGroups are `scheduling.k8s.io/v1beta1` with a
`basic` or `gang` (`minCount: podsPerGroup`) policy, the `tas` ones with a topology
constraint on `topology.kubernetes.io/rack`. The `tas` nodes are `node-<i>` in racks (and
zones) of 100 nodes each.
"""

from __future__ import annotations

from typing import Any

from kubesched.bench.templates import HOSTNAME, ZONE, PodTemplate, node_default, pod

PODGROUP_API = "scheduling.k8s.io/v1beta1"
RACK = "topology.kubernetes.io/rack"
NODES_PER_RACK = 100
"""`tas/templates/node.yaml`: rack-<index / 100>, zone-<index / 100>."""


def member_pod(group_prefix: str, pods_per_group: int) -> PodTemplate:
    """`basic-pod.yaml` / `gang-pod.yaml`: pod `<prefix><i>` joins PodGroup
    `<group_prefix><i // pods_per_group>`."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        index = int(name.rsplit("-", 1)[-1])
        group = f"{group_prefix}{index // pods_per_group}"
        spec = {"schedulingGroup": {"podGroupName": group}}
        return pod(
            name,
            namespace,
            scheduler,
            memory="100Mi",
            limits=False,
            ports=False,
            spec=spec,
        )

    return template


def pod_group(
    name: str,
    namespace: str,
    *,
    min_count: int | None = None,
    topology_key: str = "",
) -> dict[str, Any]:
    """`podgroup.yaml`: policy `basic: {}` when `min_count` is None, else
    `gang: {minCount}`; `topology_key` adds `schedulingConstraints.topology`."""
    gang = {"minCount": min_count}
    policy: dict[str, Any] = {"basic": {}} if min_count is None else {"gang": gang}
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return {
        "apiVersion": PODGROUP_API,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def pod_group_path(namespace: str) -> str:
    """Where PodGroups of `namespace` are created."""
    return f"/apis/{PODGROUP_API}/namespaces/{namespace}/podgroups"


def rack_node(index: int) -> dict[str, Any]:
    """`tas/templates/node.yaml`: node-default's capacity, named `node-<index>`, in rack and
    zone `<index // 100>`."""
    domain = index // NODES_PER_RACK
    name = f"node-{index}"
    labels = {HOSTNAME: name, ZONE: f"zone-{domain}", RACK: f"rack-{domain}"}
    return node_default(name, labels)
