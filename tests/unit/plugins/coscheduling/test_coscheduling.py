"""Coscheduling against a FakeHandle: PreFilter's quorum and minResources, Permit holding
members until minMember, the whole group rejected from PostFilter and Unreserve, status."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    ObjectWriteError,
    Status,
)
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import ResourceSpec
from kubesched.framework.waiting import WaitingPod
from kubesched.model import ApiObject, Pod
from kubesched.plugins.coscheduling import POD_GROUP_LABEL, PODGROUPS, Coscheduling
from kubesched.plugins.coscheduling.plugin import NAME
from kubesched.plugins.coscheduling.podgroup import GROUP_PODS
from kubesched.testing import FakeHandle, make_node, make_pod


def _group(name: str, min_member: int, created: str = "2024-01-01", **spec: Any) -> ApiObject:
    return ApiObject.from_json(
        {
            "metadata": {
                "namespace": "ns",
                "name": name,
                "creationTimestamp": f"{created}T00:00:00Z",
            },
            "spec": {"minMember": min_member, **spec},
        }
    )


def _member(name: str, group: str = "pg", *, node: str = "", cpu: str = "1") -> Pod:
    builder = make_pod().name(name).namespace("ns").uid(name).label(POD_GROUP_LABEL, group)
    builder = builder.req(cpu=cpu)
    return (builder.node(node) if node else builder).model()


def _setup(min_member: int, members: int, **spec: Any) -> tuple[FakeHandle, Coscheduling]:
    handle = FakeHandle(
        nodes=[make_node().name(f"n{i}").capacity(cpu="2").model() for i in range(2)],
        listers=ClusterListers([PODGROUPS, GROUP_PODS]),
    )
    handle.listers.add(PODGROUPS, _group("pg", min_member, **spec))
    for i in range(members):
        handle.listers.pods.on_add(_member(f"w{i}"))
    return handle, Coscheduling(args={}, handle=handle)


def test_prefilter_refuses_a_group_below_min_member() -> None:
    handle, plugin = _setup(3, 2)
    status = plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    assert isinstance(status, Status)
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message == (
        "pre-filter pod w0 cannot find enough sibling pods, current pods number: 2, "
        "minMember of group: 3"
    )


def test_prefilter_refuses_a_group_whose_min_resources_do_not_fit() -> None:
    handle, plugin = _setup(2, 2, minResources={"cpu": "5"})
    status = plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    assert isinstance(status, Status)
    assert status.message == "resource gap: map[cpu:1]"


def test_prefilter_passes_a_complete_group_and_marks_it_scheduling() -> None:
    handle, plugin = _setup(2, 2, minResources={"cpu": "3"})
    assert plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos()) is None
    (key, status), *_ = handle.status_patches
    assert key == "ns/pg"
    assert status["phase"] == "Scheduling"
    assert status["scheduleStartTime"]


def test_pods_outside_any_group_are_left_alone() -> None:
    handle, plugin = _setup(2, 2)
    loner = make_pod().name("x").namespace("ns").model()
    assert plugin.pre_filter(CycleState(), loner, handle.list_node_infos()) is None
    assert plugin.permit(CycleState(), loner, "n0") == (None, 0)


async def test_permit_holds_members_until_min_member_then_allows_them_all() -> None:
    handle, plugin = _setup(3, 3, scheduleTimeoutSeconds=7)
    waiting = []
    for name in ("w0", "w1"):
        pod = _member(name)
        status, timeout = plugin.permit(CycleState(), pod, "n0")
        assert status is not None
        assert status.code is Code.WAIT
        assert timeout == 7
        entry = WaitingPod(pod=pod, plugin_timeouts={"Coscheduling": timeout})
        handle.waiting_pods.add(entry)
        waiting.append(entry)
    assert handle.activated == ["ns/w1", "ns/w2"]  # the first member brings its siblings
    assert plugin.permit(CycleState(), _member("w2"), "n1") == (None, 0)
    results = await asyncio.gather(*(entry.wait() for entry in waiting))
    assert all(result.is_success() for result in results)


async def test_a_member_failing_filter_rejects_the_members_waiting_with_it() -> None:
    handle, plugin = _setup(3, 3)
    pod = _member("w0")
    _, timeout = plugin.permit(CycleState(), pod, "n0")
    entry = WaitingPod(pod=pod, plugin_timeouts={"Coscheduling": timeout})
    handle.waiting_pods.add(entry)
    _, rejection = plugin.post_filter(CycleState(), _member("w1"), None)  # type: ignore[arg-type]
    assert rejection is not None
    assert rejection.message == (
        "PodGroup ns/pg gets rejected due to Pod w1 is unschedulable even after PostFilter"
    )
    result = await entry.wait()
    assert result.code is Code.UNSCHEDULABLE
    assert result.message == "optimistic rejection in PostFilter"


async def test_unreserve_of_one_member_rejects_the_others() -> None:
    handle, plugin = _setup(3, 3)
    pods = [_member("w0"), _member("w1")]
    entries = []
    for pod in pods:
        _, timeout = plugin.permit(CycleState(), pod, "n0")
        entries.append(WaitingPod(pod=pod, plugin_timeouts={"Coscheduling": timeout}))
        handle.waiting_pods.add(entries[-1])
    plugin.unreserve(CycleState(), pods[0], "n0")
    assert (await entries[1].wait()).message == "rejection in Unreserve"
    assert plugin.manager.assigned_count("ns/pg") == 1


def test_queue_sort_keeps_a_group_together_by_its_creation_time() -> None:
    handle, plugin = _setup(1, 0)
    handle.listers.add(PODGROUPS, _group("late", 1, created="2025-01-01"))
    queued_late = type("Q", (), {"pod": _member("a", "pg"), "timestamp": 99.0})()
    of_later_group = type("Q", (), {"pod": _member("b", "late"), "timestamp": 1.0})()
    assert plugin.less(queued_late, of_later_group)
    assert not plugin.less(of_later_group, queued_late)


def test_status_follows_the_members() -> None:
    handle, plugin = _setup(2, 0)
    plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    handle.listers.pods.on_add(_member("w0", node="n0"))
    handle.listers.pods.on_add(_member("w1", node="n1"))
    assert handle.status_patches[-1][1] == {
        "phase": "Scheduled",
        "scheduled": 2,
        "running": 0,
        "succeeded": 0,
        "failed": 0,
    }


@pytest.mark.parametrize("args", [{"permitWaitingTimeSeconds": -1}, {"bogus": 1}])
def test_bad_args_are_refused(args: dict[str, Any]) -> None:
    handle = FakeHandle(listers=ClusterListers([PODGROUPS, GROUP_PODS]))
    with pytest.raises(Exception, match=r"permitWaitingTimeSeconds|bogus"):
        Coscheduling(args=args, handle=handle)


def _waiting_members(handle: FakeHandle, plugin: Coscheduling, count: int) -> list[WaitingPod]:
    entries = []
    for i in range(count):
        pod = _member(f"w{i}")
        _, timeout = plugin.permit(CycleState(), pod, "n0")
        entries.append(WaitingPod(pod=pod, plugin_timeouts={"Coscheduling": timeout}))
        handle.waiting_pods.add(entries[-1])
    return entries


async def test_a_small_gap_to_the_quorum_keeps_the_members_waiting() -> None:
    handle, plugin = _setup(10, 10)
    entries = _waiting_members(handle, plugin, 9)
    # 1 of 10 unassigned = 10 %, at the default podGroupRejectPercentage: nobody is rejected.
    _, status = plugin.post_filter(CycleState(), _member("w9"), None)  # type: ignore[arg-type]
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE
    assert status.message == ""
    assert all(entry.pending_plugins == [NAME] for entry in entries)
    assert "ns/pg" not in plugin.manager.last_failure


@pytest.mark.parametrize(
    ("percentage", "rejected"), [(0, True), (10, True), (20, False), (100, False)]
)
async def test_reject_percentage_decides_when_postfilter_rejects(
    percentage: int, rejected: bool
) -> None:
    handle = FakeHandle(
        nodes=[make_node().name("n0").capacity(cpu="8").model()],
        listers=ClusterListers([PODGROUPS, GROUP_PODS]),
    )
    handle.listers.add(PODGROUPS, _group("pg", 8))
    for i in range(8):
        handle.listers.pods.on_add(_member(f"w{i}"))
    plugin = Coscheduling(args={"podGroupRejectPercentage": percentage}, handle=handle)
    entries = _waiting_members(handle, plugin, 7)
    # 1 of 8 unassigned = 12.5 %: rejected at 0 % and 10 %, left waiting at 20 % and 100 %.
    plugin.post_filter(CycleState(), _member("w7"), None)  # type: ignore[arg-type]
    assert [entry.pending_plugins for entry in entries] == [[] if rejected else [NAME]] * 7


@pytest.mark.parametrize("value", [-1, 101, "10", True])
def test_reject_percentage_must_be_an_integer_from_0_to_100(value: Any) -> None:
    handle = FakeHandle(listers=ClusterListers([PODGROUPS, GROUP_PODS]))
    with pytest.raises(Exception, match=r"^podGroupRejectPercentage: "):
        Coscheduling(args={"podGroupRejectPercentage": value}, handle=handle)


def test_events_to_register_are_scheduler_plugins_without_hints() -> None:
    """scheduler-plugins' `EventsToRegister`: Pod/Add (which covers pending pods too) and
    PodGroup Add|Update, with no queueing hints."""
    _, plugin = _setup(2, 0)
    events = plugin.events_to_register()
    assert events == (
        ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD)),
        ClusterEventWithHint(
            ClusterEvent(PODGROUPS.event_resource, ActionType.ADD | ActionType.UPDATE)
        ),
    )
    assert PODGROUPS.event_resource == "podgroups.v1alpha1.scheduling.x-k8s.io"
    new_member = ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD)
    assert events[0].event.matches(new_member)


def test_status_of_another_schedulers_group_is_left_alone() -> None:
    """A group whose members are for another scheduler (scheduler-plugins' own, beside
    kubesched) is that scheduler's to keep: no patch, even once all are bound."""
    handle, plugin = _setup(2, 0)
    handle.listers.add(PODGROUPS, _group("theirs", 2))
    plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    patches = len(handle.status_patches)
    for name, node in (("t0", "n0"), ("t1", "n1")):
        theirs = make_pod().name(name).namespace("ns").uid(name).label(POD_GROUP_LABEL, "theirs")
        handle.listers.pods.on_add(theirs.scheduler("other").node(node).model())
    assert all(key != "ns/theirs" for key, _ in handle.status_patches[patches:])


def _finished(name: str, phase: str) -> Pod:
    builder = make_pod().name(name).namespace("ns").uid(name).label(POD_GROUP_LABEL, "pg")
    obj = builder.node("n0").obj()
    obj["status"] = {"phase": phase}
    return Pod.from_json(obj)


class _FinishedInApi(FakeHandle):
    """The API server holds w0 and w1, both Succeeded; any other pod is gone."""

    async def get_object(self, resource: ResourceSpec, namespace: str, name: str) -> ApiObject:
        del resource
        if name not in ("w0", "w1"):
            raise ObjectWriteError(f"{namespace}/{name} not found", not_found=True)
        meta = {"namespace": namespace, "name": name, "uid": name}
        return ApiObject.from_json({"metadata": meta, "status": {"phase": "Succeeded"}})


async def test_members_that_finish_still_count_after_they_leave_the_informer() -> None:
    """The informer watches non-terminal pods, and its DELETED event carries the state before:
    a bound member leaving is read from the API server; one that finished still counts, as
    scheduler-plugins' controller (which lists every pod) counts it; a deleted one does not."""
    handle = _FinishedInApi(
        nodes=[make_node().name("n0").capacity(cpu="2").model()],
        listers=ClusterListers([PODGROUPS, GROUP_PODS]),
    )
    handle.listers.add(PODGROUPS, _group("pg", 2))
    plugin = Coscheduling(args={}, handle=handle)
    plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    for name in ("w0", "w1", "w2"):
        handle.listers.pods.on_add(_finished(name, "Running"))
    for name in ("w0", "w1", "w2"):  # w2 is deleted: not in the API server
        handle.listers.pods.on_delete(_finished(name, "Running"))
    await asyncio.sleep(0.01)
    assert handle.status_patches[-1][1]["phase"] == "Finished"
    assert handle.status_patches[-1][1]["succeeded"] == 2


def test_a_finished_group_is_left_as_it_is() -> None:
    handle, plugin = _setup(1, 0)
    handle.listers.add(
        PODGROUPS,
        ApiObject.from_json(
            {
                "metadata": {
                    "namespace": "ns",
                    "name": "pg",
                    "creationTimestamp": "2024-01-01T00:00:00Z",
                },
                "spec": {"minMember": 1},
                "status": {"phase": "Finished", "succeeded": 1},
            }
        ),
    )
    plugin.pre_filter(CycleState(), _member("w0"), handle.list_node_infos())
    patches = len(handle.status_patches)
    handle.listers.pods.on_add(_finished("w0", "Running"))
    assert len(handle.status_patches) == patches
