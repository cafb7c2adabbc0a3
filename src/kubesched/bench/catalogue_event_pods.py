"""scheduler_perf's EventHandlingPodDelete and EventHandlingPodUpdate (`event_handling/`,
v1.37) as scripts (`bench.script`): pods held back by assigned blocker pods (or by
themselves), let through when the blockers are deleted at 100/s, or when the blockers'
labels are dropped and their requests resized down, and the held pods gain a toleration or
lose their scheduling gate. The pods labelled `type: unsched` are measured; see
`catalogue_event_handling`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubesched.bench import templates_event_handling as h
from kubesched.bench import templates_volumes as v
from kubesched.bench.catalogue_shapes import Params
from kubesched.bench.script import (
    Barrier,
    CreateNodes,
    CreatePods,
    DeletePods,
    Script,
    Step,
    Update,
    scripted_workload,
)
from kubesched.bench.templates import HOSTNAME, PodTemplate
from kubesched.bench.templates_more import node_with_name
from kubesched.bench.workloads import PodGroup, Workload

UNSCHED_SELECTOR = "type=unsched"
RATE = 100.0
"""Upstream's `updatePerSecond` and `deletePodsPerSecond`."""
CSI_LIMIT = 20
"""EventHandlingPodDelete's nodeAllocatableStrategy: 20 `ebs.csi.aws.com` volumes a node."""
_HUGE = {"pods": "90000", "cpu": "4", "memory": "32Gi"}
_UNSCHED = h.UNSCHED


def _one_node(factory: Callable[[], dict[str, Any]]) -> CreateNodes:
    return CreateNodes(lambda _i: factory(), 1)


def _path(group: PodGroup) -> Callable[[int], str]:
    return lambda i: f"/api/v1/namespaces/{group.namespace}/pods/{group.prefix}{i}"


def _blockers(count: int) -> PodGroup:
    """podupdate-pod-blocker: `color: green-<i>`, `topology: blue`, 1/count of 30000Mi."""
    return PodGroup(
        h.indexed(
            lambda i: h.plain_pod(
                labels={"color": f"green-{i}", "topology": "blue"},
                cpu="0.0001",
                memory=f"{30000 // count}Mi",
            )
        ),
        count,
        "blocker",
        "pod-blocker-",
    )


def _blocked_by_blockers(blockers: int, measure: int) -> tuple[PodGroup, ...]:
    """Anti-affine to blocker i, needing the memory the blockers hold, spreading against
    them (max skew = their count), gated."""
    affinity = h.indexed(
        lambda i: h.plain_pod(
            labels={**_UNSCHED, "color": f"green-{i}"},
            affinity={"podAntiAffinity": h.pod_affinity(f"green-{i}", HOSTNAME, ["blocker"])},
        )
    )
    memory = h.plain_pod(labels=_UNSCHED, cpu="0.0001", memory=f"{30000 // measure}Mi")
    spread = h.plain_pod(
        labels={**_UNSCHED, "topology": "blue"},
        topologySpreadConstraints=h.spread(blockers, 100, HOSTNAME, {"topology": "blue"}),
    )
    gated = h.plain_pod(labels=_UNSCHED, schedulingGates=[{"name": "test.k8s.io/hold"}])
    return (
        PodGroup(affinity, measure, "interpodaffinity", "pod-interpodaffinity-"),
        PodGroup(memory, measure, "noderesources", "pod-noderesources-"),
        PodGroup(spread, blockers, "blocker", "pod-podtopologyspread-"),
        PodGroup(gated, measure, "schedulinggates", "pod-schedulinggates-"),
    )


def pod_update(params: Params) -> Workload:
    """An unschedulable node and a tainted one hold their pods until the pods gain a
    toleration; on `scheduler-perf-node`, blockers hold four groups until their labels are
    dropped and their requests resized down, and the gated group until its gate is lifted."""
    _nodes, blockers, measure = params
    plain = h.plain_pod(labels=_UNSCHED)
    unschedulable = PodGroup(plain, measure, "nodeunschedulable", "pod-nodeunschedulable-")
    tainted = PodGroup(plain, measure, "tainttoleration", "pod-tainttoleration-")
    first = (unschedulable, tainted)
    blocker = _blockers(blockers)
    later = _blocked_by_blockers(blockers, measure)
    no_schedule = "node.kubernetes.io/unschedulable"
    steps: tuple[Step, ...] = (
        _one_node(lambda: h.node("unschedulable-node", capacity=_HUGE, unschedulable=True)),
        CreatePods(unschedulable),
        _one_node(lambda: h.node("node-with-taint", capacity=_HUGE, taints=["toleration"])),
        CreatePods(tainted),
        Barrier(first, attempted=True),
        Update(_path(unschedulable), h.add_toleration(no_schedule), measure, RATE),
        Update(_path(tainted), h.add_toleration("toleration"), measure, RATE),
        Barrier(first),
        _one_node(node_with_name),
        CreatePods(blocker),
        Barrier((blocker,)),
        *(CreatePods(group) for group in later),
        Barrier(later, attempted=True),
        Update(_path(blocker), h.drop_labels, blockers, RATE),
        Update(_path(blocker), h.scale_down, blockers, RATE, ("resize",)),
        Update(_path(later[3]), h.drop_gates, measure, RATE),
        Barrier((*first, *later)),
    )
    namespaces = (
        "nodeunschedulable",
        "tainttoleration",
        "blocker",
        "interpodaffinity",
        "noderesources",
        "schedulinggates",
    )
    script = Script(steps, namespaces, 5 * measure + blockers, UNSCHED_SELECTOR, own_nodes=True)
    return scripted_workload(script)


def _ports(i: int) -> list[dict[str, int]]:
    """hostPort and containerPort `8<i mod 12>` (80 ... 89, 810, 811)."""
    port = int(f"8{i % 12}")
    return [{"hostPort": port, "containerPort": port}]


def _with_ports(template: PodTemplate) -> PodTemplate:
    def build(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        body = template(name, namespace, scheduler)
        body["spec"]["containers"][0]["ports"] = _ports(int(name.rsplit("-", 1)[-1]))
        return body

    return build


def _delete_groups(
    blockers: int, measure: int
) -> tuple[tuple[PodGroup, ...], tuple[PodGroup, ...]]:
    """(the two blocker groups, the six held groups) of EventHandlingPodDelete."""
    spread_ns, affinity_ns = "blockertopologyportsresources", "blockeraffinity"
    blocker_topology = h.plain_pod(
        labels={"topology": "blue", "type": "blocker"},
        cpu="0.35",
        memory="3Gi",
        terminationGracePeriodSeconds=0,
        topologySpreadConstraints=h.spread(10, 10000, HOSTNAME, {"topology": "blue"}),
    )
    blocker_affinity = h.plain_pod(
        labels={"color": "green", "type": "blocker"}, terminationGracePeriodSeconds=0
    )
    blocker_groups = (
        PodGroup(
            v.with_claim(_with_ports(blocker_topology)),
            blockers,
            spread_ns,
            "pod-blocker-topology-",
        ),
        PodGroup(v.with_claim(blocker_affinity), blockers, affinity_ns, "pod-blocker-affinity-"),
    )
    spread = h.plain_pod(
        labels={"topology": "blue", **_UNSCHED},
        topologySpreadConstraints=h.spread(11, 10000, HOSTNAME, {"topology": "blue"}),
    )
    anti = h.plain_pod(
        labels={"color": "green", **_UNSCHED},
        affinity={"podAntiAffinity": h.pod_affinity("green", HOSTNAME, [affinity_ns])},
    )
    plain = h.plain_pod(labels=_UNSCHED)
    held = (
        PodGroup(spread, measure, spread_ns, "pod-podtopologyspread-"),
        PodGroup(v.with_claim(plain), blockers, affinity_ns, "pod-volumerestrictions-"),
        PodGroup(_with_ports(plain), measure, "nodeports", "pod-nodeports-"),
        PodGroup(
            h.plain_pod(labels=_UNSCHED, cpu="0.2", memory="1Gi"),
            measure,
            "noderesources",
            "pod-noderesources-",
        ),
        PodGroup(v.with_claim(plain), blockers, "nodevolumelimits", "pod-nodevolumelimits-"),
        PodGroup(anti, measure, "interpodaffinity", "pod-interpodaffinity-"),
    )
    return blocker_groups, held


def _delete_objects(nodes: int, blockers: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """CSINodes (20 volumes each) and every claim and CSI volume the pods mount: the
    blockers' (`blockeraffinity`'s ReadWriteOncePod, shared with the VolumeRestrictions
    pods) and the NodeVolumeLimits pods'."""
    for i in range(nodes):
        yield h.csinode(f"scheduler-perf-{i}", CSI_LIMIT)
    for namespace, mode in (
        ("blockertopologyportsresources", "ReadOnlyMany"),
        ("blockeraffinity", "ReadWriteOncePod"),
        ("nodevolumelimits", "ReadOnlyMany"),
    ):
        for i in range(blockers):
            path, claim = v.claim(namespace, i)
            claim["spec"]["accessModes"] = [mode]
            yield path, claim
            path, volume = v.volume(namespace, i, csi=True)
            volume["spec"]["accessModes"] = [mode]
            yield path, volume


def pod_delete(params: Params) -> Workload:
    """Blockers with host ports, requests, spreading and CSI volumes, and blockers labelled
    `color: green` with ReadWriteOncePod volumes, fill the nodes; six groups wait for them
    (spreading, the same claims, ports, resources, the nodes' 20 volumes, anti-affinity),
    then both blocker groups are deleted at 100/s."""
    nodes, blockers, measure = params
    blocker_groups, held = _delete_groups(blockers, measure)
    steps: tuple[Step, ...] = (
        *(CreatePods(group) for group in held),
        Barrier(held, attempted=True),
        *(DeletePods(g.namespace, "type=blocker", RATE) for g in blocker_groups),
        Barrier(held),
    )
    namespaces = tuple(dict.fromkeys(g.namespace for g in held))
    script = Script(steps, namespaces, 4 * measure + 2 * blockers, UNSCHED_SELECTOR)
    return scripted_workload(
        script,
        nodes=nodes,
        node_factory=lambda i: h.csi_node(f"scheduler-perf-{i}", CSI_LIMIT),
        initial=blocker_groups,
        objects=tuple(_delete_objects(nodes, blockers)),
    )
