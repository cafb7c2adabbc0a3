"""NodeResourceTopologyMatch: Guaranteed pods placed inside one NUMA zone, scheduled by
scheduler-plugins' NodeResourceTopologyMatch profile (not a scheduler_perf test case:
upstream has none with NodeResourceTopology objects). Run it against scheduler-plugins'
own build:

    kubesched bench --workload NodeResourceTopologyMatch --size 5000 \\
        --contenders kubesched,scheduler-plugins

N nodes, each with a NodeResourceTopology object of two NUMA zones written as the
resource-topology exporter writes it (policy `single-numa-node`, scope `container` on
even-numbered nodes and `pod` on odd-numbered ones; the CRD installed before the contender
starts). Most nodes are `split`: two zones of 8 cpus and 16Gi (16 cpus, 32Gi in all); every
tenth node (node 0, 10, ...) is `wide`: zones of 24 cpus, 48Gi and 8 cpus, 16Gi. Every pod is
Guaranteed (integral cpus, limits = requests): the initial pods and 19 of every 20 measured
ones `small` (1 cpu, 2Gi: any zone holds it); the 20th `wide` (12 cpus, 16Gi): it fits every
node's total but only the 24-cpu zone of a wide node, so NodeResourceTopologyMatch alone
keeps it off the split nodes. The objects are not updated during the run (no exporter): the
profile runs the plugin without its over-reserve cache, so every pod is judged against the
zones as written, and NodeResourcesFit keeps each node within its allocatable.

Both schedulers run scheduler-plugins' example profile (NodeResourceTopologyMatch at every
extension point but Reserve, LeastAllocated) on top of their default plugins: v1.37.2's in
kubesched, v1.35.4's in scheduler-plugins' build (the same default scorers by name). The
checks add: every bound measured pod on a node where one zone of its object holds its
whole request (`numa_setup`). The null binder does not run it (it binds without looking at
the zones).
"""

from __future__ import annotations

from typing import Any

from kubesched.bench import templates as t
from kubesched.bench.catalogue_shapes import Params
from kubesched.bench.contenders import KUBE_SCHEDULER
from kubesched.bench.numa_setup import Zone, nrt_object
from kubesched.bench.workloads import PodGroup, Workload

NAME = "NodeResourceTopologyMatch"
PLUGIN = "NodeResourceTopologyMatch"
PLUGINS: dict[str, Any] = {
    "multiPoint": {"enabled": [{"name": PLUGIN}]},
    "reserve": {"disabled": [{"name": PLUGIN}]},
}
PLUGIN_CONFIG = ({"name": PLUGIN, "args": {"scoringStrategy": {"type": "LeastAllocated"}}},)
"""scheduler-plugins' manifests/noderesourcetopology/scheduler-configmap.yaml."""
SPLIT_ZONES: tuple[Zone, ...] = ({"cpu": "8", "memory": "16Gi"},) * 2
WIDE_ZONES: tuple[Zone, ...] = ({"cpu": "24", "memory": "48Gi"}, {"cpu": "8", "memory": "16Gi"})
WIDE_EVERY = 10
"""Every this many nodes, one is wide."""
WIDE_POD_EVERY = 20
"""Every this many measured pods, one is wide."""
SMALL_POD = ("1", "2Gi")
WIDE_POD = ("12", "16Gi")
NO_KUBE_SCHEDULER = (
    "kube-scheduler has no NodeResourceTopologyMatch: compare with --contenders "
    "kubesched,scheduler-plugins"
)


def node_name(index: int) -> str:
    """Node `index`'s name (also its NodeResourceTopology object's)."""
    return f"scheduler-perf-{index}"


def zones_of(index: int) -> tuple[Zone, ...]:
    """Node `index`'s zones: wide every `WIDE_EVERY`-th node, else split."""
    return WIDE_ZONES if index % WIDE_EVERY == 0 else SPLIT_ZONES


def numa_node(index: int) -> dict[str, Any]:
    """A node-default node whose cpu and memory are its zones summed."""
    node = t.node_default(node_name(index), {})
    zones = zones_of(index)
    cpu = sum(int(zone["cpu"]) for zone in zones)
    memory = sum(int(zone["memory"].removesuffix("Gi")) for zone in zones)
    capacity = {"pods": "110", "cpu": str(cpu), "memory": f"{memory}Gi"}
    node["status"]["capacity"] = capacity
    node["status"]["allocatable"] = dict(capacity)
    return node


def topology(index: int) -> dict[str, Any]:
    """Node `index`'s NodeResourceTopology object (container scope on even nodes, pod scope
    on odd ones)."""
    scope = "container" if index % 2 == 0 else "pod"
    return nrt_object(node_name(index), zones_of(index), scope=scope)


def guaranteed(cpu: str, memory: str) -> t.PodTemplate:
    """A template of Guaranteed pods requesting `cpu` and `memory` (limits equal)."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        return t.pod(name, namespace, scheduler, cpu=cpu, memory=memory)

    return template


small_pod = guaranteed(*SMALL_POD)
wide_pod = guaranteed(*WIDE_POD)


def measured_pod(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    """Pod `pod-<i>`: wide when i is a multiple of `WIDE_POD_EVERY`, else small."""
    index = int(name.rsplit("-", 1)[1])
    template = wide_pod if index % WIDE_POD_EVERY == 0 else small_pod
    return template(name, namespace, scheduler)


def _build(params: Params) -> Workload:
    nodes, init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=numa_node,
        initial=(PodGroup(small_pod, init, "namespace-1", "init-"),),
        measured=PodGroup(measured_pod, measure, "namespace-2", "pod-"),
        ceiling=False,
        plugins=PLUGINS,
        plugin_config=PLUGIN_CONFIG,
        topologies=topology,
        unsupported=((KUBE_SCHEDULER, NO_KUBE_SCHEDULER),),
    )


NUMA_CASES = (
    (
        NAME,
        {"5": (5, 5, 20), "500": (500, 500, 1000), "5000": (5000, 1000, 10000)},
        _build,
        dict.fromkeys(("5", "500", "5000"), "not a scheduler_perf test case"),
    ),
)
"""(name, sizes, build, notes) as `catalogue.Case` takes them."""
