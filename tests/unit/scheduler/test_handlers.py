"""NodeHandler/PodHandler: informer events routed to the real cache and scheduling queue."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kubesched.cache import SchedulerCache
from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.model import Node, Pod
from kubesched.queue import ACTIVE, BACKOFF, UNSCHEDULABLE, QueuedPodInfo, SchedulingQueue
from kubesched.scheduler.event_changes import node_changes as node_events
from kubesched.scheduler.event_changes import pod_changes
from kubesched.scheduler.eventhandlers import NodeHandler, PodHandler
from kubesched.testing import make_node, make_pod

OURS = "kubesched"


def priority_sort(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    if a.pod.priority != b.pod.priority:
        return a.pod.priority > b.pod.priority
    return a.timestamp < b.timestamp


class World:
    def __init__(self) -> None:
        self.events: list[object] = []
        self.cache = SchedulerCache()
        self.queue = SchedulingQueue(less=priority_sort, interested=self._seen)
        self.nodes = NodeHandler(cache=self.cache, queue=self.queue)
        self.pods = PodHandler(
            cache=self.cache, queue=self.queue, scheduler_names={OURS, "second-profile"}
        )

    def _seen(self, event: object) -> bool:
        """Every event that reaches the queue (all are of interest here)."""
        self.events.append(event)
        return True

    def where(self, pod: Pod) -> str | None:
        """The sub-queue holding `pod` (None if the queue does not hold it)."""
        for name, entries in self.queue.pending_pods().items():
            if any(qpi.uid == pod.uid for qpi in entries):
                return name
        return None

    async def make_unschedulable(self, pod: Pod) -> None:
        """Queue `pod`, pop it and report it rejected by NodeResourcesFit."""
        self.pods.on_add(pod)
        qpi = await self.queue.pop()
        assert qpi is not None
        assert qpi.uid == pod.uid
        qpi.unschedulable_plugins = {"NodeResourcesFit"}
        cycle = self.queue.scheduling_cycle
        assert self.queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
        assert self.where(pod) == UNSCHEDULABLE
        self.events.clear()


@pytest.fixture
def world() -> World:
    return World()


def pending(name: str = "p", scheduler: str = OURS) -> Pod:
    return make_pod().name(name).scheduler(scheduler).req(cpu="1").model()


def bound(pod: Pod, node: str = "n1", **changes: Any) -> Pod:
    return dataclasses.replace(pod, node_name=node, **changes)


# ---- pods -------------------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", [OURS, "default-scheduler", "someone-else"])
def test_bound_pods_of_any_scheduler_go_to_the_cache(world: World, scheduler: str) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    pod = bound(pending(scheduler=scheduler))
    world.pods.on_add(pod)
    assert world.cache.get_pod(pod.uid) == pod
    assert world.cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]
    assert world.queue.get(pod.uid) is None


@pytest.mark.parametrize("scheduler", [OURS, "second-profile"])
def test_unbound_pods_of_our_profiles_go_to_the_queue(world: World, scheduler: str) -> None:
    pod = pending(scheduler=scheduler)
    world.pods.on_add(pod)
    assert world.where(pod) == ACTIVE
    assert world.cache.pod_count() == 0


@pytest.mark.parametrize(
    "pod",
    [
        pending(scheduler="default-scheduler"),
        pending(scheduler="other"),
        dataclasses.replace(pending(), phase="Succeeded"),
        dataclasses.replace(pending(), phase="Failed"),
    ],
    ids=["default-scheduler", "other", "succeeded", "failed"],
)
def test_other_unbound_pods_are_ignored(world: World, pod: Pod) -> None:
    world.pods.on_add(pod)
    world.pods.on_update(pod, dataclasses.replace(pod, labels={"x": "y"}))
    world.pods.on_delete(pod)
    assert world.queue.pending_counts() == dict.fromkeys(world.queue.pending_counts(), 0)
    assert world.cache.pod_count() == 0


def test_binding_moves_pod_from_queue_to_cache(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    pod = pending()
    world.pods.on_add(pod)
    world.pods.on_update(pod, bound(pod, resource_version="2"))
    assert world.queue.get(pod.uid) is None
    assert world.cache.get_pod(pod.uid).node_name == "n1"  # type: ignore[union-attr]
    assert not world.cache.is_assumed(pod.uid)


async def test_binding_confirms_an_assumed_pod(world: World) -> None:
    pod = pending()
    await _assumed(world, pod)
    world.pods.on_update(pod, bound(pod, resource_version="2"))
    world.queue.done(pod.uid)
    assert not world.cache.is_assumed(pod.uid)
    assert world.cache.pod_count() == 1
    assert world.cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]
    assert world.queue.get(pod.uid) is None


async def test_binding_of_another_pod_requeues_waiting_pods(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    waiting = pending("waiting")
    await world.make_unschedulable(waiting)
    other = pending("other", scheduler="default-scheduler")
    world.pods.on_add(other)
    world.pods.on_update(other, bound(other))
    assert world.where(waiting) in (ACTIVE, BACKOFF)
    assert world.events == [ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)]


async def _assumed(world: World, pod: Pod) -> QueuedPodInfo:
    """`pod` queued, popped (in flight) and assumed on n1."""
    world.nodes.on_add(make_node().name("n1").model())
    world.pods.on_add(pod)
    qpi = await world.queue.pop()
    assert qpi is not None
    world.cache.assume_pod(pod, "n1")
    return qpi


async def _assumed_in_binding(world: World, pod: Pod) -> None:
    """`pod` assumed on n1 and its cycle done: its binding is in flight."""
    await _assumed(world, pod)
    world.queue.done(pod.uid)


async def test_an_assumed_pods_update_reaches_neither_queue_nor_nominator(world: World) -> None:
    # As upstream's updatePodInSchedulingQueue: the nominatedNodeName written while the pod
    # waits in PreBind must not queue it again (a second cycle for a pod being bound) nor
    # hold its node's room a second time for lower-priority pods.
    pod = pending()
    await _assumed_in_binding(world, pod)
    nominated = dataclasses.replace(pod, nominated_node_name="n1", resource_version="2")
    world.pods.on_update(pod, nominated)
    assert world.where(pod) is None
    assert world.queue.nominator.pods_for_node("n1") == []
    assert world.cache.is_assumed(pod.uid)


async def test_an_assumed_pod_in_flight_keeps_its_latest_object(world: World) -> None:
    # Its failure report (the PodScheduled condition) compares with what the API holds: a
    # stale object made a Permit timeout's message look written already and left unwritten.
    pod = pending()
    qpi = await _assumed(world, pod)
    newer = dataclasses.replace(pod, nominated_node_name="n1", resource_version="2")
    world.pods.on_update(pod, newer)
    assert qpi.pod is newer
    assert world.queue.nominator.pods_for_node("n1") == []


async def test_an_assumed_pod_being_deleted_stops_holding_its_room(world: World) -> None:
    pod = pending()
    await _assumed_in_binding(world, pod)
    world.pods.on_update(pod, dataclasses.replace(pod, deleting=True, resource_version="2"))
    assert world.cache.get_pod(pod.uid) is None
    assert world.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert world.where(pod) is None


def test_pending_pod_update_stays_queued(world: World) -> None:
    pod = pending()
    world.pods.on_add(pod)
    new = dataclasses.replace(pod, labels={"a": "b"}, resource_version="5")
    world.pods.on_update(pod, new)
    assert world.where(pod) == ACTIVE
    assert world.queue.get(pod.uid).pod is new  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "change",
    [{"phase": "Failed"}, {"scheduler_name": "someone-else"}],
    ids=["terminal", "not-ours"],
)
def test_pending_pod_that_is_no_longer_ours_leaves_the_queue(
    world: World, change: dict[str, Any]
) -> None:
    pod = pending()
    world.pods.on_add(pod)
    world.pods.on_update(pod, dataclasses.replace(pod, **change))
    assert world.queue.get(pod.uid) is None


def test_deleted_pending_pod_leaves_the_queue(world: World) -> None:
    pod = pending()
    world.pods.on_add(pod)
    world.pods.on_delete(pod)
    assert world.queue.get(pod.uid) is None


async def test_deleted_bound_pod_frees_room_and_requeues(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    running = bound(pending("running", scheduler="default-scheduler"))
    world.pods.on_add(running)
    waiting = pending("waiting")
    await world.make_unschedulable(waiting)
    world.pods.on_delete(running)
    assert world.cache.pod_count() == 0
    assert world.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert world.where(waiting) in (ACTIVE, BACKOFF)
    assert world.events == [ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)]


def test_bound_pod_turning_terminal_leaves_the_cache(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    pod = bound(pending())
    world.pods.on_add(pod)
    world.pods.on_update(pod, dataclasses.replace(pod, phase="Succeeded"))
    assert world.cache.pod_count() == 0


async def test_bound_pod_scale_down_requeues_with_its_action(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    pod = bound(pending("big"))
    world.pods.on_add(pod)
    waiting = pending("waiting")
    await world.make_unschedulable(waiting)
    smaller = dataclasses.replace(pod, requests=dataclasses.replace(pod.requests, milli_cpu=100))
    world.pods.on_update(pod, smaller)
    scale_down = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN)
    assert world.events == [scale_down]
    assert world.cache.node_info("n1").requested.milli_cpu == 100  # type: ignore[union-attr]


async def test_bound_pod_status_update_is_one_generic_update(world: World) -> None:
    world.nodes.on_add(make_node().name("n1").model())
    pod = bound(pending("p1"))
    world.pods.on_add(pod)
    world.events.clear()
    world.pods.on_update(pod, dataclasses.replace(pod, resource_version="9", phase="Running"))
    assert world.events == [ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE)]


def test_pod_changes_one_event_per_changed_part() -> None:
    pod = bound(pending())
    generic = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE)
    assert pod_changes(pod, dataclasses.replace(pod, resource_version="3")) == [generic]
    relabeled = dataclasses.replace(pod, labels={"a": "b"})
    assert pod_changes(pod, relabeled) == [
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_LABEL)
    ]
    bigger = dataclasses.replace(pod, requests=dataclasses.replace(pod.requests, milli_cpu=5000))
    assert pod_changes(pod, bigger) == [
        ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_UP)
    ]
    mine = pending()
    ungated = dataclasses.replace(mine, scheduling_gates=())
    gated = dataclasses.replace(mine, scheduling_gates=("g",))
    assert pod_changes(gated, ungated, target=True) == [
        ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    ]
    assert pod_changes(gated, ungated)[0].resource == EventResource.UNSCHEDULED_POD


# ---- nodes ------------------------------------------------------------------------------


def test_node_add_update_delete_reach_the_cache(world: World) -> None:
    node = make_node().name("n1").model()
    world.nodes.on_add(node)
    assert world.cache.node_count() == 1
    relabeled = dataclasses.replace(node, labels={**node.labels, "zone": "a"})
    world.nodes.on_update(node, relabeled)
    assert world.cache.node_info("n1").node.labels["zone"] == "a"  # type: ignore[union-attr]
    world.nodes.on_delete(relabeled)
    assert world.cache.node_count() == 0


async def test_node_add_requeues_waiting_pods(world: World) -> None:
    waiting = pending()
    await world.make_unschedulable(waiting)
    world.nodes.on_add(make_node().name("n9").model())
    assert world.where(waiting) in (ACTIVE, BACKOFF)
    assert world.events == [ClusterEvent(EventResource.NODE, ActionType.ADD)]


async def test_node_heartbeat_moves_no_pod(world: World) -> None:
    raw = make_node().name("n1").obj()
    raw["metadata"]["resourceVersion"] = "1"
    node = Node.from_json(raw)
    world.nodes.on_add(node)
    waiting = pending()
    await world.make_unschedulable(waiting)
    raw["metadata"]["resourceVersion"] = "99"
    raw["metadata"].setdefault("annotations", {})["node.alpha.kubernetes.io/ttl"] = "0"
    raw["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-01-01T00:00:10Z"
    heartbeat = Node.from_json(raw)
    assert node_events(node, heartbeat) == []
    world.nodes.on_update(node, heartbeat)
    assert world.where(waiting) == UNSCHEDULABLE
    assert world.events == []
    assert world.cache.node_info("n1").node.resource_version == "99"  # type: ignore[union-attr]


def node_changes() -> list[tuple[str, dict[str, Any], ActionType]]:
    node = make_node().name("n1").model()
    return [
        ("label", {"labels": {"zone": "b"}}, ActionType.UPDATE_NODE_LABEL),
        (
            "allocatable",
            {"allocatable": dataclasses.replace(node.allocatable, milli_cpu=8000)},
            ActionType.UPDATE_NODE_ALLOCATABLE,
        ),
        (
            "taint",
            {"taints": make_node().taint("k", "v").model().taints},
            ActionType.UPDATE_NODE_TAINT,
        ),
    ]


@pytest.mark.parametrize(
    ("change", "action"),
    [(c, a) for _, c, a in node_changes()],
    ids=[name for name, _, _ in node_changes()],
)
async def test_node_relevant_update_requeues(
    world: World, change: dict[str, Any], action: ActionType
) -> None:
    node = make_node().name("n1").model()
    world.nodes.on_add(node)
    waiting = pending()
    await world.make_unschedulable(waiting)
    new = dataclasses.replace(node, **change)
    assert node_events(node, new) == [ClusterEvent(EventResource.NODE, action)]
    world.nodes.on_update(node, new)
    assert world.where(waiting) in (ACTIVE, BACKOFF)
    assert world.events == [ClusterEvent(EventResource.NODE, action)]


# ---- bad input --------------------------------------------------------------------------

WEIRD: list[Any] = [None, "pod", 42, {"metadata": {}}, object(), make_node().model()]


@pytest.mark.parametrize("weird", WEIRD, ids=lambda w: type(w).__name__)
def test_pod_handler_never_raises(world: World, weird: Any) -> None:
    world.pods.on_add(weird)
    world.pods.on_update(weird, weird)
    world.pods.on_update(pending(), weird)
    world.pods.on_delete(weird)


@pytest.mark.parametrize("weird", [*WEIRD[:-1], pending()], ids=lambda w: type(w).__name__)
def test_node_handler_never_raises(world: World, weird: Any) -> None:
    world.nodes.on_add(weird)
    world.nodes.on_update(weird, weird)
    world.nodes.on_update(make_node().model(), weird)
    world.nodes.on_delete(weird)


async def test_cordon_is_no_event_and_uncordon_a_taint_update(world: World) -> None:
    node = make_node().name("n1").model()
    cordoned = dataclasses.replace(node, unschedulable=True)
    assert node_events(node, cordoned) == []
    assert node_events(cordoned, node) == [
        ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
    ]


async def test_node_delete_reaches_the_queue_with_the_node(world: World) -> None:
    node = make_node().name("n1").model()
    world.nodes.on_add(node)
    world.events.clear()
    world.nodes.on_delete(node)
    assert world.events == [ClusterEvent(EventResource.NODE, ActionType.DELETE)]
