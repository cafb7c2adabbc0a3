"""A PodGroup whose topology constraint changes while it is being placed.

kube-apiserver v1.37.2 refuses such an update (`spec.schedulingConstraints` is immutable
with `TopologyAwareWorkloadScheduling`; tests/e2e/test_gang_topology_immutable.py), so the
only way to a new constraint is a new PodGroup of the same name. kube-scheduler reads the
PodGroup once per pod-group cycle from that cycle's snapshot; kubesched reads it once per
cycle from the lister into a frozen `SchedulingPodGroup`, so a cycle places every member by
one object version, in one placement: a newer version only counts from the next cycle,
where the members already bound pin the domain (or fail the cycle, binding no one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.apis.config import Profile
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import NodeInfo, Status
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.plugins import in_tree_registry
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.runtime import Framework, build_framework
from kubesched.scheduler.podgroup_cycle import PodGroupCycles
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort

RACK, ZONE = "example.com/rack", "example.com/zone"
# Racks r1 (n0-n2) and r2 (n3); zones z1 (n0, n3) and z2 (n1, n2). One cpu each.
NODES = {"n0": ("r1", "z1"), "n1": ("r1", "z2"), "n2": ("r1", "z2"), "n3": ("r2", "z1")}


class _SnapshotHandle(FakeHandle):
    """Reads its nodes from the scheduler's snapshot, as the scheduler's Handle does."""

    snapshot: Snapshot | None = None

    def list_node_infos(self) -> Sequence[NodeInfo]:
        assert self.snapshot is not None
        return self.snapshot.node_infos

    def get_node_info(self, name: str) -> NodeInfo | None:
        assert self.snapshot is not None
        return self.snapshot.get(name)


def _podgroup(key: str, uid: str) -> ApiObject:
    spec = {
        "schedulingPolicy": {"gang": {"minCount": 3}},
        "schedulingConstraints": {"topology": [{"key": key}]},
    }
    meta = {"namespace": "ns", "name": "pg", "uid": uid, "generation": 1}
    return ApiObject.from_json({"metadata": meta, "spec": spec})


def _member(i: int, node: str = "") -> Pod:
    pod = make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").pod_group("pg").req(cpu="1")
    return (pod.node(node) if node else pod).model()


class _Run:
    """A scheduler's pod-group side over NODES, gates on, the PodGroup in its lister."""

    def __init__(self, podgroup: ApiObject) -> None:
        self.handle = _SnapshotHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
        self.handle.listers.add(SCHEDULING_PODGROUPS, podgroup)
        profile = Profile(
            scheduler_name="s", generic_workload=True, topology_aware_workload_scheduling=True
        )
        fw = build_framework(profile=profile, registry=in_tree_registry(), handle=self.handle)
        fw.topology_aware = True
        self.fw: Framework = fw
        self.cache = SchedulerCache()
        for name, (rack, zone) in NODES.items():
            node = make_node().name(name).label(RACK, rack).label(ZONE, zone)
            self.cache.add_node(node.capacity(cpu="1", pods="10").model())
        self.handle.snapshot = Snapshot()
        self.queue = SchedulingQueue(less=priority_sort, clock=FakeClock())
        self.assumed: list[tuple[str, str]] = []
        self.failed: list[tuple[str, str]] = []
        self.cycles = PodGroupCycles(
            cache=self.cache,
            snapshot=self.handle.snapshot,
            queue=self.queue,
            assume_and_reserve=self._assume,
            handle_failure=self._fail,
        )

    def _assume(self, _fw: object, _state: object, qpi: QueuedPodInfo, **kw: Any) -> None:
        self.assumed.append((qpi.pod.name, kw["host"]))

    def _fail(self, _fw: object, qpi: QueuedPodInfo, status: Status, *_: Any, **__: Any) -> None:
        self.failed.append((qpi.pod.name, status.message))

    def bound(self, pod: Pod) -> None:
        self.handle.listers.pods.on_add(pod)
        self.cache.add_pod(pod)

    async def cycle(self, pending: list[Pod]) -> None:
        for pod in pending:
            self.handle.listers.pods.on_add(pod)
            self.queue.add(pod)
        first = await self.queue.pop()
        assert first is not None
        self.cycles.schedule(self.fw, first, cycle=1)


async def test_a_cycle_places_every_member_by_the_version_it_read() -> None:
    """The PodGroup is replaced (rack -> zone) as soon as the cycle has read it: the gang
    still lands in one rack, all three members, as the version read says. By zone it would
    fit nowhere (two cpus per zone)."""
    run = _Run(_podgroup(RACK, "v1"))
    store = run.handle.listers.store(SCHEDULING_PODGROUPS)
    read = store.get
    reads: list[str] = []

    def get_then_replace(name: str, namespace: str = "") -> ApiObject | None:
        found = read(name, namespace)
        reads.append(found.uid if found is not None else "")
        store.on_add(_podgroup(ZONE, "v2"))
        return found

    store.get = get_then_replace  # type: ignore[method-assign]

    await run.cycle([_member(i) for i in range(3)])

    assert sorted(host for _, host in run.assumed) == ["n0", "n1", "n2"]
    assert run.failed == []
    assert reads[0] == "v1"
    by_zone = _Run(_podgroup(ZONE, "v2"))
    await by_zone.cycle([_member(i) for i in range(3)])
    assert by_zone.assumed == []
    assert len(by_zone.failed) == 3


async def test_a_new_constraint_splitting_the_bound_members_binds_no_one() -> None:
    """A PodGroup re-created with a zone constraint after two members were bound in rack r1
    on n0 (z1) and n1 (z2): the next cycle finds the bound members in two domains of the
    new key, fails as kube-scheduler does, and binds none of the waiting members."""
    run = _Run(_podgroup(ZONE, "v2"))
    run.bound(_member(0, "n0"))
    run.bound(_member(1, "n1"))

    await run.cycle([_member(2)])

    assert run.assumed == []
    assert [name for name, _ in run.failed] == ["w2"]
    message = run.failed[0][1]
    assert "cannot determine domain for already scheduled pods" in message
    assert "more than 1 domain found for pod group: z1, z2" in message
