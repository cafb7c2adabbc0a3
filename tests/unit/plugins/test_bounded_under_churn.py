"""What plugins keep per pod stays bounded while pods come and go (issue: memory grew with
every pod ever created under steady churn). Many pods pass through the real structures, a
few alive at a time; the sizes must follow the pods alive, not the pods ever seen. The RSS
itself is measured by `make soak` (docs/operations.md), not here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import CycleState, NodeInfo
from kubesched.framework.listers import ClusterListers
from kubesched.framework.volumes import MappedVolumeListers
from kubesched.model import ApiObject, PersistentVolumeClaim, Pod
from kubesched.plugins import InterPodAffinity
from kubesched.plugins.coscheduling import POD_GROUP_LABEL, PODGROUPS, Coscheduling
from kubesched.plugins.coscheduling.podgroup import GROUP_PODS
from kubesched.plugins.dynamic_resources.memo import (
    MAX_ENTRIES_PER_NODE,
    AllocationMemo,
)
from kubesched.plugins.volume_binding.assume import PRUNE_AT, AssumeCache
from kubesched.testing import FakeHandle, make_node, make_pod

PODS = 3000
ALIVE = 60
HOST = "kubernetes.io/hostname"
ZONE = "zone"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _term(app: str, key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def _affinity_pod(index: int, node: str = "") -> Pod:
    """Pods with required anti-affinity, required affinity or preferred affinity in turn."""
    app = ("green", "blue", "red")[index % 3]
    if index % 3 == 0:
        affinity = {"podAntiAffinity": {REQUIRED: [_term(f"g{index % 7}", HOST)]}}
    elif index % 3 == 1:
        affinity = {"podAffinity": {REQUIRED: [_term("blue", ZONE)]}}
    else:
        affinity = {
            "podAffinity": {PREFERRED: [{"weight": 1, "podAffinityTerm": _term(app, HOST)}]}
        }
    builder = make_pod().name(f"p{index}").uid(f"uid-{index}").label("app", app)
    builder = builder.affinity(affinity)
    return (builder.node(node) if node else builder).model()


class _SnapshotHandle(FakeHandle):
    """Lists the snapshot's node infos, as the scheduler's handle does."""

    snapshot: Snapshot

    def list_node_infos(self) -> Sequence[NodeInfo]:
        return self.snapshot.node_infos


def test_inter_pod_affinity_term_caches_follow_the_pods_alive() -> None:
    cache = SchedulerCache()
    for index in range(10):
        cache.add_node(make_node().name(f"n{index}").label(ZONE, "ab"[index % 2]).model())
    snapshot = Snapshot()
    handle = _SnapshotHandle()
    handle.snapshot = snapshot
    plugin = InterPodAffinity(args={}, handle=handle)
    incoming = [_affinity_pod(10**6 + kind) for kind in range(3)]
    alive: list[Pod] = []
    for index in range(PODS):
        pod = _affinity_pod(index, node=f"n{index % 10}")
        cache.add_pod(pod)
        alive.append(pod)
        if len(alive) > ALIVE:
            gone = alive.pop(0)
            cache.remove_pod(gone)
            for waiting in incoming:  # the hints read the pending and the deleted pod's terms
                plugin.is_schedulable_after_assigned_pod_change(waiting, gone, None)
            del gone
        cache.update_snapshot(snapshot)
        state = CycleState()
        for waiting in incoming:
            plugin.pre_filter(state, waiting, snapshot.node_infos)
            plugin.pre_score(state, waiting, snapshot.node_infos)
        plugin.add_pod(state, incoming[0], pod, snapshot.node_infos[0])
        del pod
    assert len(plugin._terms) <= ALIVE + len(incoming)
    assert len(plugin._hint_terms) <= 2 * len(incoming)


def _group(name: str) -> ApiObject:
    meta = {"namespace": "ns", "name": name, "creationTimestamp": "2024-01-01T00:00:00Z"}
    return ApiObject.from_json({"metadata": meta, "spec": {"minMember": 2}})


def test_coscheduling_forgets_deleted_members_and_groups() -> None:
    handle = FakeHandle(
        nodes=[make_node().name("n0").model()],
        listers=ClusterListers([PODGROUPS, GROUP_PODS]),
    )
    plugin = Coscheduling(args={}, handle=handle)
    groups = handle.listers.store(PODGROUPS)
    for index in range(PODS // 10):
        group = _group(f"pg{index % 5}")
        groups.on_add(group)
        for member in range(10):
            builder = make_pod().name(f"w{index}-{member}").namespace("ns").uid(f"{index}-{member}")
            pod = builder.label(POD_GROUP_LABEL, group.name).model()
            handle.listers.pods.on_add(pod)
            plugin.permit(CycleState(), pod, "n0")
            bound = builder.node("n0").model()
            handle.listers.pods.on_update(pod, bound)
            handle.listers.pods.on_delete(bound)
        plugin.manager.failed(f"ns/{group.name}", backoff=1.0)
        if index % 5 == 4:
            groups.on_delete(group)
    manager = plugin.manager
    for table in (manager.assigned, manager.last_failure, manager.backoff_until):
        assert len(table) <= 5
    assert sum(len(names) for names in manager.assigned.values()) <= 5 * 10


def test_allocation_memo_keeps_a_bounded_number_of_answers_per_node() -> None:
    memo = AllocationMemo()
    memo.begin([], 0)
    nodes = [make_node().name(f"n{index}").model() for index in range(4)]
    for index in range(PODS):
        # Every claim allocated or freed moves the allocated state in the keys on.
        memo.put(nodes[index % 4], ("specs", "pools", (index,)), None)
    assert sum(len(answers) for _, answers in memo._entries.values()) <= 4 * MAX_ENTRIES_PER_NODE


def _claim(index: int) -> PersistentVolumeClaim:
    return PersistentVolumeClaim.from_json(
        {"metadata": {"namespace": "ns", "name": f"c{index}", "resourceVersion": "1"}}
    )


def test_assume_cache_drops_claims_the_informer_no_longer_has() -> None:
    informer: dict[str, PersistentVolumeClaim] = {}
    listers = MappedVolumeListers(
        claims=informer,
        volumes={},
        classes={},
        csi_nodes={},
        csi_drivers={},
        capacities={},
        attachments={},
    )
    cache = AssumeCache(listers)
    for index in range(5 * PRUNE_AT):
        claim = _claim(index)
        informer[claim.key] = claim
        cache.assume_claim(claim)  # PreBind assumed it, then the pod and claim were deleted
        if index >= ALIVE:
            del informer[_claim(index - ALIVE).key]
    assert len(cache) <= 2 * PRUNE_AT
