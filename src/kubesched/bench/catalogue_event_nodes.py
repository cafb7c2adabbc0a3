"""scheduler_perf's EventHandlingNodeAdd and EventHandlingNodeUpdate (`event_handling/`,
v1.37) as scripts (`bench.script`): pods held back by the nodes there are, one group a
plugin (NodeUnschedulable, NodeResources, InterPodAffinity, NodeAffinity,
PodTopologySpread, TaintToleration), let through stage by stage by nodes added
(NodeAdd) or by the same nodes updated (NodeUpdate). Every pod of the six namespaces is
measured; see `catalogue_event_handling`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.bench import templates_event_handling as h
from kubesched.bench.catalogue_shapes import Params
from kubesched.bench.script import (
    Barrier,
    CreateNodes,
    CreatePods,
    Script,
    Step,
    Update,
    scripted_workload,
)
from kubesched.bench.templates import PodTemplate
from kubesched.bench.workloads import PodGroup, Workload

NAMESPACES = (
    "nodeunschedulable",
    "noderesources",
    "interpodaffinity",
    "nodeaffinity",
    "podtopologyspread",
    "tainttoleration",
)
UPDATES_PER_SECOND = 100.0
_ZONE = "topology.kubernetes.io/zone"
_NODE_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "affinity", "operator": "In", "values": ["allow"]}]}
            ]
        }
    }
}


def _group(namespace: str, count: int, template: PodTemplate) -> PodGroup:
    return PodGroup(template, count, namespace, f"pod-{namespace}-")


def _labelled_groups(measure: int, *, min_domains: int, max_skew: int) -> tuple[PodGroup, ...]:
    """The pods held back by nodes without labels: `color: green` pods with affinity to
    themselves per zone, pods requiring `affinity: allow`, `color: blue` pods spread over
    `topology` (all tolerate the `allow` taint)."""
    green = {"color": "green"}
    return (
        _group(
            "interpodaffinity",
            measure,
            h.plain_pod(
                labels=green,
                tolerate=["allow"],
                affinity={"podAffinity": h.pod_affinity("green", _ZONE)},
            ),
        ),
        _group("nodeaffinity", measure, h.plain_pod(tolerate=["allow"], affinity=_NODE_AFFINITY)),
        _group(
            "podtopologyspread",
            measure,
            h.plain_pod(
                labels={"color": "blue"},
                tolerate=["allow"],
                topologySpreadConstraints=h.spread(
                    max_skew, min_domains, "topology", {"color": "blue"}
                ),
            ),
        ),
    )


def _stage(groups: tuple[PodGroup, ...], release: Step) -> tuple[Step, ...]:
    """createPods (not waited for), barrier Attempted, the releasing op, barrier."""
    return (
        *(CreatePods(group) for group in groups),
        Barrier(groups, attempted=True),
        release,
        Barrier(groups),
    )


def _nodes(prefix: str, count: int, **shape: Any) -> CreateNodes:
    return CreateNodes(lambda i: h.node(f"{prefix}{i}", **shape), count)


def node_add(params: Params) -> Workload:
    """One unschedulable node (zone1, `affinity`/`topology: allow`) and one too small for
    the NodeResources pods; then high-capacity nodes (no labels) let the first two groups
    through, nodes with the labels the next three, nodes with the `toleration` taint the
    last."""
    nodes, _none, measure = params
    unschedulable = _group("nodeunschedulable", measure, h.plain_pod(tolerate=["allow"]))
    resources = _group(
        "noderesources", measure, h.plain_pod(tolerate=["allow"], cpu="0.2", memory="200Mi")
    )
    taint = _group("tainttoleration", measure, h.plain_pod(tolerate=["toleration"]))
    labels = h.UNBLOCKING_LABELS
    steps = (
        _nodes("node-unschedulable-", 1, labels=labels, taints=["allow"], unschedulable=True),
        CreatePods(unschedulable),
        Barrier((unschedulable,), attempted=True),
        _nodes("node-low-capacity-", 1, capacity=_LOW, taints=["allow"]),
        CreatePods(resources),
        Barrier((unschedulable, resources), attempted=True),
        _nodes("node-high-capacity-", nodes, capacity=_HIGH, taints=["allow"]),
        Barrier((unschedulable, resources)),
        *_stage(
            _labelled_groups(measure, min_domains=10000, max_skew=1000),
            _nodes("node-unblocker-", nodes, labels=labels, taints=["allow"]),
        ),
        *_stage((taint,), _nodes("node-with-taint-", nodes, taints=["toleration"])),
    )
    script = Script(steps, NAMESPACES, 6 * measure, own_nodes=True)
    return scripted_workload(script)


_LOW = {"pods": "3000", "cpu": "0.1", "memory": "100Mi"}
_HIGH = {"pods": "3000", "cpu": "200", "memory": "200Gi"}
_TINY = {"pods": "3000", "cpu": "0.0001", "memory": "1Mi"}


def _update(prefix: str, count: int, change: Any, subresource: str = "") -> Update:
    path: Callable[[int], str] = lambda i: f"/api/v1/nodes/{prefix}{i}"  # noqa: E731
    return Update(path, change, count, UPDATES_PER_SECOND, (subresource,))


def node_update(params: Params) -> Workload:
    """Each stage's nodes created holding its pods back, then updated at 100/s: made
    schedulable, grown (status), labelled, their `allow` taint replaced by
    `toleration-<i>` (pod i tolerates `toleration-<i/10>`)."""
    nodes, _none, measure = params
    unschedulable = _group("nodeunschedulable", measure, h.plain_pod(tolerate=["allow"]))
    resources = _group(
        "noderesources",
        measure,
        h.plain_pod(tolerate=["allow-noderesources"], cpu="0.35", memory="3Gi"),
    )
    taint = _group(
        "tainttoleration",
        measure,
        h.indexed(lambda i: h.plain_pod(tolerate=[f"toleration-{i // 10}"])),
    )
    steps = (
        _nodes("node-unschedulable-", nodes, taints=["allow"], unschedulable=True),
        *_stage((unschedulable,), _update("node-unschedulable-", nodes, h.make_schedulable)),
        _nodes("node-low-capacity-", nodes, capacity=_TINY, taints=["allow-noderesources"]),
        *_stage((resources,), _update("node-low-capacity-", nodes, h.grow, "status")),
        _nodes("node-without-labels-", nodes, taints=["allow"]),
        *_stage(
            _labelled_groups(measure, min_domains=1, max_skew=1),
            _update("node-without-labels-", nodes, h.add_labels),
        ),
        _nodes("node-without-taints-", nodes, taints=["allow"]),
        *_stage((taint,), _update("node-without-taints-", nodes, h.retaint)),
    )
    script = Script(steps, NAMESPACES, 6 * measure, own_nodes=True)
    return scripted_workload(script)
