"""Preemption through the scheduling loop, the application's Handle and `Preemptions`, against
an in-memory API: the preemptor is nominated (status and nominator), each victim gets the
DisruptionTarget condition, a DELETE with its UID as precondition and a `Preempted` event;
the preemptor is held while evicting, then bound to the nominated node once room appears."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import WaitingPod, WaitingPods
from kubesched.kube.errors import ApiError, NotFound
from kubesched.model import Node, Pod
from kubesched.queue import ACTIVE, GATED, UNSCHEDULABLE, Nominator, SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.eventhandlers import ASSIGNED_POD_DELETE
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import Preemptions
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.testing import build_test_framework, make_node, make_pod
from tests.unit.api_fakes import FakeApi

PROFILE = "preempting-scheduler"
HIGH = 1000


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Loop:
    """The scheduler as `kubesched.server.app` wires it, one profile, Preemptions included."""

    def __init__(
        self, nodes: list[Node], *, fenced: bool = False, generic_workload: bool = False
    ) -> None:
        self.api = FakeApi()
        self.recorder = EventRecorder(self.api)
        self.cache = SchedulerCache()
        self.snapshot = Snapshot()
        waiting = WaitingPods()
        self.waiting = waiting
        self.metrics = SchedulerMetrics(generic_workload=generic_workload)
        nominator = Nominator()

        def activate_held(uid: str, *, gated_by: str, force: bool = False) -> None:
            self.queue.activate_held(uid, gated_by=gated_by, force=force)

        self.preemptions = Preemptions(
            api=self.api,
            recorder=self.recorder,
            waiting_pods=waiting,
            nominator=nominator,
            activate_held=activate_held,
            fenced=lambda: fenced,
            metrics=self.metrics,
        )
        handle = SchedulerHandle(
            profile=PROFILE,
            snapshot=self.snapshot,
            api=self.api,
            recorder=self.recorder,
            waiting_pods=waiting,
            preemptions=self.preemptions,
        )
        self.fw = build_test_framework(
            handle=handle,  # type: ignore[arg-type]
            observe_post_filter=self.preemptions.observe_post_filter,
        )
        self.clock = Clock()

        def pre_enqueue(pod: Pod) -> str | None:
            status = self.fw.run_pre_enqueue(pod)
            return None if status.is_success() else status.plugin

        self.queue = SchedulingQueue(
            less=self.fw.queue_sort_less,
            pre_enqueue=pre_enqueue,
            clock=self.clock,
            nominator=nominator,
        )
        self.store: dict[str, Pod] = {}
        self.events: list[dict[str, Any]] = []
        self.scheduler = Scheduler(
            frameworks={PROFILE: self.fw},
            cache=self.cache,
            snapshot=self.snapshot,
            queue=self.queue,
            api=self.api,
            record_event=lambda **kw: self.events.append(kw),
            metrics=self.metrics,
            lookup_pod=self.store.get,
        )
        for node in nodes:
            self.cache.add_node(node)

    def bound(self, pod: Pod) -> Pod:
        self.cache.add_pod(pod)
        return pod

    def pending(self, pod: Pod) -> Pod:
        self.store[pod.key] = pod
        self.queue.add(pod)
        return pod

    async def cycle(self) -> None:
        qpi = await self.queue.pop()
        assert qpi is not None
        task = self.scheduler.schedule_one(qpi, self.queue.scheduling_cycle)
        if task is not None:
            await self.scheduler.binder.submit(task)
            assert await self.scheduler.binder.wait_idle(1)
        await settle()

    def where(self, pod: Pod) -> str | None:
        for name, entries in self.queue.pending_pods().items():
            if any(qpi.uid == pod.uid for qpi in entries):
                return name
        return None

    async def written_events(self) -> list[dict[str, Any]]:
        await self.recorder.drain(timeout=1)
        return [c.body for c in self.api.of("POST", "/events")]


async def settle(rounds: int = 20) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


def low(name: str, node: str = "n1", *, priority: int = 1) -> Pod:
    pod = make_pod().name(name).namespace("ns").node(node).req(cpu="1").priority(priority)
    return pod.model()


def preemptor(name: str = "vip", priority: int = HIGH) -> Pod:
    pod = make_pod().name(name).namespace("ns").scheduler(PROFILE).req(cpu="1")
    return pod.priority(priority).model()


def one_cpu_node() -> Node:
    return make_node().name("n1").capacity(cpu="1").model()


async def test_preemption_end_to_end_in_memory() -> None:
    loop = Loop([one_cpu_node()])
    victim = loop.bound(low("victim"))
    vip = loop.pending(preemptor())
    await loop.cycle()

    # The attempt failed, with upstream's text, and nominated the pod to n1.
    (failed,) = loop.events
    assert failed["reason"] == "FailedScheduling"
    assert failed["note"] == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement"
        " for pod on node n1, preempting 1 victims"
    )
    status_patch = loop.api.of("PATCH", "/pods/vip/status")[0].body
    assert status_patch["status"]["nominatedNodeName"] == "n1"
    assert [pod.uid for pod in loop.queue.nominated_pods_for_node("n1")] == [vip.uid]
    assert loop.where(vip) == UNSCHEDULABLE

    # The victim: DisruptionTarget, then DELETE with its UID as precondition, then the event.
    await loop.preemptions.wait_idle()
    (condition_patch,) = loop.api.of("PATCH", "/pods/victim/status")
    (condition,) = condition_patch.body["status"]["conditions"]
    assert condition["type"] == "DisruptionTarget"
    assert condition["status"] == "True"
    assert condition["reason"] == "PreemptionByScheduler"
    assert condition["message"] == f"{PROFILE}: preempting to accommodate a higher priority pod"
    (delete,) = loop.api.of("DELETE")
    assert delete.path == "/api/v1/namespaces/ns/pods/victim"
    assert delete.body["preconditions"] == {"uid": victim.uid}
    assert "gracePeriodSeconds" not in delete.body  # the default grace period, as upstream
    written = await loop.written_events()
    (preempted,) = [e for e in written if e["reason"] == "Preempted"]
    assert preempted["action"] == "Preempting"
    assert preempted["type"] == "Normal"
    assert preempted["note"] == f"Preempted by pod {vip.uid} on node n1"
    assert preempted["regarding"]["name"] == "victim"
    assert preempted["related"]["name"] == "vip"
    assert preempted["reportingController"] == PROFILE
    assert not loop.preemptions.is_preempting(vip.uid)

    # The victim is gone: the preemptor backs off; a lower-priority pod arriving meanwhile
    # cannot take the room held for the preemptor.
    loop.cache.remove_pod(victim)
    loop.queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, victim, None)
    loop.pending(preemptor("late", priority=5))
    await loop.cycle()
    assert loop.events[-1]["note"].startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert not loop.api.of("POST", "/binding")

    # Once its backoff is over, the preemptor is bound to its nominated node.
    loop.clock.now += 2
    loop.queue.flush_backoff_completed()
    await loop.cycle()
    (binding,) = loop.api.of("POST", "/binding")
    assert binding.path == "/api/v1/namespaces/ns/pods/vip/binding"
    assert binding.body["target"]["name"] == "n1"
    assert loop.queue.nominated_pods_for_node("n1") == []  # assumed: nominated no more


async def test_the_preemptor_is_held_while_its_victims_are_evicted() -> None:
    loop = Loop([one_cpu_node()])
    victim = loop.bound(low("victim"))
    vip = loop.pending(preemptor())
    gate = asyncio.Event()
    original = loop.api.delete

    async def slow_delete(path: str, **kwargs: Any) -> dict[str, Any]:
        await gate.wait()
        return await original(path, **kwargs)

    loop.api.delete = slow_delete  # type: ignore[method-assign]
    await loop.cycle()
    assert loop.preemptions.is_preempting(vip.uid)
    # The victim's deletion is seen before the DELETE call returned: the pod is held.
    loop.cache.remove_pod(victim)
    loop.queue.activate([vip])
    assert loop.where(vip) == GATED
    gate.set()
    await loop.preemptions.wait_idle()
    assert not loop.preemptions.is_preempting(vip.uid)
    assert loop.where(vip) == ACTIVE  # released when the eviction ended
    await loop.cycle()
    (binding,) = loop.api.of("POST", "/binding")
    assert binding.body["target"]["name"] == "n1"


async def test_lower_priority_nominations_on_the_node_are_cleared() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("victim"))
    lesser = make_pod().name("lesser").namespace("ns").scheduler(PROFILE).req(cpu="1")
    lesser_pod = lesser.priority(10).nominated_node("n1").model()
    loop.pending(lesser_pod)  # nominated to n1 by an earlier preemption
    loop.queue.delete(lesser_pod)
    loop.queue.nominator.add(lesser_pod)
    loop.pending(preemptor())
    await loop.cycle()
    await loop.preemptions.wait_idle()
    (clear,) = loop.api.of("PATCH", "/pods/lesser/status")
    assert clear.body == {
        "metadata": {"uid": lesser_pod.uid},
        "status": {"nominatedNodeName": None},
    }
    assert lesser_pod.uid not in [p.uid for p in loop.queue.nominated_pods_for_node("n1")]


async def test_a_victim_already_gone_is_no_error_and_activates_the_preemptor() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("victim"))
    vip = loop.pending(preemptor())
    loop.api.errors["/api/v1/namespaces/ns/pods/victim"] = NotFound(404, "NotFound", "")
    await loop.cycle()
    await loop.preemptions.wait_idle()
    assert [e for e in await loop.written_events() if e["reason"] == "Preempted"] == []
    # Its deletion event may have come and gone while the preemptor was in flight
    # (kubernetes/kubernetes#141694): nothing else would wake the preemptor.
    assert loop.where(vip) == ACTIVE


async def test_a_failed_eviction_activates_the_preemptor() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("victim"))
    vip = loop.pending(preemptor())
    failure = ApiError(500, "InternalError", "etcd is sad")
    loop.api.errors["/api/v1/namespaces/ns/pods/victim"] = failure
    await loop.cycle()
    await loop.preemptions.wait_idle()
    assert loop.where(vip) == ACTIVE


async def test_a_victim_waiting_at_permit_is_rejected_in_memory() -> None:
    loop = Loop([one_cpu_node()])
    waiting_victim = low("waiting")
    waiting = WaitingPod(pod=waiting_victim, plugin_timeouts={"Gate": 60})
    loop.waiting.add(waiting)
    vip = preemptor()
    loop.preemptions.start(profile=PROFILE, preemptor=vip, node_name="n1", victims=[waiting_victim])
    await loop.preemptions.wait_idle()
    status = await waiting.wait()
    assert status.plugin == "DefaultPreemption"
    assert status.message == "preempted"
    assert not loop.api.of("DELETE")
    (event,) = [e for e in await loop.written_events() if e["reason"] == "Preempted"]
    assert event["note"] == (f"Preempted by pod {vip.uid} on node n1 (in kube-scheduler memory).")


async def test_no_candidate_clears_an_old_nomination() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("peer", priority=HIGH))
    was_nominated = make_pod().name("vip").namespace("ns").scheduler(PROFILE).req(cpu="1")
    vip = loop.pending(was_nominated.priority(HIGH).nominated_node("n1").model())
    await loop.cycle()
    patch = loop.api.of("PATCH", "/pods/vip/status")[0].body
    assert patch["status"]["nominatedNodeName"] == ""
    assert loop.queue.nominated_pods_for_node("n1") == []
    assert loop.events[0]["note"].endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    assert loop.where(vip) == UNSCHEDULABLE


async def test_a_fenced_former_leader_evicts_nothing() -> None:
    loop = Loop([one_cpu_node()], fenced=True)
    loop.bound(low("victim"))
    vip = loop.pending(preemptor())
    await loop.cycle()
    await loop.preemptions.wait_idle()
    assert not loop.api.of("DELETE")
    assert not loop.api.of("PATCH", "/pods/victim/status")
    assert loop.where(vip) == ACTIVE  # not held: the next leader decides again


def sample(loop: Loop, name: str, **labels: str) -> float | None:
    return loop.metrics.registry.get_sample_value(name, labels)


async def test_preemption_metrics_have_kube_schedulers_names() -> None:
    loop = Loop([make_node().name("n1").capacity(cpu="2").model()])
    loop.bound(low("v1"))
    loop.bound(low("v2"))
    big = make_pod().name("vip").namespace("ns").scheduler(PROFILE).req(cpu="2")
    loop.pending(big.priority(HIGH).model())
    await loop.cycle()
    await loop.preemptions.wait_idle()
    assert sample(loop, "scheduler_preemption_attempts_total") == 1
    assert sample(loop, "scheduler_preemption_victims_count") == 1
    assert sample(loop, "scheduler_preemption_victims_sum") == 2
    assert sample(loop, "scheduler_preemption_victims_bucket", le="1.0") == 0
    assert sample(loop, "scheduler_preemption_victims_bucket", le="2.0") == 1
    assert sample(loop, "scheduler_preemption_victims_bucket", le="64.0") == 1


async def test_an_attempt_without_candidates_counts_no_victims() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("peer", priority=HIGH))
    loop.pending(preemptor())
    await loop.cycle()
    assert sample(loop, "scheduler_preemption_attempts_total") == 1
    assert sample(loop, "scheduler_preemption_victims_count") == 0


async def test_every_eviction_run_is_counted_by_its_result() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("victim"))
    loop.pending(preemptor())
    await loop.cycle()
    await loop.preemptions.wait_idle()
    runs = "scheduler_preemption_goroutines_execution_total"
    assert sample(loop, runs, result="success") == 1
    # Its duration histogram is hidden in kube-scheduler v1.37 (deprecated): not exported.
    hidden = "scheduler_preemption_goroutines_duration_seconds_count"
    assert sample(loop, hidden, result="success") is None
    assert sample(loop, runs, result="error") is None
    # Without the GenericWorkload gate, kube-scheduler has no evaluation/execution durations.
    assert (
        sample(
            loop,
            "scheduler_preemption_evaluation_duration_seconds_count",
            preemptor="pod",
            result="Success",
        )
        is None
    )


async def test_a_failed_eviction_run_counts_as_an_error() -> None:
    loop = Loop([one_cpu_node()])
    loop.bound(low("victim"))
    loop.pending(preemptor())
    loop.api.errors["/api/v1/namespaces/ns/pods/victim"] = ApiError(500, "InternalError", "")
    await loop.cycle()
    await loop.preemptions.wait_idle()
    assert sample(loop, "scheduler_preemption_goroutines_execution_total", result="error") == 1


async def test_with_generic_workload_a_pods_preemption_is_timed_as_upstreams() -> None:
    loop = Loop([one_cpu_node()], generic_workload=True)
    loop.bound(low("victim"))
    loop.pending(preemptor())
    await loop.cycle()
    await loop.preemptions.wait_idle()
    evaluated = "scheduler_preemption_evaluation_duration_seconds_count"
    executed = "scheduler_preemption_execution_duration_seconds_count"
    assert sample(loop, evaluated, preemptor="pod", result="Success") == 1
    assert sample(loop, executed, preemptor="pod", result="success") == 1
    # A pod's victims stay in scheduler_preemption_victims; no PDB was violated.
    assert sample(loop, "scheduler_preemption_victims_count") == 1
    assert sample(loop, "scheduler_workload_preemption_victims_count") == 0
    assert sample(loop, "scheduler_preemption_pdb_violations_total", preemptor="pod") is None


async def test_with_generic_workload_a_fruitless_evaluation_is_timed_too() -> None:
    loop = Loop([one_cpu_node()], generic_workload=True)
    loop.bound(low("peer", priority=HIGH))
    loop.pending(preemptor())
    await loop.cycle()
    evaluated = "scheduler_preemption_evaluation_duration_seconds_count"
    assert sample(loop, evaluated, preemptor="pod", result="Unschedulable") == 1
