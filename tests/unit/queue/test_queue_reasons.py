"""`scheduler_unschedulable_pods`, kept by the queue as pods move (`queue.reasons`), equals
a full recount of the unschedulable pool and the gated set after every move of a seeded
random walk through the queue."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from kubesched.model import Pod
from kubesched.queue import GATED, UNSCHEDULABLE, QueuedPodInfo, QueueingStrategy, SchedulingQueue
from kubesched.queue.reasons import ReasonCounts
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort

PLUGINS = ("NodeResourcesFit", "NodeAffinity", "DynamicResources", "SchedulingGates")
STRATEGIES = tuple(QueueingStrategy)


def recount(queue: SchedulingQueue) -> Counter[tuple[str, str]]:
    """Every waiting pod once for each plugin that rejected, left Pending or gates it."""
    waiting = queue.pending_pods()
    counts: Counter[tuple[str, str]] = Counter()
    for qpi in (*waiting[UNSCHEDULABLE], *waiting[GATED]):
        plugins = qpi.unschedulable_plugins | qpi.pending_plugins
        if qpi.gating_plugin:
            plugins = plugins | {qpi.gating_plugin}
        counts.update((plugin, qpi.pod.scheduler_name) for plugin in plugins)
    return counts


def pre_enqueue(pod: Pod) -> str | None:
    """Two gates, so that a pod can pass from one to the other while it waits."""
    if pod.scheduling_gates:
        return "SchedulingGates"
    return "Hold" if pod.labels.get("hold") else None


def make(rng: random.Random, i: int) -> Pod:
    pod = make_pod().name(f"p{i}").uid(f"p{i}").scheduler(rng.choice(("default", "second")))
    if rng.random() < 0.3:
        pod = pod.scheduling_gate("wait")
    if rng.random() < 0.3:
        pod = pod.label("hold", "yes")
    pod = pod.label("v", str(rng.random()))
    return pod.model()


def changed(rng: random.Random, pod: Pod) -> Pod:
    """The same pod with its gate or hold label maybe dropped and a spec change."""
    new = make_pod().name(pod.name).uid(pod.uid).scheduler(pod.scheduler_name)
    if pod.scheduling_gates and rng.random() < 0.5:
        new = new.scheduling_gate("wait")
    if pod.labels.get("hold") and rng.random() < 0.5:
        new = new.label("hold", "yes")
    return new.label("v", str(rng.random())).model()


class Walk:
    def __init__(self, seed: int) -> None:
        self.rng = rng = random.Random(seed)
        self.clock = FakeClock()
        self.queue = SchedulingQueue(
            less=priority_sort,
            pre_enqueue=pre_enqueue,
            requeue_strategy=lambda *_: rng.choices(STRATEGIES, weights=(6, 2, 2))[0],
            clock=self.clock,
            pop_from_backoff=rng.random() < 0.5,
        )
        self.pods: dict[str, Pod] = {}
        self.in_flight: dict[str, QueuedPodInfo] = {}
        self.next = 0

    async def step(self) -> None:
        rng, queue = self.rng, self.queue
        move = rng.randrange(13)
        if move <= 1 or not self.pods:
            pod = make(rng, self.next)
            self.next += 1
            self.pods[pod.uid] = pod
            queue.add(pod)
        elif move == 2:
            uid = rng.choice(sorted(self.pods))
            old, new = self.pods[uid], changed(rng, self.pods[uid])
            self.pods[uid] = new
            queue.update(old, new)
        elif move in (3, 4):
            await self.pop()
        elif move in (5, 6, 7) and self.in_flight:
            self.fail(self.in_flight.pop(rng.choice(sorted(self.in_flight))))
        elif move == 8:
            queue.move_all_to_active_or_backoff(rng.choice(("NodeAdd", "PodDelete")))
        elif move == 9:
            uid = rng.choice(sorted(self.pods))
            queue.delete(self.pods.pop(uid))
        elif move == 10:
            queue.activate(rng.sample(list(self.pods.values()), k=min(3, len(self.pods))))
        elif move == 11:
            self.clock.step(rng.choice((0.5, 5.0, 120.0)))
            queue.flush_backoff_completed()
            queue.flush_unschedulable_left_over()
        else:
            chosen = set(rng.sample(sorted(self.pods), k=min(2, len(self.pods))))
            for qpi in queue.take_members(lambda pod: pod.uid in chosen):
                self.in_flight[qpi.uid] = qpi

    async def pop(self) -> None:
        counts = self.queue.pending_counts()
        if counts["active"] or counts["backoff"]:
            try:
                qpi = await asyncio.wait_for(self.queue.pop(), 0.01)
            except TimeoutError:
                return
            if qpi is not None:
                self.in_flight[qpi.uid] = qpi

    def fail(self, qpi: QueuedPodInfo) -> None:
        rng, queue = self.rng, self.queue
        cycle = queue.scheduling_cycle
        qpi.unschedulable_plugins = set(rng.sample(PLUGINS, k=rng.randrange(3)))
        qpi.pending_plugins = set(rng.sample(PLUGINS[:3], k=rng.randrange(2)))
        outcome = rng.randrange(4)
        if outcome == 0:
            queue.requeue_after_error(qpi, pod_scheduling_cycle=cycle)
        elif outcome == 1 and qpi.uid in self.pods:
            queue.delete(self.pods.pop(qpi.uid))  # bound
            queue.done(qpi.uid)
        else:
            queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)


@pytest.mark.parametrize("seed", range(8))
async def test_kept_counts_equal_a_recount_after_every_move(seed: int) -> None:
    walk = Walk(seed)
    seen: Counter[tuple[str, str]] = Counter()
    pooled = 0
    for _ in range(1500):
        await walk.step()
        expected = recount(walk.queue)
        assert dict(walk.queue.unschedulable_reasons()) == dict(expected)
        seen.update(expected)
        pooled += walk.queue.pending_counts()[UNSCHEDULABLE] > 0
    # the walk went through the pool often, both gates, both profiles and every rejecting plugin
    assert {plugin for plugin, _ in seen} == {*PLUGINS, "Hold"}
    assert {profile for _, profile in seen} == {"default", "second"}
    assert pooled > 300


def test_a_pod_counts_once_a_plugin_and_leaves_no_zero_series() -> None:
    reasons = ReasonCounts()
    qpi = QueuedPodInfo(pod=make_pod().uid("p").scheduler("s").model(), timestamp=0.0)
    qpi.unschedulable_plugins = {"A", "B"}
    qpi.pending_plugins = {"B"}
    qpi.gating_plugin = "A"
    reasons.enter(UNSCHEDULABLE, qpi)
    reasons.enter(UNSCHEDULABLE, qpi)
    assert reasons.counts == {("A", "s"): 1, ("B", "s"): 1}
    reasons.enter(GATED, qpi)
    assert reasons.counts == {("A", "s"): 2, ("B", "s"): 2}
    reasons.leave(UNSCHEDULABLE, "p")
    reasons.leave(GATED, "p")
    reasons.leave(GATED, "p")
    assert reasons.counts == {}
