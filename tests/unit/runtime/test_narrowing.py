"""Narrowing (`runtime.narrowing`): a pod asking extended resources skips, as known rejected,
the nodes that do not offer them, and the filter loop still takes the very nodes, records the
very statuses (read when the diagnosis asks) and moves the start index as the plain loop does
(seeded random clusters whose nodes offer random extended resources, nodes relabelled,
resized, tainted, added and deleted and pods assumed and forgotten between cycles)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from kubesched.apis.config import Profile
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.framework import CycleState, NodeInfo
from kubesched.framework.diagnosis import fit_error_message
from kubesched.framework.nodeinfo import NodeJournal
from kubesched.model import Node, Pod
from kubesched.plugins import in_tree_registry
from kubesched.runtime import Framework, build_framework
from kubesched.runtime.narrowing import Narrowed, narrowers
from kubesched.runtime.offers import OfferIndex
from kubesched.runtime.schedule import find_nodes_that_fit, prioritize_nodes
from kubesched.testing import make_node, make_pod

NODES = 240
RESOURCES = [f"example.com/r{i}" for i in range(6)]
RARE = "example.com/rare"


def _node(rng: random.Random, name: str) -> Node:
    builder = make_node().name(name).capacity(cpu=rng.choice(("1", "2", "4")), pods="8")
    offered = rng.sample(RESOURCES, rng.randint(0, 3))
    builder.capacity_named({resource: str(rng.randint(0, 2)) for resource in offered})
    if rng.random() < 0.02:
        builder.capacity_named({RARE: "1"})
    builder.label("disk", rng.choice(("ssd", "hdd")))
    if rng.random() < 0.2:
        builder.taint("dedicated", "gpu", "NoSchedule")
    if rng.random() < 0.05:
        builder.unschedulable()
    return builder.model()


def _pod(rng: random.Random, index: int) -> Pod:
    builder = make_pod().name(f"p{index}").uid(f"uid-{index}").namespace("ns")
    builder.req(cpu=rng.choice(("500m", "1500m", "3")))
    asked = rng.sample(RESOURCES, rng.choice((0, 1, 1, 1, 2)))
    builder.req_named({resource: str(rng.randint(1, 2)) for resource in asked})
    if rng.random() < 0.25:  # offered by few nodes, soon used up: cycles fail
        builder.req_named({RARE: "1"})
    if rng.random() < 0.3:
        builder.node_selector(disk="ssd")
    if rng.random() < 0.3:
        builder.toleration("dedicated", "gpu", effect="NoSchedule")
    return builder.model()


def _framework(snapshot: Snapshot, *, narrow: bool) -> Framework:
    fw = build_framework(
        profile=Profile(scheduler_name="kubesched"),
        registry=in_tree_registry(),
        handle=ReadOnlyHandle(snapshot),
    )
    assert fw.narrowers  # NodeResourcesFit names the resources
    if not narrow:
        fw.narrowers = []
    return fw


def _fit(fw: Framework, pod: Pod, nodes: Sequence[NodeInfo], journal: NodeJournal) -> object:
    state = CycleState()
    fw.node_columns.catch_up(journal, nodes)
    feasible, diagnosis = find_nodes_that_fit(fw, state, pod, nodes, journal=journal)
    places = (feasible.source, feasible.positions)
    scores = prioritize_nodes(fw, state, pod, feasible, places=places) if feasible else None
    return (
        scores and scores.totals,
        [node.name for node in feasible],
        len(diagnosis.node_to_status),
        sorted(
            (name, status.code, status.reasons, status.plugin)
            for name, status in diagnosis.node_to_status.items()
        ),
        sorted(diagnosis.unschedulable_plugins),
        None if feasible else fit_error_message(num_all_nodes=len(nodes), diagnosis=diagnosis),
        fw.next_start_node_index,
    )


def _churn(rng: random.Random, cache: SchedulerCache, names: list[str], placed: list[Pod]) -> None:
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        if roll < 0.5 or not placed:
            placed.append(cache.assume_pod(_pod(rng, rng.randrange(10**6)), rng.choice(names)))
        elif roll < 0.75:
            cache.forget_pod(placed.pop(rng.randrange(len(placed))))
        elif roll < 0.93:
            cache.update_node(_node(rng, rng.choice(names)))
        elif roll < 0.97:
            name = f"extra-{rng.randrange(10**6)}"
            cache.add_node(_node(rng, name))
            names.append(name)
        else:
            name = names.pop(rng.randrange(len(names)))
            cache.remove_node(make_node().name(name).model())


@pytest.mark.parametrize("seed", range(4))
def test_narrowed_loop_decides_as_the_plain_loop(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    cache = SchedulerCache()
    names = [f"n{i}" for i in range(NODES)]
    for name in names:
        cache.add_node(_node(rng, name))
    snapshot = Snapshot()
    narrowed, plain = _framework(snapshot, narrow=True), _framework(snapshot, narrow=False)
    made: list[Narrowed] = []
    original = Narrowed.__init__

    def counting(self: Narrowed, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(Narrowed, "__init__", counting)
    incoming = [_pod(rng, 10**7 + i) for i in range(8)]
    absent = make_pod().name("absent").uid("uid-absent").namespace("ns")
    incoming.append(absent.req(cpu="1").req_named({"example.com/absent": "1"}).model())
    placed: list[Pod] = []
    failed = 0
    for _cycle in range(50):
        _churn(rng, cache, names, placed)
        cache.update_snapshot(snapshot)
        for pod in rng.sample(incoming, 4):
            got = _fit(narrowed, pod, snapshot.node_infos, snapshot)
            want = _fit(plain, pod, snapshot.node_infos, snapshot)
            assert got == want
            failed += got[5] is not None  # type: ignore[index]
    assert made
    assert failed > 0


def test_offer_index_follows_changed_nodes() -> None:
    rng = random.Random(3)
    cache = SchedulerCache()
    for index in range(40):
        cache.add_node(_node(rng, f"n{index}"))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    nodes = snapshot.node_infos
    offers = OfferIndex(nodes)
    for _round in range(20):
        changed = rng.sample(range(len(nodes)), 5)
        for position in changed:
            cache.update_node(_node(rng, nodes[position].name))
        cache.update_snapshot(snapshot)
        offers.refresh(changed, snapshot.node_infos)
        for resource in RESOURCES:
            want = [
                at
                for at, info in enumerate(snapshot.node_infos)
                if info.node.allocatable.scalar.get(resource, 0) > 0
            ]
            assert offers.offering([resource]) == want
        pair = RESOURCES[:2]
        assert offers.offering(pair) == sorted(
            set(offers.offering(pair[:1])) & set(offers.offering(pair[1:]))
        )


def test_only_plugins_after_plain_filters_narrow() -> None:
    class Naming:
        def __init__(self, name: str) -> None:
            self.name = name

        def required_node_resources(self, _state: CycleState, _pod: Pod) -> list[str]:
            return ["example.com/r0"]

    class Plain:
        name = "NodeName"

    class Custom:
        name = "MyFilter"

    assert [name for name, _ in narrowers([Plain(), Naming("A")])] == ["A"]
    assert [name for name, _ in narrowers([Custom(), Naming("A")])] == []
    assert [name for name, _ in narrowers([Naming("NodePorts"), Naming("B")])] == [
        "NodePorts",
        "B",
    ]
