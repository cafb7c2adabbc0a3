"""scheduler_perf's `event_handling/` test cases (v1.37), the workloads of the queueing
hints: each makes pods unschedulable, one group a plugin, waits until the scheduler
attempted them, then sends the cluster event that makes them schedulable (nodes added;
nodes' `unschedulable`, capacity, labels or taints updated; assigned pods added, deleted or
updated; a toleration added, a scheduling gate lifted) and waits until they are bound,
stage after stage: scripts (`bench.script`) of upstream's ops in upstream's order
(EventHandlingPodAdd here, NodeAdd/NodeUpdate in `catalogue_event_nodes`,
PodDelete/PodUpdate in `catalogue_event_pods`).

Entries are (name, sizes, build, notes) as `catalogue.Case` takes them; sizes map to
(nodes, blocker pods, measured pods a group): upstream's `initNodes`/`nodes`,
`blockerPods` and `measurePods`. Size `5` is upstream's integration-test variant, `500`
its performance one; upstream has nothing larger, so `5000` is the performance one again.
The run measures the pods upstream's `startCollectingMetrics` collects: those of its
namespaces, and where it selects `type: unsched`, only those.

Differences from upstream, in every note: the cases without a schedulable node at the
start (NodeAdd, NodeUpdate, PodUpdate) get the runner's warm-up node and pod, deleted
before the measured phase; upstream's `updateAny` PUTs its template (then its status), the
run reads the object, makes the change the template makes and PUTs the part it changed;
EventHandlingPodDelete's claims, volumes and CSINodes are created before the contender
starts, as in `catalogue_volumes`.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesched.bench import templates_event_handling as h
from kubesched.bench.catalogue_event_nodes import node_add, node_update
from kubesched.bench.catalogue_event_pods import UNSCHED_SELECTOR, pod_delete, pod_update
from kubesched.bench.catalogue_shapes import Params
from kubesched.bench.script import Barrier, CreatePods, Script, Step, scripted_workload
from kubesched.bench.templates import HOSTNAME
from kubesched.bench.workloads import PodGroup, Workload

Entry = tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]]
_SPREAD_NS, _AFFINITY_NS = "podtopologyspread", "interpodaffinity"


def pod_add(params: Params) -> Workload:
    """Two nodes and one `color: green` pod; pods spreading per host (max skew 1), kept
    off the green pod's node by anti-affinity, fill the other node by one, and pods with
    affinity to `color: yellow-<i>` wait; then green pods beside the first one (each bound
    lets one more spreading pod through) and `yellow-<i>` pods (each lets pod i through)."""
    nodes, _one, measure = params
    spread = h.plain_pod(
        labels={**h.UNSCHED, "topology": "blue"},
        affinity={"podAntiAffinity": h.pod_affinity("green", HOSTNAME, [_SPREAD_NS])},
        topologySpreadConstraints=h.spread(1, 0, HOSTNAME, {"topology": "blue"}),
    )
    affinity = h.indexed(
        lambda i: h.plain_pod(
            labels=h.UNSCHED,
            affinity={"podAffinity": h.pod_affinity(f"yellow-{i}", HOSTNAME, [_AFFINITY_NS])},
        )
    )
    green_beside = h.plain_pod(
        labels={"topology": "blue", "color": "green"},
        affinity={"podAffinity": h.pod_affinity("green", HOSTNAME, [_SPREAD_NS])},
    )
    yellow = h.indexed(lambda i: h.plain_pod(labels={"color": f"yellow-{i}"}))
    held = (
        PodGroup(spread, measure, _SPREAD_NS, "pod-podtopologyspread-"),
        PodGroup(affinity, measure, _AFFINITY_NS, "pod-interpodaffinity-"),
    )
    topology = PodGroup(green_beside, measure, _SPREAD_NS, "pod-unblocker-topology-")
    affine = PodGroup(yellow, measure, _AFFINITY_NS, "pod-unblocker-affinity-")
    steps: tuple[Step, ...] = (
        *(CreatePods(group) for group in held),
        Barrier(held, attempted=True),
        CreatePods(topology),
        Barrier((topology,)),
        CreatePods(affine),
        Barrier((affine,)),
        Barrier(held),
    )
    script = Script(steps, (_SPREAD_NS, _AFFINITY_NS), 2 * measure, UNSCHED_SELECTOR)
    with_label = h.plain_pod(labels={"color": "green"})
    return scripted_workload(
        script,
        nodes=nodes,
        node_factory=lambda i: h.node(f"scheduler-perf-{i}"),
        initial=(PodGroup(with_label, 1, _SPREAD_NS, "pod-with-label-"),),
    )


_DIFFERENCE = {
    "own": "the runner's warm-up node and pod deleted before the measured phase",
    "update": "updateAny reads the object and PUTs the part the template changes",
    "volumes": "claims, volumes and CSINodes created before the contender starts",
}


def _notes(performance: str, *differences: str) -> dict[str, str]:
    said = "; ".join(_DIFFERENCE[d] for d in differences)
    larger = f"upstream has no 5000-node variant: its {performance} (as at 500)"
    return {
        "5": said,
        "500": "; ".join(filter(None, [f"upstream's {performance}", said])),
        "5000": "; ".join(filter(None, [larger, said])),
    }


def _sizes(small: Params, performance: Params) -> dict[str, Params]:
    return {"5": small, "500": performance, "5000": performance}


EVENT_HANDLING_CASES: tuple[Entry, ...] = (
    (
        "EventHandlingPodDelete",
        _sizes((2, 15, 20), (50, 480, 500)),
        pod_delete,
        _notes("50Nodes_500Pods", "volumes"),
    ),
    (
        "EventHandlingPodUpdate",
        _sizes((1, 10, 10), (1, 1000, 1000)),
        pod_update,
        _notes("1Node_1000Pods", "own", "update"),
    ),
    (
        "EventHandlingNodeAdd",
        _sizes((2, 0, 20), (100, 0, 1000)),
        node_add,
        _notes("100Nodes_1000Pods", "own"),
    ),
    (
        "EventHandlingPodAdd",
        _sizes((2, 1, 10), (2, 1, 1000)),
        pod_add,
        _notes("1000Pods"),
    ),
    (
        "EventHandlingNodeUpdate",
        _sizes((2, 0, 20), (100, 0, 1000)),
        node_update,
        _notes("100Nodes_1000Pods", "own", "update"),
    ),
)
"""The five cases in upstream's order; sizes (nodes, blocker pods, measured pods a group)."""
