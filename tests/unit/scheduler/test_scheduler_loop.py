"""Scheduler + Binder over a real Framework (in-tree plugins), cache and queue, and a fake API.

Wired as `kubesched.server.app` wires them: frameworks by scheduler name, one cache and snapshot,
`SchedulerHandle` (whose `bind` POSTs `pods/binding`), `record_event`, `lookup_pod` from the
pod informer's store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import pytest

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import Code, CycleState, NodeInfo, Status, WaitingPods
from kubesched.kube.errors import (
    AlreadyExists,
    ApiError,
    Conflict,
    ConnectionFailed,
    Fenced,
    NotFound,
)
from kubesched.model import Node, Pod
from kubesched.queue import BACKOFF, UNSCHEDULABLE, SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.testing import build_test_framework, make_node, make_pod
from tests.unit.api_fakes import Call, FakeApi, settle, wait_for

PROFILE = "test-scheduler"


class Exploding:
    """A Filter plugin that raises for pods labelled `boom`."""

    name = "Exploding"

    def __init__(self, *, args: Any, handle: Any) -> None:
        pass

    def filter(self, _state: CycleState, pod: Pod, _node: NodeInfo) -> Status | None:
        if "boom" in pod.labels:
            raise RuntimeError("kaboom")
        return None


class Harness:
    def __init__(
        self,
        nodes: Iterable[Node],
        *,
        plugins: Iterable[type] = (),
        enabled: dict[str, Any] | None = None,
        fenced: Callable[[], bool] = lambda: False,
        nominate_for_expectation: bool = True,
    ) -> None:
        self.api = FakeApi()
        self.cache = SchedulerCache()
        self.snapshot = Snapshot()
        handle = SchedulerHandle(
            profile=PROFILE,
            snapshot=self.snapshot,
            api=self.api,
            recorder=EventRecorder(self.api),
            waiting_pods=WaitingPods(),
        )
        self.fw = build_test_framework(
            handle=handle,  # type: ignore[arg-type]
            plugins=plugins,
            enabled=enabled,
        )
        self.queue = SchedulingQueue(less=self.fw.queue_sort_less)
        self.store: dict[str, Pod] = {}
        self.events: list[dict[str, Any]] = []
        self.metrics = SchedulerMetrics()
        self.scheduler = Scheduler(
            frameworks={PROFILE: self.fw},
            cache=self.cache,
            snapshot=self.snapshot,
            queue=self.queue,
            api=self.api,
            record_event=lambda **kw: self.events.append(kw),
            metrics=self.metrics,
            lookup_pod=self.store.get,
            fenced=fenced,
            nominate_for_expectation=nominate_for_expectation,
        )
        for node in nodes:
            self.cache.add_node(node)

    def add(self, pod: Pod) -> Pod:
        self.store[pod.key] = pod
        self.queue.add(pod)
        return pod

    async def cycle(self) -> None:
        """One scheduling cycle and its binding cycle, to the end (side tasks included)."""
        qpi = await self.queue.pop()
        assert qpi is not None
        task = self.scheduler.schedule_one(qpi, self.queue.scheduling_cycle)
        if task is not None:
            await self.scheduler.binder.submit(task)
            assert await self.scheduler.binder.wait_idle(1)
        await settle()

    def bindings(self) -> list[Call]:
        return self.api.posts("/binding")

    def status_patches(self) -> list[Call]:
        return self.api.patches("/status")

    def where(self, pod: Pod) -> str | None:
        for name, entries in self.queue.pending_pods().items():
            if any(qpi.uid == pod.uid for qpi in entries):
                return name
        return None

    def attempts(self, result: str) -> float:
        value = self.metrics.registry.get_sample_value(
            "scheduler_schedule_attempts_total", {"result": result, "profile": PROFILE}
        )
        return value or 0.0


def nodes(count: int, cpu: str = "4") -> list[Node]:
    return [make_node().name(f"n{i}").capacity(cpu=cpu).model() for i in range(1, count + 1)]


def pod(name: str = "p", cpu: str = "1", **labels: str) -> Pod:
    builder = make_pod().name(name).namespace("ns").scheduler(PROFILE).req(cpu=cpu)
    for key, value in labels.items():
        builder = builder.label(key, value)
    return builder.model()


async def test_pod_that_fits_is_bound() -> None:
    h = Harness(nodes(1))
    p = h.add(pod())
    await h.cycle()

    (binding,) = h.bindings()
    assert binding.path == "/api/v1/namespaces/ns/pods/p/binding"
    assert binding.body == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p", "namespace": "ns", "uid": p.uid},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
    }
    assert binding.timeout is not None
    (event,) = h.events
    assert event["controller"] == PROFILE
    assert event["event_type"] == "Normal"
    assert event["reason"] == "Scheduled"
    assert event["action"] == "Binding"
    assert event["note"] == "Successfully assigned ns/p to n1"
    assert event["pod"].uid == p.uid
    # Assumed (counted on n1) until the informer confirms the binding.
    assert h.cache.is_assumed(p.uid)
    assert h.cache.node_info("n1").requested.milli_cpu == 1000  # type: ignore[union-attr]
    assert h.queue.get(p.uid) is None
    assert not h.status_patches()
    assert h.attempts("scheduled") == 1


async def test_unschedulable_pod_gets_event_condition_and_waits() -> None:
    h = Harness(nodes(3))
    p = h.add(pod(cpu="100"))
    await h.cycle()

    assert not h.bindings()
    message = (
        "0/3 nodes are available: 3 Insufficient cpu."
        " preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    (event,) = h.events
    assert event["reason"] == "FailedScheduling"
    assert event["event_type"] == "Warning"
    assert event["action"] == "Scheduling"
    assert event["note"].startswith("0/3 nodes are available: ")
    assert event["note"] == message
    (patch,) = h.status_patches()
    assert patch.path == "/api/v1/namespaces/ns/pods/p/status"
    (condition,) = patch.body["status"]["conditions"]
    assert condition["type"] == "PodScheduled"
    assert condition["status"] == "False"
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == message
    assert h.where(p) == UNSCHEDULABLE
    assert h.queue.get(p.uid).unschedulable_plugins == {"NodeResourcesFit"}  # type: ignore[union-attr]
    assert h.cache.pod_count() == 0
    assert h.attempts("unschedulable") == 1


async def test_no_nodes_is_unschedulable() -> None:
    h = Harness([])
    p = h.add(pod())
    await h.cycle()
    (event,) = h.events
    assert event["note"] == "no nodes available to schedule pods"
    condition = h.status_patches()[0].body["status"]["conditions"][0]
    assert condition["reason"] == "Unschedulable"
    assert h.queue.get(p.uid) is not None


@pytest.mark.parametrize(
    "error",
    [
        Conflict(409, "Conflict", 'pod "p" is already assigned to node "n2"'),
        Conflict(409, "Conflict", "pod p is being deleted, cannot be assigned to a host"),
        Conflict(409, "Conflict", "Precondition failed: UID in precondition: a, UID in object: b"),
        NotFound(404, "NotFound", 'pods "p" not found'),
    ],
    ids=["409-assigned", "409-deleting", "409-uid", "404"],
)
async def test_bind_conflict_or_not_found_forgets_and_drops(error: ApiError) -> None:
    h = Harness(nodes(1))
    h.api.errors["/binding"] = error
    p = h.add(pod())
    await h.cycle()

    assert len(h.bindings()) == 1
    assert not h.cache.is_assumed(p.uid)
    assert h.cache.pod_count() == 0
    assert h.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert h.queue.get(p.uid) is None
    assert h.events == []
    assert not h.status_patches()


UNAVAILABLE_409 = ApiError.from_status(
    409,
    {
        "reason": "Conflict",
        "message": 'Operation cannot be fulfilled on pods/binding "p": '
        "rpc error: code = Unavailable desc = etcdserver: leader changed",
    },
)


@pytest.mark.parametrize(
    "error",
    [
        ApiError.from_status(500, {"reason": "InternalError"}),
        ConnectionFailed("timed out"),
        UNAVAILABLE_409,
        AlreadyExists(409, "AlreadyExists", "binding exists"),
    ],
    ids=["500", "connection", "409-unavailable", "409-already-exists"],
)
async def test_bind_error_forgets_and_requeues_with_scheduler_error(error: ApiError) -> None:
    h = Harness(nodes(1))
    h.api.errors["/binding"] = error
    p = h.add(pod())
    await h.cycle()

    assert h.cache.pod_count() == 0
    assert h.cache.node_info("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert h.where(p) == BACKOFF
    (event,) = h.events
    assert event["reason"] == "FailedScheduling"
    assert str(error) in event["note"]
    condition = h.status_patches()[0].body["status"]["conditions"][0]
    assert condition["reason"] == "SchedulerError"
    assert h.attempts("error") == 1


async def test_any_409_is_settled_when_the_informer_shows_the_pod_bound() -> None:
    h = Harness(nodes(2))
    h.api.errors["/binding"] = UNAVAILABLE_409
    p = h.add(pod())
    h.api.on_post = lambda path, _body: h.store.update(
        {p.key: make_pod().name("p").namespace("ns").uid(p.uid).node("n2").model()}
    )
    await h.cycle()
    assert h.queue.get(p.uid) is None
    assert h.events == []


async def test_bind_error_then_retry_succeeds() -> None:
    h = Harness(nodes(1))
    h.api.fail_next(ApiError.from_status(503, {}))
    p = h.add(pod())
    await h.cycle()
    assert h.where(p) == BACKOFF
    h.queue.flush_backoff_completed()
    h.queue.activate([p])
    await h.cycle()
    assert len(h.bindings()) == 2
    assert h.events[-1]["reason"] == "Scheduled"
    assert h.cache.is_assumed(p.uid)


async def test_fenced_scheduler_does_not_post() -> None:
    h = Harness(nodes(1), fenced=lambda: True)
    p = h.add(pod())
    await h.cycle()
    assert not h.bindings()
    assert h.cache.pod_count() == 0
    assert h.where(p) == BACKOFF
    # Another replica may already have bound it: nothing is written about the pod.
    assert h.events == []
    assert not h.status_patches()


async def test_a_fenced_scheduler_reports_no_failure() -> None:
    """A pod that fits nowhere while the fence is closed: requeued, nothing written (the
    FailedScheduling event would go out through the unfenced event client)."""
    h = Harness(nodes(1), fenced=lambda: True)
    p = h.add(pod(cpu="100"))
    await h.cycle()
    assert h.where(p) == UNSCHEDULABLE
    assert h.events == []
    assert not h.status_patches()


async def test_a_binding_refused_by_the_client_fence_is_dropped_quietly() -> None:
    """The fence closed after the binding cycle started (the pause came while the Binding
    waited in the client): the client refuses to send it; the pod is forgotten and
    requeued, nothing is written about it."""
    h = Harness(nodes(1))
    h.api.errors["/binding"] = Fenced("POST .../binding: not sent")
    p = h.add(pod())
    await h.cycle()
    assert h.cache.pod_count() == 0
    assert h.where(p) == BACKOFF
    assert h.events == []
    assert not h.status_patches()


async def test_failure_of_a_pod_deleted_meanwhile_is_not_reported() -> None:
    h = Harness(nodes(1))
    p = h.add(pod(cpu="100"))
    del h.store[p.key]
    await h.cycle()
    assert h.events == []
    assert not h.status_patches()
    assert h.queue.get(p.uid) is None


async def test_status_patch_errors_do_not_escape() -> None:
    h = Harness(nodes(1))
    h.api.errors["/status"] = ApiError.from_status(500, {})
    p = h.add(pod(cpu="100"))
    await h.cycle()
    assert len(h.status_patches()) == 1
    assert h.where(p) == UNSCHEDULABLE
    assert not h.scheduler._side_tasks


async def test_plugin_exception_is_a_scheduler_error_and_the_loop_goes_on() -> None:
    h = Harness(nodes(2), plugins=[Exploding], enabled={"filter": ["Exploding"]})
    bad = h.add(pod("bad", boom="yes"))
    good = h.add(pod("good"))
    loop = asyncio.create_task(h.scheduler.run())
    try:
        await wait_for(lambda: len(h.events) == 2 and not h.scheduler.binder.in_flight)
        await settle()
    finally:
        h.queue.close()
        await asyncio.wait_for(loop, 1)

    by_pod = {event["pod"].name: event for event in h.events}
    assert by_pod["bad"]["reason"] == "FailedScheduling"
    assert "kaboom" in by_pod["bad"]["note"]
    assert by_pod["good"]["reason"] == "Scheduled"
    assert [b.body["metadata"]["uid"] for b in h.bindings()] == [good.uid]
    assert h.where(bad) == BACKOFF
    conditions = [p.body["status"]["conditions"][0] for p in h.status_patches()]
    assert [c["reason"] for c in conditions] == ["SchedulerError"]


async def test_crash_outside_plugins_is_reported_and_the_loop_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = Harness(nodes(1))
    real = h.cache.update_snapshot
    calls = []

    def flaky(snapshot: Snapshot) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("snapshot broke")
        real(snapshot)

    monkeypatch.setattr(h.cache, "update_snapshot", flaky)
    first = h.add(pod("first"))
    h.add(pod("second"))
    loop = asyncio.create_task(h.scheduler.run())
    try:
        await wait_for(lambda: len(h.events) == 2 and not h.scheduler.binder.in_flight)
        await settle()
    finally:
        h.queue.close()
        await asyncio.wait_for(loop, 1)
    reasons = {event["pod"].name: event["reason"] for event in h.events}
    assert reasons == {"first": "FailedScheduling", "second": "Scheduled"}
    assert h.where(first) == BACKOFF


async def test_pod_of_unknown_profile_or_being_deleted_is_skipped() -> None:
    h = Harness(nodes(1))
    other = make_pod().name("o").scheduler("someone-else").model()
    h.add(other)
    await h.cycle()
    deleting = pod("d")
    deleting.deleting = True
    h.add(deleting)
    await h.cycle()
    assert h.events == []
    assert not h.api.calls
    assert h.queue.get(other.uid) is None
    assert h.queue.get(deleting.uid) is None


async def test_assumed_pod_makes_room_unavailable_for_the_next_pod() -> None:
    h = Harness(nodes(1, cpu="2"))
    first = h.add(pod("first", cpu="2"))
    second = h.add(pod("second", cpu="2"))
    await h.cycle()
    await h.cycle()
    assert [b.body["metadata"]["uid"] for b in h.bindings()] == [first.uid]
    assert h.events[1]["note"] == (
        "0/1 nodes are available: 1 Insufficient cpu."
        " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    assert h.where(second) == UNSCHEDULABLE


class Rejecter:
    """Reserve: rejects pods labelled `reject` (Unschedulable)."""

    name = "Rejecter"

    def __init__(self, *, args: Any, handle: Any) -> None:
        pass

    def reserve(self, _state: CycleState, pod: Pod, _node: str) -> Status | None:
        if "reject" in pod.labels:
            return Status(Code.UNSCHEDULABLE, "no room in the reservation")
        return None

    def unreserve(self, _state: CycleState, _pod: Pod, _node: str) -> None:
        pass


async def test_reserve_rejection_is_reported_as_upstream_fit_error() -> None:
    # Upstream wraps a Reserve/Permit rejection in a FitError over the chosen node:
    # the message is "0/1 nodes are available: 1 <reason>." and the rejecting plugin is
    # recorded, so the pod waits in the unschedulable pool for that plugin's events.
    h = Harness(nodes(1), plugins=[Rejecter], enabled={"reserve": ["Rejecter"]})
    p = h.add(pod(reject="yes"))
    await h.cycle()
    assert h.cache.pod_count() == 0
    (event,) = h.events
    assert event["note"] == "0/1 nodes are available: 1 no room in the reservation."
    assert h.queue.get(p.uid).unschedulable_plugins == {"Rejecter"}  # type: ignore[union-attr]
    assert h.where(p) == UNSCHEDULABLE


async def test_plugins_of_an_earlier_attempt_do_not_stick() -> None:
    # Upstream's Pop clears UnschedulablePlugins/PendingPlugins for the new attempt.
    h = Harness(nodes(1, cpu="1"), plugins=[Rejecter], enabled={"reserve": ["Rejecter"]})
    p = h.add(pod(cpu="2", reject="yes"))
    await h.cycle()
    assert h.queue.get(p.uid).unschedulable_plugins == {"NodeResourcesFit"}  # type: ignore[union-attr]
    h.cache.add_node(make_node().name("n1").capacity(cpu="4").model())
    h.queue.move_all_to_active_or_backoff("node grew")
    h.queue.flush_backoff_completed()
    h.queue.activate([p])
    await h.cycle()
    assert h.queue.get(p.uid).unschedulable_plugins == {"Rejecter"}  # type: ignore[union-attr]


class Gate:
    """Permit: every pod waits (up to 0.05 s, then it is rejected by timeout)."""

    name = "Gate"

    def __init__(self, *, args: Any, handle: Any) -> None:
        pass

    def permit(self, _state: CycleState, _pod: Pod, _node: str) -> tuple[Status | None, float]:
        return Status(Code.WAIT), 0.05


async def test_permit_wait_then_allow_binds() -> None:
    h = Harness(nodes(1), plugins=[Gate], enabled={"permit": ["Gate"]})
    p = h.add(pod())
    qpi = await h.queue.pop()
    assert qpi is not None
    task = h.scheduler.schedule_one(qpi, h.queue.scheduling_cycle)
    assert task is not None
    await h.scheduler.binder.submit(task)
    await settle()
    assert not h.bindings()  # held at Permit
    h.fw.handle.waiting_pods.get(p.uid).allow("Gate")  # type: ignore[union-attr]
    assert await h.scheduler.binder.wait_idle(1)
    assert len(h.bindings()) == 1
    assert h.events[0]["reason"] == "Scheduled"


async def test_permit_timeout_is_a_rejection_on_the_chosen_node() -> None:
    h = Harness(nodes(1), plugins=[Gate], enabled={"permit": ["Gate"]})
    p = h.add(pod())
    await h.cycle()
    assert not h.bindings()
    assert h.cache.pod_count() == 0
    (event,) = h.events
    assert event["note"] == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 50ms at plugin Gate."
    )
    assert h.queue.get(p.uid).unschedulable_plugins == {"Gate"}  # type: ignore[union-attr]
    assert h.where(p) == UNSCHEDULABLE
    nomination, failure = h.status_patches()
    assert nomination.body["status"] == {"nominatedNodeName": "n1"}  # while it waited
    condition = failure.body["status"]["conditions"][0]
    assert condition["reason"] == "Unschedulable"


class WorkingPreBind:
    """PreBind with work to do (no `pre_bind_pre_flight`: taken to have work)."""

    name = "WorkingPreBind"
    calls: ClassVar[list[str]] = []

    def __init__(self, *, args: Any, handle: Any) -> None:
        pass

    def pre_bind(self, _state: CycleState, pod: Pod, _node: str) -> Status | None:
        self.calls.append(pod.name)
        return None


class IdlePreBind(WorkingPreBind):
    """PreBindPreFlight says Skip: its PreBind is not called."""

    name = "IdlePreBind"

    def pre_bind_pre_flight(self, _state: CycleState, _pod: Pod, _node: str) -> Status | None:
        return Status(Code.SKIP)


class BrokenPreFlight(WorkingPreBind):
    name = "BrokenPreFlight"

    def pre_bind_pre_flight(self, _state: CycleState, _pod: Pod, _node: str) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "no")


def nominations(h: Harness) -> list[Any]:
    return [c.body["status"] for c in h.status_patches() if "nominatedNodeName" in c.body["status"]]


async def test_a_pod_whose_pre_bind_has_work_is_nominated_to_its_node_first() -> None:
    WorkingPreBind.calls = []
    h = Harness(nodes(1), plugins=[WorkingPreBind], enabled={"preBind": ["WorkingPreBind"]})
    h.add(pod())
    await h.cycle()
    assert nominations(h) == [{"nominatedNodeName": "n1"}]
    assert WorkingPreBind.calls == ["p"]
    assert len(h.bindings()) == 1


async def test_nothing_to_wait_for_means_no_nomination_and_a_skipped_pre_bind() -> None:
    IdlePreBind.calls = []
    h = Harness(nodes(1), plugins=[IdlePreBind], enabled={"preBind": ["IdlePreBind"]})
    h.add(pod())
    await h.cycle()
    assert not nominations(h)
    assert IdlePreBind.calls == []
    assert len(h.bindings()) == 1


async def test_without_the_gate_no_pod_is_nominated_for_expectation() -> None:
    h = Harness(
        nodes(1),
        plugins=[WorkingPreBind],
        enabled={"preBind": ["WorkingPreBind"]},
        nominate_for_expectation=False,
    )
    h.add(pod())
    await h.cycle()
    assert not nominations(h)
    assert len(h.bindings()) == 1


async def test_an_unsupported_pre_flight_status_fails_the_binding_cycle() -> None:
    h = Harness(nodes(1), plugins=[BrokenPreFlight], enabled={"preBind": ["BrokenPreFlight"]})
    p = h.add(pod())
    await h.cycle()
    assert not h.bindings()
    assert not nominations(h)
    assert h.where(p) == BACKOFF
    (event,) = h.events
    assert event["note"] == (
        'PreBindPreFlight BrokenPreFlight returned "Unschedulable", which is unsupported.'
        " It is supposed to return Success, Skip, or Error status"
    )
