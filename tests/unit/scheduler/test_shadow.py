"""Shadow mode's loop and comparison over a real Framework (in-tree plugins), cache and queue:
a pod is decided and forgotten (never assumed), and each outcome of the other scheduler is
classified into `kubesched_shadow_decisions_total{profile,agreement}`, disagreements logged
with both nodes and kubesched's scores of them."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

import pytest

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import WaitingPods
from kubesched.framework.logkv import pairs_of
from kubesched.model import Node, Pod
from kubesched.queue import SchedulingQueue
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.shadow import DISAGREEMENT, ShadowScheduler
from kubesched.scheduler.shadow_compare import Agreement, Decision, classify
from kubesched.testing import build_test_framework, make_node, make_pod
from tests.unit.api_fakes import FakeApi

SHADOWED = "test-scheduler"  # build_test_framework's profile: the shadowed scheduler's name
PROFILE = "kubesched"


class Shadow:
    """A ShadowScheduler as `kubesched.server.shadow_setup` wires it."""

    def __init__(self, nodes: list[Node]) -> None:
        self.api = FakeApi()
        self.cache, snapshot = SchedulerCache(), Snapshot()
        handle = SchedulerHandle(
            profile=SHADOWED,
            snapshot=snapshot,
            api=self.api,
            recorder=EventRecorder(self.api),
            waiting_pods=WaitingPods(),
        )
        framework = build_test_framework(handle=handle)  # type: ignore[arg-type]
        self.queue = SchedulingQueue(less=framework.queue_sort_less)
        self.metrics = SchedulerMetrics()
        self.shadow = ShadowScheduler(
            framework=framework,
            profile=PROFILE,
            cache=self.cache,
            snapshot=snapshot,
            queue=self.queue,
            registry=self.metrics.registry,
        )
        for node in nodes:
            self.cache.add_node(node)

    async def decide_queued(self, *pods: Pod) -> None:
        """Queue the pods and let the loop decide them all."""
        for pod in pods:
            self.queue.add(pod)
        loop = asyncio.create_task(self.shadow.run())
        for _ in range(100):
            await asyncio.sleep(0)
            if self.shadow.pending_decisions() == len(pods):
                break
        loop.cancel()
        await asyncio.gather(loop, return_exceptions=True)

    def bound(self, pod: Pod, node: str) -> None:
        """The other scheduler binds `pod`: the observer, then the cache (as the informer)."""
        bound = pod.on_node(node)
        self.shadow.on_update(pod, bound)
        self.cache.add_pod(bound)

    def found_unschedulable(self, pod: Pod) -> None:
        condition = ("False", "Unschedulable", "0/2 nodes are available: 2 Insufficient cpu.")
        self.shadow.on_update(pod, dataclasses.replace(pod, scheduled_condition=condition))

    def count(self, agreement: Agreement) -> float:
        labels = {"profile": PROFILE, "agreement": agreement.value}
        value = self.metrics.registry.get_sample_value("kubesched_shadow_decisions_total", labels)
        return value or 0.0


def pod(name: str, cpu: str = "1") -> Pod:
    return make_pod().name(name).uid(name).scheduler(SHADOWED).req(cpu=cpu).model()


def node(name: str, cpu: str) -> Node:
    return make_node().name(name).capacity(cpu=cpu, memory="32Gi").model()


@pytest.mark.parametrize(
    ("decision", "real", "agreement"),
    [
        (Decision("a", 0, frozenset({"a"})), "a", Agreement.SAME_NODE),
        (Decision("a", 0, frozenset({"a", "b"})), "b", Agreement.TIE),
        (Decision("a", 0, frozenset({"a"})), "b", Agreement.DIFFERENT),
        (Decision("", 0), "b", Agreement.KUBESCHED_UNSCHEDULABLE),
        (Decision("a", 0, frozenset({"a"})), "", Agreement.ONLY_KUBESCHED_SCHEDULABLE),
        (Decision("", 0), "", Agreement.BOTH_UNSCHEDULABLE),
    ],
)
def test_classify(decision: Decision, real: str, agreement: Agreement) -> None:
    assert classify(decision, real) is agreement


async def test_a_pod_is_decided_and_forgotten_never_assumed() -> None:
    harness = Shadow([node("small", "2"), node("big", "16")])
    first = pod("p1")
    await harness.decide_queued(first)
    assert harness.shadow.pending_decisions() == 1
    assert harness.cache.assumed_count() == 0
    assert harness.cache.pod_count() == 0
    assert harness.queue.pending_counts().get(SHADOWED, 0) == 0
    assert harness.api.calls == []
    harness.bound(first, "big")  # LeastAllocated's choice too
    assert harness.count(Agreement.SAME_NODE) == 1
    assert harness.shadow.pending_decisions() == 0


async def test_a_node_of_equal_score_is_a_tie() -> None:
    harness = Shadow([node("a", "8"), node("b", "8")])
    first = pod("p1")
    await harness.decide_queued(first)
    chosen = "a" if harness.count(Agreement.SAME_NODE) == 0 else "b"
    harness.bound(first, "b" if chosen == "a" else "a")
    assert harness.count(Agreement.SAME_NODE) + harness.count(Agreement.TIE) == 1


async def test_a_lower_scored_node_is_logged_with_both_scores(
    caplog: pytest.LogCaptureFixture,
) -> None:
    harness = Shadow([node("small", "2"), node("big", "16")])
    first = pod("p1")
    await harness.decide_queued(first)
    with caplog.at_level(logging.INFO, logger="kubesched.scheduler.shadow"):
        harness.bound(first, "small")
    assert harness.count(Agreement.DIFFERENT) == 1
    [record] = [r for r in caplog.records if r.getMessage() == DISAGREEMENT]
    fields = pairs_of(record)
    assert fields is not None
    assert (fields["pod"], fields["agreement"]) == ("default/p1", "different")
    assert (fields["kubeschedNode"], fields["schedulerNode"]) == ("big", "small")
    assert int(str(fields["kubeschedNodeScore"])) > int(str(fields["schedulerNodeScore"]))


async def test_unschedulable_outcomes() -> None:
    harness = Shadow([node("a", "2"), node("b", "2")])
    too_big, fits = pod("huge", cpu="8"), pod("fits")
    await harness.decide_queued(too_big, fits)
    harness.found_unschedulable(too_big)
    harness.found_unschedulable(fits)
    assert harness.count(Agreement.BOTH_UNSCHEDULABLE) == 1
    assert harness.count(Agreement.ONLY_KUBESCHED_SCHEDULABLE) == 1
    other = pod("other", cpu="8")
    await harness.decide_queued(other)
    harness.bound(other, "a")  # its scheduler saw the cluster otherwise
    assert harness.count(Agreement.KUBESCHED_UNSCHEDULABLE) == 1


async def test_a_decision_the_cluster_outdated_is_made_again() -> None:
    harness = Shadow([node("a", "4"), node("b", "4")])
    first, second = pod("p1", cpu="3"), pod("p2", cpu="3")
    await harness.decide_queued(first, second)  # both would go anywhere, on an empty cluster
    harness.bound(first, "a")
    harness.bound(second, "b")  # decided again: "a" is full now
    assert harness.count(Agreement.SAME_NODE) + harness.count(Agreement.TIE) == 2
    assert harness.count(Agreement.SAME_NODE) >= 1
    assert harness.count(Agreement.DIFFERENT) == 0


async def test_a_deleted_pod_is_never_compared() -> None:
    harness = Shadow([node("a", "4")])
    first = pod("p1")
    await harness.decide_queued(first)
    harness.shadow.on_delete(first)
    assert harness.shadow.pending_decisions() == 0
