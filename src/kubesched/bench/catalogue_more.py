"""scheduler_perf's test cases beyond the first twelve (`catalogue`) and the DRA ones
(`catalogue_dra`): the namespace-selector and matching anti-affinity variants of
`affinity/`, `topology_spreading/`'s DefaultTopologySpreading and
SchedulingWithNodeInclusionPolicy, `misc/`'s SchedulingDaemonset, `volumes/`'s
SchedulingSecrets and `batching/`'s HostPortConflict and ResourceSaturation (v1.37).

Each entry is (name, sizes, build, notes) as `catalogue.Case` takes them; sizes map to
(nodes, initial pods, measured pods) as there. Upstream parameters that do not fit those
three are fixed per size here: the namespace-selector cases' `initNamespaces` (2, 10, 100
at upstream's 10Nodes, 500Nodes and 5000Nodes variants), SchedulingWithNodeInclusionPolicy's
tainted nodes (a fifth, as in each of its variants), batching's `signatureBatchSize` (the
benchmark creates pods as fast as the API server takes them, in no batches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench import templates_more as m
from kubesched.bench.catalogue_shapes import Params, default_nodes, simple
from kubesched.bench.workloads import PodGroup, Workload

Entry = tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]]


def _init_namespaces(nodes: int) -> int:
    """upstream's `initNamespaces` of the variant nearest to `nodes` nodes."""
    return 2 if nodes < 500 else 10 if nodes < 5000 else 100


def _ns_selector(template: t.PodTemplate, *, zone: str = "") -> Callable[[Params], Workload]:
    """createNodes, labelled namespaces init-ns-0.. and measure-ns-0, `init` pods in each
    init namespace (createPodSets), then the measured pods in measure-ns-0."""

    def build(params: Params) -> Workload:
        nodes, per_namespace, measure = params
        init = tuple(f"init-ns-{i}" for i in range(_init_namespaces(nodes)))
        return Workload(
            name="",
            nodes=nodes,
            node_factory=default_nodes((zone,) if zone else ()),
            labelled_namespaces=(*init, "measure-ns-0"),
            initial=tuple(PodGroup(template, per_namespace, ns, "init-") for ns in init),
            measured=PodGroup(template, measure, "measure-ns-0", "pod-"),
        )

    return build


def _default_spreading(params: Params) -> Workload:
    """Plain pods, then pods a Service selects: the default constraints spread them."""
    nodes, init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(("moon-1", "moon-2", "moon-3")),
        namespaces=("service-ns",),
        objects=(("/api/v1/namespaces/service-ns/services", m.service("service-0", "service-ns")),),
        initial=(PodGroup(t.pod_default, init, "namespace-2", "init-"),),
        measured=PodGroup(m.pod_with_label, measure, "service-ns", "pod-"),
    )


def _node_inclusion_policy(params: Params) -> Workload:
    """A fifth of the nodes tainted (`foo:NoSchedule`, created last), pods spread per host
    honouring taints."""
    nodes, _init, measure = params
    normal = nodes - nodes // 5

    def node(index: int) -> dict[str, Any]:
        if index < normal:
            return t.node_default(f"scheduler-perf-{index}", {})
        return m.node_with_taint(f"taint-node-{index - normal}")

    return Workload(
        name="",
        nodes=nodes,
        node_factory=node,
        initial=(),
        measured=PodGroup(m.pod_with_node_inclusion_policy, measure, "namespace-2", "pod-"),
    )


def _daemonset(params: Params) -> Workload:
    """`scheduler-perf-node` and `nodes` others; every pod requires the first by name."""
    nodes, _init, measure = params
    return Workload(
        name="",
        nodes=nodes + 1,
        node_factory=lambda i: m.node_with_name() if i == 0 else t.node_default(f"n-{i}", {}),
        initial=(),
        measured=PodGroup(m.daemonset_pod, measure, "namespace-2", "pod-"),
    )


_NO_TOPOLOGY_DEFAULTS = (
    {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": []}},
)
"""`batching/scheduler-config-no-topology.yaml`: no default spreading constraints."""


def _one_pod_a_node(template: t.PodTemplate) -> Callable[[Params], Workload]:
    def build(params: Params) -> Workload:
        nodes, _init, measure = params
        return Workload(
            name="",
            nodes=nodes,
            node_factory=default_nodes(),
            initial=(),
            measured=PodGroup(template, measure, "namespace-1", "pod-"),
            plugin_config=_NO_TOPOLOGY_DEFAULTS,
        )

    return build


_NS_REQUIRED_ANTI = {"5": (10, 2, 6), "500": (500, 4, 100), "5000": (5000, 40, 1000)}
_NS_OTHERS = {"5": (10, 2, 10), "500": (500, 4, 100), "5000": (5000, 40, 1000)}
_NS_AFFINITY = {"5": (10, 2, 10), "500": (500, 4, 100), "5000": (5000, 50, 1000)}
_TEN_NODES = {"5": "upstream's 10Nodes variant"}
_BATCHING_NOTES = {
    "5": "upstream's 10Nodes_10Pods variant",
    "500": "upstream has no 500-node variant: 500 nodes and pods, one a node as in its others",
    "5000": "upstream's 20000Nodes_20000Pods variant",
}
_BATCHING_SIZES = {"5": (10, 0, 10), "500": (500, 0, 500), "5000": (20000, 0, 20000)}

MORE_CASES: tuple[Entry, ...] = (
    (
        "SchedulingPodMatchingAntiAffinity",
        {"5": (5, 1, 4), "500": (500, 100, 400), "5000": (5000, 1000, 5000)},
        simple(
            m.pod_with_pod_anti_affinity_label,
            initial=t.pod_with_pod_anti_affinity,
            sched_namespaces=True,
        ),
        {},
    ),
    (
        "SchedulingRequiredPodAntiAffinityWithNSSelector",
        _NS_REQUIRED_ANTI,
        _ns_selector(m.pod_anti_affinity_ns_selector),
        _TEN_NODES,
    ),
    (
        "SchedulingPreferredAntiAffinityWithNSSelector",
        _NS_OTHERS,
        _ns_selector(m.pod_preferred_anti_affinity_ns_selector),
        _TEN_NODES,
    ),
    (
        "SchedulingRequiredPodAffinityWithNSSelector",
        _NS_AFFINITY,
        _ns_selector(m.pod_affinity_ns_selector, zone="zone1"),
        _TEN_NODES,
    ),
    (
        "SchedulingPreferredAffinityWithNSSelector",
        _NS_AFFINITY,
        _ns_selector(m.pod_preferred_affinity_ns_selector),
        _TEN_NODES,
    ),
    (
        "DefaultTopologySpreading",
        {"5": (5, 10, 10), "500": (500, 1000, 1000), "5000": (5000, 5000, 10000)},
        _default_spreading,
        {},
    ),
    (
        "SchedulingWithNodeInclusionPolicy",
        {"5": (5, 0, 4), "500": (500, 0, 400), "5000": (5000, 0, 4000)},
        _node_inclusion_policy,
        {},
    ),
    (
        "SchedulingDaemonset",
        {"5": (5, 0, 10), "500": (500, 0, 1000), "5000": (15000, 0, 30000)},
        _daemonset,
        {
            "500": "upstream has no 500-node variant: 500 nodes and 1000 pods",
            "5000": "upstream's 15000Nodes variant",
        },
    ),
    (
        "SchedulingSecrets",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 1000, 10000)},
        simple(m.pod_with_secret_volume),
        {},
    ),
    ("HostPortConflict", _BATCHING_SIZES, _one_pod_a_node(m.pod_hostport_80), _BATCHING_NOTES),
    ("ResourceSaturation", _BATCHING_SIZES, _one_pod_a_node(m.pod_saturation), _BATCHING_NOTES),
)
