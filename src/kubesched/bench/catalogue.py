"""kube-scheduler's scheduler_perf test cases as benchmark workloads
(kubernetes/kubernetes `test/integration/scheduler_perf/{misc,affinity,topology_spreading,
default_preemption,batching,volumes,dra}/performance-config.yaml`, v1.37; the DRA ones in
`catalogue_dra` and, from `dra/`'s subfolders, `catalogue_dra_more`; those beyond the first
twelve in `catalogue_more`), with upstream's templates, namespaces, node labelling
strategies, initial pods and sizes.

Sizes: `5` is upstream's `integration-test` variant (5Nodes, or its smallest); `500` its
500Nodes variant; `5000` its `performance` 5000-node variant. Where upstream has no such
variant, the nearest one is used and `Workload.note` says so. Namespaces are upstream's:
the ones a test case creates (`sched-0`, `sched-1`), else `namespace-<op index>` as
scheduler_perf names the namespace of a `createPods` op that names none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from kubesched.bench import templates as t
from kubesched.bench.catalogue_dra import DRA_CASES
from kubesched.bench.catalogue_dra_more import DRA_MORE_CASES
from kubesched.bench.catalogue_event_handling import EVENT_HANDLING_CASES
from kubesched.bench.catalogue_events import EVENT_CASES
from kubesched.bench.catalogue_gang_preemption import GANG_PREEMPTION_CASES
from kubesched.bench.catalogue_more import MORE_CASES
from kubesched.bench.catalogue_numa import NUMA_CASES
from kubesched.bench.catalogue_podgroups import PODGROUP_CASES
from kubesched.bench.catalogue_quotas import QUOTA_CASES
from kubesched.bench.catalogue_shapes import Params, default_nodes, simple
from kubesched.bench.catalogue_volumes import VOLUME_CASES
from kubesched.bench.workloads import Churn, PodGroup, Workload

SIZES = ("5", "500", "5000")


@dataclass(frozen=True, slots=True)
class Case:
    """One scheduler_perf test case: how to build its workload at each size."""

    name: str
    sizes: dict[str, Params]
    build: Callable[[Params], Workload]
    notes: dict[str, str]


def _mixed(params: Params) -> Workload:
    """MixedSchedulingBasePod: initPods of each of five templates in sched-0, then plain
    measured pods (namespace of op 7)."""
    nodes, init, measure = params
    kinds = (
        ("default-", t.pod_default),
        ("affinity-", t.pod_with_pod_affinity),
        ("anti-affinity-", t.pod_with_pod_anti_affinity),
        ("preferred-affinity-", t.pod_with_preferred_pod_affinity),
        ("preferred-anti-affinity-", t.pod_with_preferred_pod_anti_affinity),
    )
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(("zone1",)),
        namespaces=("sched-0",),
        initial=tuple(PodGroup(tpl, init, "sched-0", prefix) for prefix, tpl in kinds),
        measured=PodGroup(t.pod_default, measure, "namespace-7", "pod-"),
    )


def _preemption(params: Params) -> Workload:
    """PreemptionBasic: low-priority 900m pods fill the nodes (4 per node), then 3-CPU
    priority-10 pods each preempt three of them."""
    nodes, init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(PodGroup(t.pod_low_priority, init, "namespace-1", "init-"),),
        measured=PodGroup(t.pod_high_priority, measure, "namespace-2", "pod-"),
        ceiling=False,
        priority_classes=((t.HIGH_PRIORITY_CLASS, 10),),
    )


def _unschedulable(params: Params) -> Workload:
    """Unschedulable: plain measured pods while a 9-CPU priority-10 pod (fits nowhere, and
    preemption cannot help) is created every 200 ms."""
    nodes, init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(PodGroup(t.pod_default, init, "namespace-1", "init-"),),
        measured=PodGroup(t.pod_default, measure, "namespace-3", "pod-"),
        churn=Churn("create", ("pod:high-priority-large-cpu",), 0.2, "namespace-2"),
        priority_classes=((t.HIGH_PRIORITY_CLASS, 10),),
    )


def _mixed_churn(params: Params) -> Workload:
    """SchedulingWithMixedChurn: plain measured pods while, every second, a node (room for
    no pod), a 9-CPU pod and a Service are deleted and created again."""
    nodes, _init, measure = params
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(),
        measured=PodGroup(t.pod_default, measure, "namespace-2", "pod-"),
        churn=Churn(
            "recreate", ("node", "pod:high-priority-large-cpu", "service"), 1.0, "namespace-1"
        ),
        priority_classes=((t.HIGH_PRIORITY_CLASS, 10),),
    )


_MOONS = ("moon-1", "moon-2", "moon-3")
_AFFINITY_SIZES = {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 5000, 5000)}
_SPREAD_SIZES = {"5": (5, 10, 10), "500": (500, 1000, 1000), "5000": (5000, 5000, 5000)}
_NO_500 = "upstream has no 500-node variant: its 1000Nodes one"

CATALOGUE: tuple[Case, ...] = (
    Case(
        "SchedulingBasic",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 1000, 10000)},
        simple(t.pod_default),
        {},
    ),
    Case(
        "SchedulingPodAntiAffinity",
        {"5": (5, 1, 4), "500": (500, 100, 400), "5000": (5000, 1000, 2000)},
        simple(t.pod_with_pod_anti_affinity, sched_namespaces=True),
        {},
    ),
    Case(
        "SchedulingPodAffinity",
        _AFFINITY_SIZES,
        simple(t.pod_with_pod_affinity, zones=("zone1",), sched_namespaces=True),
        {},
    ),
    Case(
        "SchedulingPreferredPodAffinity",
        _AFFINITY_SIZES,
        simple(t.pod_with_preferred_pod_affinity, sched_namespaces=True),
        {},
    ),
    Case(
        "SchedulingPreferredPodAntiAffinity",
        _AFFINITY_SIZES,
        simple(t.pod_with_preferred_pod_anti_affinity, sched_namespaces=True),
        {},
    ),
    Case(
        "SchedulingNodeAffinity",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 5000, 10000)},
        simple(t.pod_with_node_affinity, zones=("zone1",)),
        {},
    ),
    Case(
        "TopologySpreading",
        _SPREAD_SIZES,
        simple(t.pod_with_topology_spreading, initial=t.pod_default, zones=_MOONS),
        {},
    ),
    Case(
        "PreferredTopologySpreading",
        _SPREAD_SIZES,
        simple(t.pod_with_preferred_topology_spreading, initial=t.pod_default, zones=_MOONS),
        {},
    ),
    Case(
        "MixedSchedulingBasePod",
        {"5": (5, 2, 10), "500": (500, 200, 1000), "5000": (5000, 2000, 5000)},
        _mixed,
        {},
    ),
    Case(
        "PreemptionBasic",
        {"5": (5, 20, 5), "500": (1000, 4000, 1000), "5000": (1000, 4000, 1000)},
        _preemption,
        {
            "500": _NO_500,
            "5000": "upstream's 5000Nodes variant is commented out (it fails): 1000Nodes",
        },
    ),
    Case(
        "Unschedulable",
        {"5": (5, 1, 10), "500": (500, 10, 1000), "5000": (5000, 100, 10000)},
        _unschedulable,
        {},
    ),
    Case(
        "SchedulingWithMixedChurn",
        {"5": (10, 0, 100), "500": (1000, 0, 1000), "5000": (5000, 0, 10000)},
        _mixed_churn,
        {"5": "upstream's 10Nodes variant", "500": _NO_500},
    ),
)
DRA_CATALOGUE = tuple(Case(*entry) for entry in DRA_CASES)
"""scheduler_perf's DRA test cases (`catalogue_dra`)."""
MORE_CATALOGUE = tuple(Case(*entry) for entry in MORE_CASES)
"""The other test cases (`catalogue_more`)."""
EVENT_CATALOGUE = tuple(Case(*entry) for entry in EVENT_CASES)
"""The gated, deleted, extended-resource and async-preemption cases (`catalogue_events`)."""
EVENT_HANDLING_CATALOGUE = tuple(Case(*entry) for entry in EVENT_HANDLING_CASES)
"""The queueing hints' cases, `event_handling/` (`catalogue_event_handling`)."""
VOLUME_CATALOGUE = tuple(Case(*entry) for entry in VOLUME_CASES)
"""The cases whose pods mount PersistentVolumes (`catalogue_volumes`)."""
QUOTA_CATALOGUE = tuple(Case(*entry) for entry in QUOTA_CASES)
"""Cases with ElasticQuotas, for scheduler-plugins' CapacityScheduling (`catalogue_quotas`)."""
CASES = {
    case.name: case
    for case in (
        *CATALOGUE,
        *MORE_CATALOGUE,
        *EVENT_CATALOGUE,
        *EVENT_HANDLING_CATALOGUE,
        *VOLUME_CATALOGUE,
        *DRA_CATALOGUE,
        *(Case(*entry) for entry in DRA_MORE_CASES),
        *QUOTA_CATALOGUE,
        *(Case(*entry) for entry in NUMA_CASES),
        *(Case(*entry) for entry in PODGROUP_CASES),
        *(Case(*entry) for entry in GANG_PREEMPTION_CASES),
    )
}


def catalogue_workload(
    name: str,
    size: str,
    *,
    nodes: int | None = None,
    initial_pods: int | None = None,
    pods: int | None = None,
) -> Workload:
    """Test case `name` at `size`; `nodes`/`initial_pods` (per initial createPods op, as
    upstream's `$initPods`)/`pods` override upstream's parameters (noted)."""
    case = CASES.get(name)
    if case is None:
        raise ValueError(f"unknown test case {name!r}; choose one of {', '.join(CASES)}")
    params = case.sizes.get(size)
    if params is None:
        raise ValueError(f"{name}: no size {size!r}; choose one of {', '.join(SIZES)}")
    overridden = (
        params[0] if nodes is None else nodes,
        params[1] if initial_pods is None else initial_pods,
        params[2] if pods is None else pods,
    )
    workload = case.build(overridden)
    note = case.notes.get(size, "")
    if overridden != params:
        changed = "shrunk" if sum(overridden) < sum(params) else "changed"
        note = "; ".join(filter(None, [note, f"{changed} from upstream's {params}"]))
    return replace(workload, name=name, note=note)
