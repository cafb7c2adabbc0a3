"""NodeResourceTopologyMatch's Score with each strategy, on scheduler-plugins' own score
tests' nodes and pods (`TestNodeResourceScorePlugin`, `TestNodeResourceScorePluginLeastNUMA`,
`TestNodeResourcePartialDataScorePlugin`), and the same scores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from kubesched.framework import CycleState
from kubesched.model import Pod
from tests.unit.plugins.node_resource_topology.nrt import (
    node_for,
    nrt,
    plugin_over,
    pod,
    zone,
    zone_named,
)

SINGLE_CONTAINER = "SingleNUMANodeContainerLevel"
BEST_EFFORT_CONTAINER = "BestEffortContainerLevel"
BEST_EFFORT_POD = "BestEffortPodLevel"
TWENTY_MI = str(20 * 1024 * 1024)


def default_numa_nodes(policy: str) -> list[dict[str, Any]]:
    """Node1: 2 x (4 cpu, 500Mi); Node2: 2 x (2 cpu, 50Mi); Node3: 2 x (6 cpu, 60Mi)."""
    sizes = {"Node1": ("4", "500Mi"), "Node2": ("2", "50Mi"), "Node3": ("6", "60Mi")}
    return [
        nrt(name, [zone(i, cpu=cpu, memory=memory) for i in (0, 1)], policy=policy)
        for name, (cpu, memory) in sizes.items()
    ]


def four_numa_nodes() -> list[dict[str, Any]]:
    """Two nodes of four zones (2 cpu, 50Mi each) with distances 10 to self, 12 within a
    pair (0-1, 2-3), 20 across; one gpu on zones 0 and 1 of Node1, 0 and 2 of Node2."""

    def costs(i: int) -> dict[int, int]:
        return {j: 10 if i == j else 12 if i // 2 == j // 2 else 20 for j in range(4)}

    def node(name: str, gpus: set[int]) -> dict[str, Any]:
        zones = [
            zone_named(
                i,
                {"cpu": "2", "memory": "50Mi", "gpu": "1" if i in gpus else "0"},
                costs=costs(i),
            )
            for i in range(4)
        ]
        return nrt(name, zones, policy=BEST_EFFORT_CONTAINER)

    return [node("Node1", {0, 1}), node("Node2", {0, 2})]


def scores(
    objects: list[dict[str, Any]],
    candidate: Pod,
    args: Mapping[str, Any],
    *,
    without_nrt: tuple[str, ...] = (),
) -> dict[str, int]:
    plugin = plugin_over([o for o in objects if o["metadata"]["name"] not in without_nrt], args)
    return {
        o["metadata"]["name"]: plugin.score(CycleState(), candidate, node_for(o)) for o in objects
    }


def _strategy(name: str) -> dict[str, Any]:
    return {"scoringStrategy": {"type": name}}


POD1 = pod({"cpu": "2", "memory": TWENTY_MI})


@pytest.mark.parametrize(
    ("strategy", "best", "score"),
    [
        ("MostAllocated", "Node2", 70),  # (2/2 + 20Mi/50Mi) / 2
        ("BalancedAllocation", "Node3", 100),  # 2/6 and 20Mi/60Mi: no variance
        ("LeastAllocated", "Node1", 73),  # ((4-2)/4 + (500Mi-20Mi)/500Mi) / 2
    ],
)
def test_allocation_strategies(strategy: str, best: str, score: int) -> None:
    got = scores(default_numa_nodes(SINGLE_CONTAINER), POD1, _strategy(strategy))

    assert max(got, key=lambda name: got[name]) == best
    assert got[best] == score


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("MostAllocated", {"Node1": 27, "Node2": 0, "Node3": 0}),
        ("LeastAllocated", {"Node1": 73, "Node2": 0, "Node3": 0}),
        ("BalancedAllocation", {"Node1": 89, "Node2": 0, "Node3": 0}),
    ],
)
def test_nodes_without_nrt_data_score_zero(strategy: str, expected: dict[str, int]) -> None:
    got = scores(
        default_numa_nodes(SINGLE_CONTAINER),
        POD1,
        _strategy(strategy),
        without_nrt=("Node2", "Node3"),
    )

    assert got == expected


LEAST_NUMA_CASES = [
    ("container one case 1", BEST_EFFORT_CONTAINER, [("2", "50Mi")], (94, 94, 94)),
    ("container one case 2", BEST_EFFORT_CONTAINER, [("4", "50Mi")], (94, 82, 94)),
    ("container one case 3", BEST_EFFORT_CONTAINER, [("6", "50Mi")], (82, 0, 94)),
    ("container two case 1", BEST_EFFORT_CONTAINER, [("2", "50Mi")] * 2, (94, 94, 94)),
    ("container two case 2", BEST_EFFORT_CONTAINER, [("1", "50Mi"), ("3", "50Mi")], (94, 82, 94)),
    ("container two case 3", BEST_EFFORT_CONTAINER, [("5", "50Mi"), ("3", "50Mi")], (82, 0, 94)),
    ("pod two case 1", BEST_EFFORT_POD, [("2", "50Mi")] * 2, (94, 82, 82)),
    ("pod two case 2", BEST_EFFORT_POD, [("1", "50Mi"), ("3", "50Mi")], (94, 82, 82)),
    ("pod two case 3", BEST_EFFORT_POD, [("5", "50Mi"), ("3", "50Mi")], (82, 0, 82)),
]


@pytest.mark.parametrize(
    ("policy", "containers", "expected"),
    [c[1:] for c in LEAST_NUMA_CASES],
    ids=[c[0] for c in LEAST_NUMA_CASES],
)
def test_least_numa_nodes(
    policy: str, containers: list[tuple[str, str]], expected: tuple[int, int, int]
) -> None:
    candidate = pod(*({"cpu": cpu, "memory": memory} for cpu, memory in containers))

    got = scores(default_numa_nodes(policy), candidate, _strategy("LeastNUMANodes"))

    assert got == dict(zip(("Node1", "Node2", "Node3"), expected, strict=True))


@pytest.mark.parametrize(
    ("containers", "expected"),
    [
        ([{"cpu": "2", "memory": "50Mi", "gpu": "1"}], {"Node1": 94, "Node2": 94}),
        ([{"cpu": "2", "memory": "50Mi", "gpu": "2"}], {"Node1": 82, "Node2": 76}),
        (
            [{"cpu": "2", "memory": "50Mi", "gpu": "2"}, {"cpu": "2", "memory": "50Mi"}],
            {"Node1": 82, "Node2": 76},
        ),
    ],
)
def test_least_numa_nodes_prefers_the_closest_zones(
    containers: list[dict[str, str]], expected: dict[str, int]
) -> None:
    got = scores(four_numa_nodes(), pod(*containers), _strategy("LeastNUMANodes"))

    assert got == expected


def test_pods_that_are_not_guaranteed_score_the_maximum() -> None:
    """A BestEffort pod asking only a resource no zone lists, and a Burstable one."""
    best_effort = pod({"non-numa-resource": "1"}, {"non-numa-resource": "2"})
    burstable = pod({"cpu": "2", "memory": "50Mi"}, requests_only=True)
    objects = default_numa_nodes(BEST_EFFORT_CONTAINER)

    for candidate in (best_effort, burstable):
        assert set(scores(objects, candidate, _strategy("LeastNUMANodes")).values()) == {100}


def test_allocation_strategies_score_zero_off_single_numa_node() -> None:
    got = scores(default_numa_nodes(BEST_EFFORT_CONTAINER), POD1, _strategy("LeastAllocated"))

    assert got == {"Node1": 0, "Node2": 0, "Node3": 0}


def test_weights_and_container_scope_mean() -> None:
    """Container scope: the truncated mean of each container's lowest non-zero zone score;
    cpu weighs 3 here: ((50 * 3) + 96) / 4 = 61 and ((75 * 3) + 98) / 4 = 80 -> 70."""
    candidate = pod({"cpu": "2", "memory": TWENTY_MI}, {"cpu": "1", "memory": "10Mi"})
    args = {
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 3}, {"name": "memory"}],
        }
    }

    got = scores(default_numa_nodes(SINGLE_CONTAINER)[:1], candidate, args)

    assert got == {"Node1": 70}
