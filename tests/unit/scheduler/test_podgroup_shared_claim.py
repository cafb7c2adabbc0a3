"""A gang whose members share one ResourceClaim, through the pod-group algorithm over a
real Framework (DynamicResources in the default profile): the members' cycle states share
the group's state (upstream `SetPodGroupSchedulingCycle` in `initPodSchedulingContext`),
so the second member reuses the allocation the first put in flight and both go where the
claim's device is; every trial is undone afterwards, the allocation out of flight again."""

from __future__ import annotations

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod, SchedulingPodGroup
from kubesched.plugins.dynamic_resources.resources import ALL, CLAIMS, DEVICE_CLASSES, SLICES
from kubesched.queue import QueuedPodInfo
from kubesched.runtime.dra_manager import DraManager
from kubesched.scheduler.podgroup_algorithm import schedule_group
from kubesched.testing import FakeHandle, build_test_framework, make_node, make_pod
from tests.unit.plugins.dynamic_resources.test_dra_plugin import claim, device_class, node_slice


def _group() -> SchedulingPodGroup:
    body = {
        "metadata": {"namespace": "default", "name": "pg", "uid": "uid-pg"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}},
    }
    return SchedulingPodGroup.of(ApiObject.from_json(body))


def _member(i: int) -> Pod:
    obj = make_pod().name(f"w{i}").namespace("default").uid(f"w{i}").pod_group("pg").obj()
    obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "shared"}]
    return Pod.from_json(obj)


def test_both_members_go_where_the_shared_claims_device_is() -> None:
    handle = FakeHandle(listers=ClusterListers([*ALL, SCHEDULING_PODGROUPS]))
    for spec, obj in (
        (DEVICE_CLASSES, device_class()),
        (CLAIMS, claim("shared")),
        (SLICES, node_slice("n1", 1)),
    ):
        handle.listers.add(spec, obj)
    fw = build_test_framework(handle=handle, enabled={"multiPoint": ["GangScheduling"]})
    cache, snapshot = SchedulerCache(), Snapshot()
    for i in range(3):
        cache.add_node(make_node().name(f"n{i}").capacity(cpu="2", pods="10").model())
    members = [_member(i) for i in range(2)]
    for pod in members:
        handle.listers.pods.on_add(pod)
    cache.update_snapshot(snapshot)
    queued = [QueuedPodInfo(pod=pod, timestamp=float(i)) for i, pod in enumerate(members)]
    result = schedule_group(
        fw, cache=cache, snapshot=snapshot, group=_group(), queued=queued, scheduled=0
    )
    assert result.status.is_success(), result.status.message
    assert [m.host for m in result.members] == ["n1", "n1"]
    manager = handle.shared_dra_manager()
    assert isinstance(manager, DraManager)
    assert manager.pending == {}  # the trials' Unreserve took the shared allocation back
    assert cache.assumed_count() == 0
    assert all(m.state.pod_group_cycle is not None for m in result.members)
