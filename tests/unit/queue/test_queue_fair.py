"""activeQ partitioned by fairness group (`queue.fair`) against an independent reference: a
plain list scanned in full at every pop, on seeded random adds, updates, deletes and pops
with shares that change between pops."""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass

import pytest

from kubesched.model import Pod
from kubesched.queue import QueuedPodInfo, SchedulingQueue
from kubesched.queue.fair import FairOrder, PartitionedHeap
from kubesched.queue.heap import KeyedHeap
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, priority_sort

GROUP_LABEL = "team"


def group_of(pod: Pod) -> Hashable | None:
    return pod.labels.get(GROUP_LABEL)


@dataclass
class Waiting:
    """The reference's record of one waiting pod."""

    name: str
    group: str | None
    priority: int
    timestamp: float
    arrival: int

    def rank(self) -> tuple[int, float, int]:
        """QueueSort (higher priority, earlier timestamp), then FIFO."""
        return (-self.priority, self.timestamp, self.arrival)


class Reference:
    """The fair pop rule, written from its definition: no heaps, a scan of every pod."""

    def __init__(self, shares: dict[str, float]) -> None:
        self.shares = shares
        self.waiting: dict[str, Waiting] = {}
        self.arrivals = 0

    def add(self, name: str, group: str | None, priority: int, timestamp: float) -> None:
        known = self.waiting.get(name)
        if known is not None and known.group == group:
            known.priority, known.timestamp = priority, timestamp
            return
        self.waiting[name] = Waiting(name, group, priority, timestamp, self.arrivals)
        self.arrivals += 1

    def pop(self) -> str:
        best = min(self.waiting.values(), key=Waiting.rank)
        if best.group is not None:
            heads = [
                min((w for w in self.waiting.values() if w.group == group), key=Waiting.rank)
                for group in {w.group for w in self.waiting.values() if w.group is not None}
            ]
            equal = [head for head in heads if head.priority == best.priority]
            best = min(equal, key=lambda head: (self.shares[str(head.group)], head.rank()))
        del self.waiting[best.name]
        return best.name


def _qpi(name: str, group: str | None, priority: int, timestamp: float) -> QueuedPodInfo:
    pod = make_pod().name(name).uid(name).priority(priority)
    if group is not None:
        pod = pod.label(GROUP_LABEL, group)
    return QueuedPodInfo(pod=pod.model(), timestamp=timestamp)


@pytest.mark.parametrize("seed", range(200))
def test_partitioned_pop_matches_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    groups = [f"g{i}" for i in range(rng.randint(1, 5))]
    shares = {group: rng.choice([0.0, 0.25, 0.5, 1.0, 2.0]) for group in groups}
    reference = Reference(shares)
    heap = PartitionedHeap(less=priority_sort, order=FairOrder(group_of, lambda g: shares[str(g)]))
    popped: list[str] = []
    expected: list[str] = []
    for step in range(rng.randint(20, 120)):
        action = rng.random()
        if action < 0.55 or not reference.waiting:
            name = rng.choice([f"p{step}", *list(reference.waiting)[:3]])
            group = rng.choice([None, *groups])
            priority, timestamp = rng.choice([0, 0, 10]), float(rng.randint(0, 5))
            reference.add(name, group, priority, timestamp)
            heap.add_or_update(_qpi(name, group, priority, timestamp))
        elif action < 0.65:
            name = rng.choice(list(reference.waiting))
            del reference.waiting[name]
            assert heap.delete(name) is not None
        else:
            expected.append(reference.pop())
            popped.append(heap.pop().pod.name)
            changed = rng.choice(groups)
            shares[changed] = rng.choice([0.0, 0.25, 0.5, 1.0, 2.0, float("inf")])
        assert len(heap) == len(reference.waiting)
    while reference.waiting:
        expected.append(reference.pop())
        popped.append(heap.pop().pod.name)
    assert popped == expected
    assert len(heap) == 0


@pytest.mark.parametrize("seed", range(50))
def test_without_groups_the_order_is_the_single_heaps(seed: int) -> None:
    rng = random.Random(seed)
    single: KeyedHeap[QueuedPodInfo] = KeyedHeap(key=lambda qpi: qpi.uid, less=priority_sort)
    never: FairOrder = FairOrder(lambda _pod: None, lambda _group: 0.0)
    heap = PartitionedHeap(less=priority_sort, order=never)
    for i in range(rng.randint(1, 80)):
        qpi = _qpi(f"p{i}", None, rng.choice([0, 5]), float(rng.randint(0, 3)))
        single.add_or_update(qpi)
        heap.add_or_update(qpi)
    assert [heap.pop().uid for _ in range(len(heap))] == [
        single.pop().uid for _ in range(len(single))
    ]


async def test_a_late_team_is_served_as_soon_as_its_share_is_lower() -> None:
    """Team a queues 8 pods before team b's 4 (equal priority): with shares used/min (min 4
    pods each), pops alternate until both hold 4, then a's rest."""
    used = {"a": 0, "b": 0}
    clock = FakeClock()
    queue = SchedulingQueue(
        less=priority_sort, clock=clock, fair=FairOrder(group_of, lambda g: used[str(g)] / 4)
    )
    for team, count in (("a", 8), ("b", 4)):
        for i in range(count):
            queue.add(make_pod().name(f"{team}{i}").label(GROUP_LABEL, team).model())
            clock.step(1)
    order = []
    for _ in range(12):
        qpi = await queue.pop()
        assert qpi is not None
        order.append(qpi.pod.name)
        used[qpi.pod.labels[GROUP_LABEL]] += 1
        queue.done(qpi.uid)
    assert order == ["a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3", "a4", "a5", "a6", "a7"]


async def test_higher_priority_and_ungrouped_pods_keep_their_place() -> None:
    clock = FakeClock()
    shares = {"a": 5.0, "b": 0.0}
    queue = SchedulingQueue(
        less=priority_sort, clock=clock, fair=FairOrder(group_of, lambda g: shares[str(g)])
    )
    for name, team, priority in [
        ("a-high", "a", 10),
        ("a-low", "a", 0),
        ("free", None, 0),
        ("b-low", "b", 0),
    ]:
        pod = make_pod().name(name).priority(priority)
        queue.add((pod.label(GROUP_LABEL, team) if team else pod).model())
        clock.step(1)
    names = []
    for _ in range(4):
        qpi = await queue.pop()
        assert qpi is not None
        names.append(qpi.pod.name)
    # a-high: no other head of priority 10; then b-low (lower share) passes a-low; "free"
    # (no group) is popped where the single heap pops it, after a-low.
    assert names == ["a-high", "b-low", "a-low", "free"]


async def test_group_members_are_taken_out_of_their_partition() -> None:
    clock = FakeClock()
    queue = SchedulingQueue(
        less=priority_sort, clock=clock, fair=FairOrder(group_of, lambda _g: 0.0)
    )
    for name in ("m1", "m2", "m3"):
        queue.add(make_pod().name(name).label(GROUP_LABEL, "a").model())
    first = await queue.pop()
    assert first is not None
    taken = queue.take_members(lambda pod: pod.labels.get(GROUP_LABEL) == "a")
    assert sorted(qpi.pod.name for qpi in taken) == ["m2", "m3"]
    assert queue.pending_counts()["active"] == 0


@pytest.mark.parametrize(
    ("shares", "apart", "first"),
    [
        ({"a": 5.0, "b": 0.0}, 0.0, "b0"),
        ({"a": 0.0, "b": 5.0}, 0.0, "a0"),
        ({"a": 5.0, "b": 0.0}, 1.0, "a0"),  # a0's backoff ends a window earlier: no peers
    ],
)
async def test_the_pop_from_backoff_is_fair_within_a_window(
    shares: dict[str, float], apart: float, first: str
) -> None:
    clock = FakeClock()
    queue = SchedulingQueue(
        less=priority_sort, clock=clock, fair=FairOrder(group_of, lambda g: shares[str(g)])
    )
    for team in ("a", "b"):
        queue.add(make_pod().name(f"{team}0").label(GROUP_LABEL, team).model())
    popped = {}
    for _ in range(2):
        qpi = await queue.pop()
        assert qpi is not None
        popped[qpi.pod.name] = qpi
    for name in ("a0", "b0"):
        clock.step(apart if name == "b0" else 0.0)
        popped[name].unschedulable_plugins = {"NodeResourcesFit"}
        queue.add_unschedulable_if_not_present(popped[name], pod_scheduling_cycle=2)
    queue.move_all_to_active_or_backoff(object())  # an event: to backoffQ, still backing off
    assert queue.pending_counts() == {"active": 0, "backoff": 2, "unschedulable": 0, "gated": 0}
    qpi = await queue.pop()
    assert qpi is not None
    assert qpi.pod.name == first


def test_pods_queued_before_their_groups_were_known_are_served_fairly_once_known() -> None:
    """The pods entered activeQ before the quotas' informer synced (no group then): once
    the groups are known, each head is moved to its group's heap at the next pop, keeping
    its place, so a's 8 and b's 4 alternate while a pod truly outside every group keeps
    the single heap's order."""
    known: dict[str, str] = {}
    used = {"a": 0, "b": 0}

    def group(pod: Pod) -> Hashable | None:
        return known.get(pod.name[0])

    heap = PartitionedHeap(less=priority_sort, order=FairOrder(group, lambda g: used[str(g)] / 4))
    heap.add_or_update(_qpi("x0", None, 0, 0.0))
    for i in range(8):
        heap.add_or_update(_qpi(f"a{i}", None, 0, 1.0 + i))
    for i in range(4):
        heap.add_or_update(_qpi(f"b{i}", None, 0, 20.0 + i))
    known.update(a="a", b="b")
    popped = []
    while len(heap):
        qpi = heap.pop()
        popped.append(qpi.pod.name)
        if qpi.pod.name[0] in used:
            used[qpi.pod.name[0]] += 1
    assert popped == ["x0", "a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3", "a4", "a5", "a6", "a7"]


def test_a_pod_whose_group_is_gone_returns_to_the_single_heaps_order() -> None:
    known = {"a": "a"}

    def group(pod: Pod) -> Hashable | None:
        return known.get(pod.name[0])

    heap = PartitionedHeap(less=priority_sort, order=FairOrder(group, lambda _g: 0.0))
    heap.add_or_update(_qpi("a0", None, 0, 2.0))
    heap.add_or_update(_qpi("a1", None, 0, 3.0))
    heap.add_or_update(_qpi("x0", None, 0, 1.0))
    del known["a"]
    assert [heap.pop().pod.name for _ in range(3)] == ["x0", "a0", "a1"]
