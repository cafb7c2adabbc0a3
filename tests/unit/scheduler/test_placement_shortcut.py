"""The placement shortcut (`scheduler.placement_shortcut`) against the plain algorithm that
tries every placement, on seeded random clusters under the default profile with the
`GenericWorkload` and `TopologyAwareWorkloadScheduling` gates: every placement it answers
without a trial gets the answer its trial gives (whatever nodes the members pick), so the
feasible placements, their scores and the choice are the plain algorithm's."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kubesched.apis.config import Profile
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import NodeInfo
from kubesched.framework.listers import ClusterListers
from kubesched.framework.placement_points import Placement, PodGroupInfo
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.plugins import in_tree_registry
from kubesched.queue import QueuedPodInfo
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.placement_points import run_placement_generate
from kubesched.scheduler import podgroup_placement
from kubesched.scheduler.placement_shortcut import PlacementShortcut, placement_shortcut
from kubesched.scheduler.podgroup_algorithm import GroupResult
from kubesched.scheduler.podgroup_placement import (
    PlacementCycle,
    schedule_group_in_placements,
    scheduled_members,
)
from kubesched.testing import FakeHandle, make_node, make_pod

RACK = "topology.kubernetes.io/rack"
HOSTNAME = "kubernetes.io/hostname"
SEEDS = range(40)


class _SnapshotHandle(FakeHandle):
    """Reads its nodes from the scheduler's snapshot, as the scheduler's Handle does."""

    snapshot: Snapshot | None = None

    def list_node_infos(self) -> Sequence[NodeInfo]:
        assert self.snapshot is not None
        return self.snapshot.node_infos

    def get_node_info(self, name: str) -> NodeInfo | None:
        assert self.snapshot is not None
        return self.snapshot.get(name)


@dataclass
class _Cluster:
    handle: _SnapshotHandle
    fw: Framework
    cache: SchedulerCache
    snapshot: Snapshot
    group: SchedulingPodGroup
    queued: list[QueuedPodInfo]

    def info(self) -> PodGroupInfo:
        return PodGroupInfo(self.group, scheduled_members(self.fw, self.cache, self.group))

    def run(self) -> PlacementCycle:
        return PlacementCycle(self.cache, self.snapshot)

    def placements(self) -> list[Placement]:
        generators, nodes = self.fw.plugins.placement_generate, list(self.snapshot.node_infos)
        placements, status = run_placement_generate(generators, self.info(), nodes)
        assert status.is_success()
        return list(placements)

    def shortcut(self) -> PlacementShortcut | None:
        return placement_shortcut(self.fw, self.snapshot, self.info(), self.queued, None)

    def trial(self, placement: Placement) -> GroupResult:
        return podgroup_placement._try(
            self.fw,
            self.run(),
            self.info(),
            self.queued,
            placement,
            everywhere=len(self.snapshot.node_infos),
        )


def _framework(handle: FakeHandle) -> Framework:
    profile = Profile(
        scheduler_name="test-scheduler",
        generic_workload=True,
        topology_aware_workload_scheduling=True,
    )
    fw = build_framework(profile=profile, registry=in_tree_registry(), handle=handle)
    fw.topology_aware = True
    return fw


def _group(min_count: int) -> SchedulingPodGroup:
    spec = {
        "schedulingPolicy": {"gang": {"minCount": min_count}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    }
    body = {"metadata": {"namespace": "ns", "name": "pg"}, "spec": spec}
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _anti_affinity(key: str) -> dict[str, Any]:
    """Required anti-affinity to the members (label `app: w`) within `key`'s domains."""
    term = {"labelSelector": {"matchLabels": {"app": "w"}}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _random_cluster(seed: int, **member_options: Any) -> _Cluster:
    """Racks of 1-6 nodes of random room, some tainted, cordoned or holding pods (some of
    them with required anti-affinity to the members); a gang of 2-5 members of 1-2 CPUs,
    sometimes all with one host port, sometimes with required anti-affinity to each other
    or a spread constraint, both by rack (`member_options` chooses instead)."""
    rng = random.Random(seed)
    handle = _SnapshotHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    cache, snapshot = SchedulerCache(), Snapshot()
    handle.snapshot = snapshot
    fw = _framework(handle)
    for rack in range(rng.randint(2, 6)):
        for i in range(rng.randint(1, 6)):
            _add_random_node(rng, cache, f"n{rack}-{i}", f"r{rack}")
    count = rng.randint(2, 5)
    kind = rng.choice(["plain"] * 6 + ["anti_affinity", "spread"])
    queued = _random_members(rng, count, member_options or {kind: True})
    for qpi in queued:
        handle.listers.pods.on_add(qpi.pod)
    cache.update_snapshot(snapshot)
    group = _group(rng.randint(1, count))
    return _Cluster(handle, fw, cache, snapshot, group, queued)


def _add_random_node(rng: random.Random, cache: SchedulerCache, name: str, rack: str) -> None:
    node = make_node().name(name).label(RACK, rack).label(HOSTNAME, name)
    node = node.capacity(cpu=str(rng.randint(0, 5)), pods=str(rng.randint(1, 10)))
    if rng.random() < 0.1:
        node = node.taint("dedicated", "x")
    if rng.random() < 0.1:
        node = node.unschedulable()
    cache.add_node(node.model())
    if rng.random() < 0.3:
        existing = make_pod().name(f"e-{name}").namespace("ns").uid(f"e-{name}")
        existing = existing.req(cpu="1").node(name)
        if rng.random() < 0.5:
            existing = existing.affinity(_anti_affinity(HOSTNAME))
        cache.add_pod(existing.model())


def _random_members(rng: random.Random, count: int, options: dict[str, Any]) -> list[QueuedPodInfo]:
    port = rng.random() < 0.25
    queued = []
    for i in range(count):
        pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg")
        pod = pod.label("app", "w").req(cpu=str(rng.randint(1, 2)))
        if port:
            pod = pod.host_port(8080)
        if options.get("anti_affinity"):
            pod = pod.affinity(_anti_affinity(RACK))
        if options.get("spread"):
            pod = pod.spread_constraint(1, RACK, match_labels={"app": "w"})
        queued.append(QueuedPodInfo(pod=pod.model(), timestamp=float(i)))
    return queued


def _placed(result: GroupResult) -> int:
    return sum(1 for m in result.members if m.status.is_success() and m.host)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_placement_answered_without_its_trial_is_what_the_trial_gives(seed: int) -> None:
    cluster = _random_cluster(seed)
    shortcut = cluster.shortcut()
    if shortcut is None:
        return  # nothing answered without a trial
    for placement in cluster.placements():
        known = shortcut.known(placement)
        if known is None:
            continue
        for trial_seed in range(3):  # whatever nodes the members pick
            random.seed(trial_seed)
            tried = cluster.trial(placement)
            assert tried.status.code is known.status.code
            assert tried.status.message == known.status.message
            assert _placed(tried) == len(known.members) == len(cluster.queued)
            assert shortcut.confirms(tried)
        assert cluster.cache.assumed_count() == 0


def test_the_seeds_answer_some_placements_and_leave_others_to_their_trials() -> None:
    answered = left = refused = 0
    for seed in SEEDS:
        cluster = _random_cluster(seed)
        shortcut = cluster.shortcut()
        if shortcut is None:
            refused += 1
            continue
        for placement in cluster.placements():
            if shortcut.known(placement) is None:
                left += 1
            else:
                answered += 1
    assert answered >= 10
    assert left >= 10
    assert refused >= 4


def _feasible_counts(cluster: _Cluster) -> dict[str, int]:
    """The plain algorithm's feasible placements and their members placed (every one tried)."""
    counts = {}
    for placement in cluster.placements():
        result = cluster.trial(placement)
        if result.status.is_success():
            counts[placement.name] = _placed(result)
    return counts


def _rack(cluster: _Cluster, result: GroupResult) -> set[str]:
    racks = set()
    for member in result.members:
        if member.host:
            info = cluster.snapshot.get(member.host)
            assert info is not None
            racks.add(info.node.labels[RACK])
    return racks


@pytest.mark.parametrize("seed", SEEDS)
def test_the_cycle_decides_as_the_plain_algorithm(seed: int) -> None:
    cluster = _random_cluster(seed)
    counts = _feasible_counts(cluster)
    random.seed(seed)
    plain = schedule_group_in_placements(
        cluster.fw, cluster.run(), cluster.info(), cluster.queued, shortcut=False
    )
    random.seed(seed)
    fast = schedule_group_in_placements(cluster.fw, cluster.run(), cluster.info(), cluster.queued)
    assert fast.status.code is plain.status.code
    assert fast.status.message == plain.status.message
    assert cluster.cache.assumed_count() == 0
    if not counts:
        assert not fast.status.is_success()
        return
    top = max(counts.values())
    best = {name for name, count in counts.items() if count == top}
    if fast.status.is_success():
        (rack,) = _rack(cluster, fast)
        assert rack in best
        assert _placed(fast) == top
    if len(best) == 1 and plain.status.is_success():
        assert _rack(cluster, fast) == _rack(cluster, plain)


def test_a_gang_that_fits_every_rack_is_placed_in_one_of_them() -> None:
    handle = _SnapshotHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    cache, snapshot = SchedulerCache(), Snapshot()
    handle.snapshot = snapshot
    fw = _framework(handle)
    for i in range(40):
        node = make_node().name(f"n{i}").label(RACK, f"r{i // 10}").capacity(cpu="4", pods="10")
        cache.add_node(node.model())
    cache.update_snapshot(snapshot)
    queued = []
    for i in range(4):
        pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg")
        model = pod.req(cpu="100m").model()
        handle.listers.pods.on_add(model)
        queued.append(QueuedPodInfo(pod=model, timestamp=float(i)))
    cluster = _Cluster(handle, fw, cache, snapshot, _group(4), queued)
    shortcut = cluster.shortcut()
    assert shortcut is not None
    assert all(shortcut.known(p) is not None for p in cluster.placements())
    result = schedule_group_in_placements(fw, cluster.run(), cluster.info(), queued)
    assert result.status.is_success()
    assert len(_rack(cluster, result)) == 1
    assert _placed(result) == 4
    assert cache.assumed_count() == 0


@pytest.mark.parametrize(
    "options", [{"anti_affinity": True}, {"spread": True}], ids=["anti-affinity", "spread"]
)
def test_members_that_change_each_others_answers_get_no_shortcut(options: dict[str, Any]) -> None:
    cluster = _random_cluster(1, **options)
    assert cluster.shortcut() is None


def test_a_nominated_member_gets_no_shortcut() -> None:
    cluster = _random_cluster(1)
    nominated = make_pod().name("w0").namespace("ns").uid("w0").pod_group("pg")
    model = nominated.label("app", "w").req(cpu="1").nominated_node("n0-0").model()
    cluster.queued[0] = QueuedPodInfo(pod=model, timestamp=0.0)
    assert cluster.shortcut() is None


def test_a_trial_that_disagrees_makes_the_cycle_try_every_placement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cluster = _random_cluster(3, plain=True)
    shortcut = cluster.shortcut()
    assert shortcut is not None
    answered = [p for p in cluster.placements()[1:] if shortcut.known(p) is not None]
    assert answered  # the seed has placements answered without their trial
    monkeypatch.setattr(PlacementShortcut, "confirms", lambda self, result: False)
    counts = _feasible_counts(cluster)
    result = schedule_group_in_placements(cluster.fw, cluster.run(), cluster.info(), cluster.queued)
    assert result.status.is_success()
    (rack,) = _rack(cluster, result)
    assert counts[rack] == max(counts.values())
    assert cluster.cache.assumed_count() == 0
