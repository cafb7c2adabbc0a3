"""The queue's index for add events (`scheduler.add_narrowing`, `queue.added_index`) moves
exactly the pods that offering every add to every unschedulable pod moves: two shared
queues over the default profile's real frameworks, one indexed and one not, driven by the
same seeded events, hold the same pods in the same sub-queues in the same order and report
the same incoming moves after every event."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import pytest

from kubesched.config import load_config
from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.model import Pod
from kubesched.queue import SchedulingQueue
from kubesched.replay.engine import build_engine
from kubesched.scheduler.eventhandlers import ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, NODE_ADD
from kubesched.scheduler.shared_queue import shared_queue
from kubesched.testing.builders import make_node, make_pod

NAMESPACES = ("a", "b", "c")
KEYS = ("app", "tier", "color")
VALUES = ("x", "y", "z")
TARGET_POD_LABEL = ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_LABEL)
REJECTORS = ("InterPodAffinity", "PodTopologySpread", "NodeResourcesFit", "NodeAffinity")


def _labels(rng: random.Random) -> dict[str, str]:
    return {key: rng.choice(VALUES) for key in KEYS if rng.random() < 0.6}


def _selector(rng: random.Random) -> dict[str, Any] | None:
    roll = rng.random()
    if roll < 0.05:
        return None
    if roll < 0.1:
        return {}
    if roll < 0.15:  # invalid: In without values
        return {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
    selector: dict[str, Any] = {}
    if rng.random() < 0.6:
        selector["matchLabels"] = _labels(rng) or {"app": "x"}
    if rng.random() < 0.5:
        operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
        values = rng.sample(VALUES, rng.randint(1, 2)) if operator in ("In", "NotIn") else []
        selector["matchExpressions"] = [
            {"key": rng.choice(KEYS), "operator": operator, "values": values}
        ]
    return selector


def _term(rng: random.Random) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": "kubernetes.io/hostname"}
    selector = _selector(rng)
    if selector is not None:
        term["labelSelector"] = selector
    if rng.random() < 0.4:
        term["namespaces"] = rng.sample(NAMESPACES, rng.randint(1, 2))
    roll = rng.random()
    if roll < 0.15:
        term["namespaceSelector"] = {}
    elif roll < 0.3:
        term["namespaceSelector"] = {"matchLabels": {"team": "t"}}
    elif roll < 0.35:
        term["namespaceSelector"] = {
            "matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]
        }
    if rng.random() < 0.1:
        term["matchLabelKeys"] = [rng.choice(KEYS)]
    return term


def _pending(rng: random.Random, i: int) -> Pod:
    builder = make_pod().name(f"p{i}").namespace(rng.choice(NAMESPACES)).scheduler("kubesched")
    for key, value in _labels(rng).items():
        builder = builder.label(key, value)
    affinity: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        if rng.random() < 0.6:
            terms = [_term(rng) for _ in range(rng.randint(1, 2))]
            affinity[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": terms}
    if affinity:
        builder = builder.affinity(affinity)
    for _ in range(rng.choice((0, 0, 1, 2))):
        fields: dict[str, Any] = {}
        selector = _selector(rng)
        if selector is not None:
            fields["labelSelector"] = selector
        when = rng.choice(("DoNotSchedule", "DoNotSchedule", "ScheduleAnyway"))
        builder = builder.spread_constraint(1, "kubernetes.io/hostname", when, **fields)
    return builder.model()


def _assigned(rng: random.Random, i: int) -> Pod:
    builder = make_pod().name(f"q{i}").namespace(rng.choice(NAMESPACES))
    for key, value in _labels(rng).items():
        builder = builder.label(key, value)
    if rng.random() < 0.9:
        builder = builder.node("n1")
    return builder.model()


def _state(queue: SchedulingQueue) -> dict[str, list[str]]:
    return {pool: [q.pod.name for q in pods] for pool, pods in queue.pending_pods().items()}


async def _reject(queue: SchedulingQueue, rng: random.Random) -> None:
    """Pop what activeQ holds and reject it (the same draws for both queues)."""
    while queue.pending_counts()["active"]:
        qpi = await queue.pop()
        assert qpi is not None
        qpi.unschedulable_plugins = set(rng.sample(REJECTORS, rng.randint(0, 2)))
        qpi.pending_plugins = {p for p in qpi.unschedulable_plugins if rng.random() < 0.2}
        queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)


async def _drive(seed: int, *, index_adds: bool) -> list[Any]:
    config = load_config([]).config
    engine = build_engine(config)
    moves: list[tuple[str, str]] = []
    now = [0.0]
    queue = shared_queue(
        config,
        engine.frameworks,
        engine.queue.nominator,
        clock=lambda: now[0],
        on_incoming=lambda q, e: moves.append((q, e)),
        index_adds=index_adds,
    )
    rng = random.Random(seed)
    pods = [_pending(rng, i) for i in range(40)]
    for pod in pods:
        queue.add(pod)
    await _reject(queue, rng)
    trace: list[Any] = [_state(queue)]
    for step in range(120):
        now[0] += rng.random()
        roll = rng.random()
        if roll < 0.7:
            queue.move_all_to_active_or_backoff(ASSIGNED_POD_ADD, None, _assigned(rng, step))
        elif roll < 0.8:
            queue.move_all_to_active_or_backoff(ASSIGNED_POD_DELETE, _assigned(rng, step), None)
        elif roll < 0.85:
            queue.move_all_to_active_or_backoff(NODE_ADD, None, make_node().name("n2").model())
        elif roll < 0.93:  # a waiting pod relabelled (its matchLabelKeys may change)
            i = rng.randrange(len(pods))
            old = pods[i]
            pods[i] = dataclasses.replace(old, labels=_labels(rng), resource_version=str(step))
            queue.update(old, pods[i], [TARGET_POD_LABEL])
        else:
            queue.flush_backoff_completed()
            await _reject(queue, rng)
        trace.append((step, _state(queue), list(moves)))
    return trace


@pytest.mark.parametrize("seed", range(12))
def test_an_indexed_queue_moves_what_a_plain_one_moves(seed: int) -> None:
    indexed = asyncio.run(_drive(seed, index_adds=True))
    plain = asyncio.run(_drive(seed, index_adds=False))
    assert indexed == plain
    moved = [m for step in plain[1:] for m in step[2] if m[1] == ASSIGNED_POD_ADD.label]
    assert moved, "the seed moved no pod on an add: the comparison says nothing"
