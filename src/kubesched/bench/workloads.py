"""The benchmark's workloads: which nodes to create and which pods, modelled on the
templates of kube-scheduler's scheduler_perf (node: 4 CPU, 32Gi, 110 pods, Ready, no
taints; pod: one `pause` container requesting 100m CPU and 500Mi, limits equal).

    basic        N plain nodes, I initial + M measured plain pods
    constrained  a quarter of the nodes tainted `dedicated=infra:NoSchedule`, nodes spread
                 over three zones; measured pods are a fixed mix of plain pods, pods that
                 tolerate the taint and require the infra nodes, pods that require two of
                 the zones (and prefer one), and resource-heavy pods (1 CPU, 4Gi)
    large        basic at 5000 nodes, 10000 measured pods
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubesched.testing import make_node, make_pod

ZONES = ("zone-a", "zone-b", "zone-c")
ZONE_LABEL = "topology.kubernetes.io/zone"
INFRA_LABEL = "dedicated"
# Out of every 20 measured pods in `constrained`: which kind each one is.
_CONSTRAINED_MIX = ("plain",) * 10 + ("infra",) * 3 + ("zonal",) * 4 + ("heavy",) * 3


@dataclass(frozen=True, slots=True)
class Workload:
    """How many objects to create, and how the i-th node and measured pod look."""

    name: str
    nodes: int
    initial_pods: int
    pods: int
    node_factory: Callable[[int], dict[str, Any]]
    pod_kind: Callable[[int], str]

    def node(self, index: int) -> dict[str, Any]:
        return self.node_factory(index)

    def initial_pod(self, index: int, *, namespace: str, scheduler_name: str) -> dict[str, Any]:
        return pod_object(f"init-{index}", namespace, scheduler_name, "plain")

    def measured_pod(self, index: int, *, namespace: str, scheduler_name: str) -> dict[str, Any]:
        return pod_object(f"pod-{index}", namespace, scheduler_name, self.pod_kind(index))


def plain_node(index: int) -> dict[str, Any]:
    """scheduler_perf's node template."""
    return make_node().name(f"node-{index}").obj()


def constrained_node(index: int) -> dict[str, Any]:
    builder = make_node().name(f"node-{index}").label(ZONE_LABEL, ZONES[index % len(ZONES)])
    if index % 4 == 3:
        builder.label(INFRA_LABEL, "infra").taint(INFRA_LABEL, "infra", "NoSchedule")
    return builder.obj()


def pod_object(name: str, namespace: str, scheduler_name: str, kind: str) -> dict[str, Any]:
    """scheduler_perf's pod template (requests = limits), varied by `kind`."""
    cpu, memory = ("1", "4Gi") if kind == "heavy" else ("100m", "500Mi")
    builder = make_pod().name(name).namespace(namespace).scheduler(scheduler_name)
    builder.req(cpu=cpu, memory=memory)
    if kind == "infra":
        builder.toleration(INFRA_LABEL, "infra", effect="NoSchedule")
        builder.required_node_affinity(INFRA_LABEL, "In", ["infra"])
    elif kind == "zonal":
        builder.required_node_affinity(ZONE_LABEL, "In", list(ZONES[:2]))
        builder.preferred_node_affinity(10, ZONE_LABEL, "In", [ZONES[0]])
    pod = builder.obj()
    pod["metadata"].pop("uid", None)  # the API server assigns it
    container = pod["spec"]["containers"][0]
    container["resources"]["limits"] = dict(container["resources"]["requests"])
    return pod


def _plain(_index: int) -> str:
    return "plain"


def _mixed(index: int) -> str:
    return _CONSTRAINED_MIX[index % len(_CONSTRAINED_MIX)]


def make_workload(
    name: str, *, nodes: int | None = None, initial_pods: int | None = None, pods: int | None = None
) -> Workload:
    """A named workload with its defaults, each count overridable."""
    defaults = {
        "basic": (1000, 1000, 5000),
        "constrained": (1000, 1000, 5000),
        "large": (5000, 1000, 10000),
    }
    if name not in defaults:
        raise ValueError(f"unknown workload {name!r}; choose one of {', '.join(defaults)}")
    n, i, m = defaults[name]
    return Workload(
        name=name,
        nodes=n if nodes is None else nodes,
        initial_pods=i if initial_pods is None else initial_pods,
        pods=m if pods is None else pods,
        node_factory=constrained_node if name == "constrained" else plain_node,
        pod_kind=_mixed if name == "constrained" else _plain,
    )


WORKLOADS = ("basic", "constrained", "large")
