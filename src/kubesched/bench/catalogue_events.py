"""scheduler_perf's test cases (v1.37) about what a scheduler's queue does with cluster
events rather than about placing one kind of pod: `misc/`'s SchedulingWhileGated,
SchedulingDeletedPodsWithFinalizers and SchedulingWithExtendedResource, `affinity/`'s
SchedulingGatedPodsWithPodAffinityImpactForThroughput, `starvation/`'s StarvationIndependent
and StarvationPodGroup, and `default_preemption/`'s PreemptionAsync.

Each entry is (name, sizes, build, notes) as `catalogue.Case` takes them; sizes map to
(nodes, initial pods, measured pods) as there, with these readings: the gated cases run on
upstream's one node (`node-with-name.yaml`), their "initial pods" being SchedulingWhileGated's
`deletingPods` and the affinity case's `gatedPods`; SchedulingDeletedPodsWithFinalizers'
are its `deletingPods`, the starvation cases' their `cloggerPods`;
SchedulingWithExtendedResource's nodes are those with the resource.
Namespaces are `namespace-<op index>` as scheduler_perf names them.

Upstream ops the benchmark runs in its own shape: pods created with `skipWaitToCompletion`
are `Workload.unwaited` (created after the initial pods are bound, just before the measured
ones; upstream's `barrier` with `stageRequirement: Attempted` after them is
`Workload.attempted_barrier`, `bench.barrier`); `deletePods` in the background is a
`delete` churn.

`THRESHOLDS`: upstream's `threshold` (pods/s, Average, its `performance` variant).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench import templates_events as e
from kubesched.bench import templates_more as m
from kubesched.bench import templates_podgroups as tp
from kubesched.bench.catalogue_shapes import Params, default_nodes
from kubesched.bench.gates import GENERIC_WORKLOAD
from kubesched.bench.workloads import Churn, PodGroup, Workload

STARVATION_VICTIMS = "starvation-victims"
Entry = tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]]

THRESHOLDS: dict[str, tuple[str, int]] = {
    "SchedulingWhileGated": ("1Node_10000GatedPods", 910),
    "SchedulingDeletedPodsWithFinalizers": ("5000Node_5000DeletingPods", 830),
    "SchedulingWithExtendedResource": ("5000pods_5000nodes_DRAExtendedResourceEnabled", 180),
    "SchedulingGatedPodsWithPodAffinityImpactForThroughput": ("1Node_10000GatedPods", 750),
    "PreemptionAsync": ("5000Nodes", 570),
}
"""Case -> (upstream's performance variant, its threshold in pods/s); the starvation cases
have none."""


def _gated_pods(deleting: int) -> int:
    """SchedulingWhileGated's `gatedPods` of the variant nearest: 10 beside 10 deleting
    pods, 10000 beside 20000."""
    return 10 if deleting < 20000 else 10000


def _while_gated(params: Params) -> Workload:
    """One node; gated pods (never lifted); light pods bound, then deleted at 50/s while
    the measured light pods are scheduled (many AssignedPodDelete events, each of which the
    queue weighs against every gated pod)."""
    nodes, deleting, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=lambda _i: m.node_with_name(),
        initial=(PodGroup(e.light_pod, deleting, "namespace-3", "deleting-"),),
        unwaited=(PodGroup(e.gated_pod, _gated_pods(deleting), "namespace-1", "gated-"),),
        attempted_barrier=True,
        measured=PodGroup(e.light_pod, measure, "namespace-5", "pod-"),
        churn=Churn("delete", (), 1 / 50, "namespace-3"),
    )


def _deleted_with_finalizers(params: Params) -> Workload:
    """Pods with a finalizer created, then deleted at 100/s (a pod not yet scheduled keeps
    its deletionTimestamp and must not be scheduled) while the measured light pods are."""
    nodes, deleting, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(),
        unwaited=(PodGroup(e.pod_with_finalizer, deleting, "namespace-1", "finalizer-"),),
        measured=PodGroup(e.light_pod, measure, "namespace-3", "pod-"),
        churn=Churn("delete", (), 1 / 100, "namespace-1"),
    )


def _without_extended(nodes: int) -> int:
    """`nodesWithoutExtendedResource` of the variant nearest: 1 beside 10, else 0."""
    return 1 if nodes < 500 else 0


def _extended_resource(params: Params) -> Workload:
    """node-default nodes, then nodes each with one `foo.com/bar-<i>`; measured pod i
    requests `foo.com/bar-<i>`, so only node i fits it."""
    nodes, _init, measure = params
    plain = _without_extended(nodes)

    def node(index: int) -> dict[str, Any]:
        if index < plain:
            return t.node_default(f"scheduler-perf-{index}", {})
        return e.node_with_extended_resource(index - plain)

    return Workload(
        name="",
        nodes=plain + nodes,
        node_factory=node,
        initial=(),
        measured=PodGroup(e.pod_with_extended_resource, measure, "test", "test-extended-resource-"),
    )


def _gated_affinity(params: Params) -> Workload:
    """One node; gated pods whose required pod affinity matches every measured pod (each
    measured pod bound is an AssignedPodAdd event the queue checks them against)."""
    nodes, gated, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=lambda _i: m.node_with_name(),
        initial=(),
        unwaited=(PodGroup(e.gated_pod_with_pod_affinity, gated, "namespace-1", "gated-"),),
        attempted_barrier=True,
        measured=PodGroup(m.pod_with_label, measure, "namespace-3", "pod-"),
    )


def _starvation(params: Params) -> Workload:
    """Cloggers (priority 1000, fit nowhere, woken by every churn pod) attempted once, then
    victims (priority 0, fit anywhere) while 600 churn pods (priority 10000) a second are
    deleted and created again: the victims must still be scheduled."""
    nodes, cloggers, victims = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=e.starvation_node,
        namespaces=("starvation-0",),
        initial=(),
        unwaited=(PodGroup(e.clogger_pod, cloggers, "starvation-0", "clogger-"),),
        attempted_barrier=True,
        measured=PodGroup(e.victim_pod, victims, STARVATION_VICTIMS, "victim-"),
        churn=Churn("recreate", ("pod:starvation",), 1.0, "starvation-0", number=600),
        priority_classes=((e.CHURN_PRIORITY_CLASS, 10000), (e.CLOGGER_PRIORITY_CLASS, 1000)),
    )


def _starvation_pod_group(params: Params) -> Workload:
    """StarvationIndependent with every clogger in one gang, PodGroup `podgroup-0`
    (`minCount`: the cloggers, the cloggers' PriorityClass), GenericWorkload on: the gang
    fits nowhere, and the churn wakes it as it wakes the cloggers alone."""
    workload = _starvation(params)
    cloggers = params[1]
    group = tp.pod_group(e.STARVATION_POD_GROUP, "starvation-0", min_count=cloggers)
    group["spec"]["priorityClassName"] = e.CLOGGER_PRIORITY_CLASS
    return replace(
        workload,
        unwaited=(PodGroup(e.clogger_podgroup_pod, cloggers, "starvation-0", "clogger-"),),
        objects=((tp.pod_group_path("starvation-0"), group),),
        feature_gates=(GENERIC_WORKLOAD,),
    )


def _preemption_async(params: Params) -> Workload:
    """Low-priority 900m pods fill the nodes (4 per node); plain measured pods while a
    3970m priority-9999999 pod, which must evict every pod of a node, is created every
    200 ms (never deleted)."""
    nodes, init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(PodGroup(t.pod_low_priority, init, "namespace-1", "init-"),),
        measured=PodGroup(t.pod_default, measure, "namespace-3", "pod-"),
        churn=Churn("create", ("pod:preemptor",), 0.2, "namespace-2"),
        ceiling=False,
        priority_classes=((e.PREEMPTOR_PRIORITY_CLASS, 9999999),),
    )


_STARVATION_NOTE = (
    "the victims in namespace starvation-victims, not starvation-0 with the churn pods and "
    "cloggers (the benchmark follows every pod of the measured namespace; no clogger's "
    "affinity selects a victim); the churn starts with the measured phase, after the barrier"
)
_STARVATION_NOTES = {
    "5": _STARVATION_NOTE,
    "500": f"upstream's 10000Nodes_10000Cloggers variant; {_STARVATION_NOTE}",
    "5000": f"upstream's 10000Nodes_10000Cloggers variant; {_STARVATION_NOTE}",
}
_POD_GROUP_NOTE = (
    "podgroup-0 has the cloggers' PriorityClass (priority 1000): upstream's podgroup.yaml "
    "sets none, so its priority is 0 and v1.37.2's kube-scheduler fails every attempt of "
    "the gang with a SchedulerError (its pods' priority differs from the group's) instead "
    "of finding it unschedulable; "
)
_BIG_POD_GROUP = "upstream's 10000Nodes_10000Cloggers_Podgroup variant"
_ONE_NODE = {"5": (1, 10, 10), "500": (1, 20000, 20000), "5000": (1, 20000, 20000)}
_ONE_NODE_NOTES = {
    "500": "upstream has no 500-node variant (it runs on one node): its 1Node_10000GatedPods",
    "5000": "upstream's 1Node_10000GatedPods variant (one node)",
}
_GATED_AFFINITY = {"5": (1, 10, 10), "500": (1, 10000, 20000), "5000": (1, 10000, 20000)}

EVENT_CASES: tuple[Entry, ...] = (
    ("SchedulingWhileGated", _ONE_NODE, _while_gated, _ONE_NODE_NOTES),
    (
        "SchedulingDeletedPodsWithFinalizers",
        {"5": (10, 10, 10), "500": (1000, 1000, 1000), "5000": (5000, 5000, 5000)},
        _deleted_with_finalizers,
        {
            "5": "upstream's 10Node_100DeletingPods variant (10 deleting pods)",
            "500": "upstream has no 500-node variant: its 1000Node_1000DeletingPods",
        },
    ),
    (
        "SchedulingWithExtendedResource",
        {"5": (10, 0, 10), "500": (500, 0, 500), "5000": (5000, 0, 5000)},
        _extended_resource,
        {"5": "upstream's fast variant: 10 nodes with the resource, 1 without"},
    ),
    (
        "SchedulingGatedPodsWithPodAffinityImpactForThroughput",
        _GATED_AFFINITY,
        _gated_affinity,
        _ONE_NODE_NOTES,
    ),
    (
        "StarvationIndependent",
        {"5": (10, 100, 50), "500": (10000, 10000, 500), "5000": (10000, 10000, 500)},
        _starvation,
        _STARVATION_NOTES,
    ),
    (
        "StarvationPodGroup",
        {"5": (10, 100, 50), "500": (10000, 10000, 500), "5000": (10000, 10000, 500)},
        _starvation_pod_group,
        {
            "5": f"upstream's 10Nodes_100Cloggers_Podgroup; {_POD_GROUP_NOTE}{_STARVATION_NOTE}",
            "500": f"{_BIG_POD_GROUP}; {_POD_GROUP_NOTE}{_STARVATION_NOTE}",
            "5000": f"{_BIG_POD_GROUP}; {_POD_GROUP_NOTE}{_STARVATION_NOTE}",
        },
    ),
    (
        "PreemptionAsync",
        {"5": (5, 20, 5), "500": (500, 2000, 500), "5000": (5000, 20000, 5000)},
        _preemption_async,
        {},
    ),
)
