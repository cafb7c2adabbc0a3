"""scheduler_perf's `podgroup` test cases (kubernetes/kubernetes
`test/integration/scheduler_perf/podgroup/{basicscheduling,gangscheduling,tas}/
performance-config.yaml`, v1.37): pods that join native PodGroups, with upstream's feature
gates on in kube-apiserver and both schedulers (`bench.gates`).

Each case is upstream's createNodes, createNamespaces (`<prefix>-0`), createPodGroups
(`initPodGroups` PodGroups, created after the nodes, before the scheduler starts: upstream
waits until its scheduler's informer has them), createPods (`initPodGroups *
podsPerGroup` measured pods, pod i in group i / podsPerGroup). There are no initial pods.

Params here are (initNodes, podsPerGroup, measured pods): `--initial-pods` sets
podsPerGroup, `--pods` the pods (rounded down to whole groups, at least one).

Sizes: `5` is upstream's `10Nodes_3Groups` (`10Nodes_3Gangs`); upstream has no 500-node
variant, so `500` is its first performance variant (`5000Nodes_1000Groups_3000Pods`,
`5000Nodes_750Gangs_3000Pods` for tas) on 500 nodes (5 racks for tas); `5000` is that
variant. The `..._1000PerGroup` variants (3 groups of 1000 pods) are not in the catalogue.

The checks add (`podgroup_checks`): no gang member bound before its whole gang existed, no
gang left partly bound, and each topology-constrained gang on nodes of one rack.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesched.bench import templates_podgroups as tp
from kubesched.bench.catalogue_shapes import Params, default_nodes
from kubesched.bench.gates import GENERIC_WORKLOAD, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING
from kubesched.bench.workloads import PodGroup, Workload


def _build(
    kind: str,
    namespace: str,
    pod_prefix: str,
    group_prefix: str,
    gates: tuple[str, ...],
) -> Callable[[Params], Workload]:
    """A case whose PodGroups are `kind` (`basic`, `gang`, `tas`)."""

    def build(params: Params) -> Workload:
        nodes, per_group, pods = params
        per_group = max(per_group, 1)
        groups = max(pods // per_group, 1)
        min_count = None if kind == "basic" else per_group
        rack = tp.RACK if kind == "tas" else ""
        bodies = (
            tp.pod_group(f"{group_prefix}{i}", namespace, min_count=min_count, topology_key=rack)
            for i in range(groups)
        )
        template = tp.member_pod(group_prefix, per_group)
        return Workload(
            name="",
            nodes=nodes,
            node_factory=tp.rack_node if kind == "tas" else default_nodes(),
            initial=(),
            measured=PodGroup(template, groups * per_group, namespace, pod_prefix),
            namespaces=(namespace,),
            objects=tuple((tp.pod_group_path(namespace), body) for body in bodies),
            feature_gates=gates,
        )

    return build


_GATES = (GENERIC_WORKLOAD,)
_TAS_GATES = (GENERIC_WORKLOAD, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING)
_SMALL = "upstream's 10Nodes_3{}"
_ON_500 = "upstream has no 500-node variant: its 5000Nodes_{} on 500 nodes"
_BIG = "upstream's 5000Nodes_{}"
_GROUPS, _GANGS, _TAS = "1000Groups_3000Pods", "1000Gangs_3000Pods", "750Gangs_3000Pods"


def _notes(small: str, big: str) -> dict[str, str]:
    return {"5": _SMALL.format(small), "500": _ON_500.format(big), "5000": _BIG.format(big)}


PODGROUP_CASES = (
    (
        "BasicScheduling",
        {"5": (10, 3, 9), "500": (500, 3, 3000), "5000": (5000, 3, 3000)},
        _build("basic", "basic-ns-0", "test-basic-scheduling-", "basic-group-", _GATES),
        _notes("Groups", _GROUPS),
    ),
    (
        "GangScheduling",
        {"5": (10, 3, 9), "500": (500, 3, 3000), "5000": (5000, 3, 3000)},
        _build("gang", "gang-ns-0", "test-gang-scheduling-", "gang-", _GATES),
        _notes("Gangs", _GANGS),
    ),
    (
        "TopologyAwareScheduling",
        {"5": (10, 3, 9), "500": (500, 4, 3000), "5000": (5000, 4, 3000)},
        _build("tas", "tas-ns-0", "test-tas-scheduling-", "gang-", _TAS_GATES),
        _notes("Gangs", _TAS),
    ),
)
"""(name, sizes, build, notes) as `catalogue.Case` takes them."""
