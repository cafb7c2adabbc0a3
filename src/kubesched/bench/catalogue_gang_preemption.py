"""scheduler_perf's `workload_preemption` test cases (kubernetes/kubernetes
`test/integration/scheduler_perf/workload_preemption/performance-config.yaml`, v1.37): gangs
(native PodGroups, GenericWorkload on in kube-apiserver and both schedulers) that fit only by
preempting lower-priority pods.

* GangPreemptionBasic: low-priority 40m pods spread by host port over the nodes, then
  preemptor gangs of 3970m pods (the whole of a node but 30m): every low pod is evicted.
* GangPreemptionPodGroups: low-priority gangs of 600m pods (priority 1000, a group's pods
  on different nodes by host port), then priority-9999999 gangs of 3500m pods: every low
  gang loses its pods.
* GangPreemptionAffinity: a high-priority anchor on each node, low-priority pods, then
  gangs of 3970m pods that require a blue pod (anchors and low pods) on their node.

Params are (initNodes, initPods, measured pods) for Basic and Affinity and (initNodes,
lowPriorityGroups, measured pods) for PodGroups. podsPerGroup is 2 on upstream's 2-node
variants (size `5`) and 10 on its 100-node ones; the measured pods are whole groups.
Upstream has no variant above 100 nodes: sizes `500` and `5000` are its
`100Nodes_10PreemptorGangs_10Pods_*` variant. Its `..._1PreemptorGang_100Pods_...` variants
are not in the catalogue. The null binder cannot preempt and does not run these.

And `default_preemption/`'s PreemptionPodGroupDisruptionMode: low-priority gangs
(priority 1000) whose PodGroups have `disruptionMode: all`, a node's free CPU 1000m, then
plain priority-9999999 pods of 3970m (`pod-high-priority.yaml`, namespace gang-preempt-0):
each must evict every pod of a node, and with `all` every pod of those pods' gangs too,
wherever they run. Params are (initNodes, lowPriorityGroups, measurePods); upstream's
2-node variants (size `5`) have 2 pods a group of 1500m, its 1000-node ones (sizes `500`
and `5000`: it has no other) 10 of 300m. Its NoPodGroup and DisruptionSingle variants (the
same workload with the gangs' pods not in their groups, or `single`) are not in the
catalogue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.bench import templates_events as te
from kubesched.bench import templates_gang_preemption as tg
from kubesched.bench.catalogue_shapes import Params, default_nodes
from kubesched.bench.gates import GENERIC_WORKLOAD
from kubesched.bench.templates_podgroups import pod_group_path
from kubesched.bench.workloads import PodGroup, Workload

PREEMPTORS, LOW, ANCHORS = "gang-preempt-0", "gang-preempt-1", "gang-preempt-2"
LOW_GANG_PRIORITY = 1000


def _per_group(nodes: int) -> int:
    return 2 if nodes <= 2 else 10


def _groups(
    namespace: str, count: int, per_group: int, priority: int
) -> tuple[tuple[str, dict[str, Any]], ...]:
    path = pod_group_path(namespace)
    return tuple((path, tg.gang_group(i, namespace, per_group, priority)) for i in range(count))


def _classes(*values: int) -> tuple[tuple[str, int], ...]:
    return tuple((tg.priority_class(value), value) for value in values)


def _basic(affinity: bool) -> Callable[[Params], Workload]:
    def build(params: Params) -> Workload:
        nodes, init, measure = params
        per_group = _per_group(nodes)
        groups = max(measure // per_group, 1)
        initial = [PodGroup(tg.low_priority_pod(init, nodes), init, LOW, "pod-low-priority-")]
        if affinity:
            initial.insert(0, PodGroup(tg.anchor_pod(nodes), nodes, ANCHORS, "pod-anchor-"))
            template = tg.gang_affinity_pod(per_group)
        else:
            template = tg.gang_pod(per_group, "3970m")
        return Workload(
            name="",
            nodes=nodes,
            node_factory=default_nodes(),
            namespaces=(PREEMPTORS, LOW, ANCHORS) if affinity else (PREEMPTORS, LOW),
            initial=tuple(initial),
            measured=PodGroup(template, groups * per_group, PREEMPTORS, "pod-gang-"),
            ceiling=False,
            objects=_groups(PREEMPTORS, groups, per_group, tg.GANG_PRIORITY),
            priority_classes=_classes(tg.GANG_PRIORITY, tg.HIGH_PRIORITY),
            feature_gates=(GENERIC_WORKLOAD,),
        )

    return build


def _podgroups(params: Params) -> Workload:
    nodes, low_groups, measure = params
    per_group = _per_group(nodes)
    groups = max(measure // per_group, 1)
    low = tg.gang_pod(per_group, "600m", priority=LOW_GANG_PRIORITY, host_port_base=8000)
    high = tg.gang_pod(per_group, "3500m", priority=tg.HIGH_PRIORITY, host_port_base=9000)
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        namespaces=(PREEMPTORS, LOW),
        initial=(PodGroup(low, low_groups * per_group, LOW, "pod-low-gang-"),),
        measured=PodGroup(high, groups * per_group, PREEMPTORS, "pod-gang-"),
        ceiling=False,
        objects=(
            *_groups(LOW, low_groups, per_group, LOW_GANG_PRIORITY),
            *_groups(PREEMPTORS, groups, per_group, tg.HIGH_PRIORITY),
        ),
        priority_classes=_classes(LOW_GANG_PRIORITY, tg.HIGH_PRIORITY),
        feature_gates=(GENERIC_WORKLOAD,),
    )


def _disruption_mode(mode: str) -> Callable[[Params], Workload]:
    """PreemptionPodGroupDisruptionMode with `mode` (`single`, `all`; "" for pods in no
    PodGroup): createNodes, createPodGroups, createPods (low), barrier, createPods (measured)."""

    def build(params: Params) -> Workload:
        nodes, low_groups, measure = params
        per_group, cpu = (2, "1500m") if nodes <= 2 else (10, "300m")
        low = tg.disruption_gang_pod(per_group, cpu, LOW_GANG_PRIORITY, grouped=bool(mode))
        path = pod_group_path(LOW)
        groups = (
            (path, tg.gang_group(i, LOW, per_group, LOW_GANG_PRIORITY, mode))
            for i in range(low_groups)
        )
        return Workload(
            name="",
            nodes=nodes,
            node_factory=default_nodes(),
            namespaces=(PREEMPTORS, LOW),
            initial=(PodGroup(low, low_groups * per_group, LOW, "gang-pod-"),),
            measured=PodGroup(te.pod_preemptor, measure, PREEMPTORS, "pod-high-priority-"),
            ceiling=False,
            objects=tuple(groups),
            priority_classes=_classes(LOW_GANG_PRIORITY, tg.HIGH_PRIORITY),
            feature_gates=(GENERIC_WORKLOAD,),
        )

    return build


_SMALL = "upstream's 2Nodes_1PreemptorGang_2Pods_{}"
_BIG = "upstream has no variant above 100 nodes: its 100Nodes_10PreemptorGangs_10Pods_{}"


def _notes(small: str, big: str) -> dict[str, str]:
    return {"5": _SMALL.format(small), "500": _BIG.format(big), "5000": _BIG.format(big)}


_DISRUPTION_BIG = (
    "upstream has no 500- or 5000-node variant: its 1000Nodes_1000Candidates_DisruptionAll"
)
_BASIC_SIZES = {"5": (2, 10, 2), "500": (100, 1000, 100), "5000": (100, 1000, 100)}

GANG_PREEMPTION_CASES = (
    (
        "GangPreemptionBasic",
        _BASIC_SIZES,
        _basic(affinity=False),
        _notes("Evicting_10InitPods", "Evicting_1000InitPods"),
    ),
    (
        "GangPreemptionPodGroups",
        {"5": (2, 2, 2), "500": (100, 50, 100), "5000": (100, 50, 100)},
        _podgroups,
        _notes("Evicting_2LowPriorityGangs", "Evicting_50LowPriorityGangs"),
    ),
    (
        "GangPreemptionAffinity",
        _BASIC_SIZES,
        _basic(affinity=True),
        _notes("Evicting_10InitPods", "Evicting_1000InitPods"),
    ),
    (
        "PreemptionPodGroupDisruptionMode",
        {"5": (2, 2, 1), "500": (1000, 1000, 100), "5000": (1000, 1000, 100)},
        _disruption_mode("all"),
        {
            "5": "upstream's FastTest_PodGroupDisruptionMode_All variant (2 nodes)",
            "500": _DISRUPTION_BIG,
            "5000": _DISRUPTION_BIG,
        },
    ),
)
"""(name, sizes, build, notes) as `catalogue.Case` takes them."""
