"""LeastNUMANodes' pieces as scheduler-plugins tests them (`TestNormalizeScore`,
`TestMinDistance`, `TestNUMANodesRequired`)."""

from __future__ import annotations

import pytest

from kubesched.plugins.node_resource_topology.least_numa import (
    average_distance,
    normalize,
    numa_nodes_required,
)
from kubesched.plugins.node_resource_topology.topology import NUMANode

GIB = 1024**3 * 1000
"""One Gi as a milli-value."""
CPU = 1000


@pytest.mark.parametrize(
    ("count", "closest", "expected"),
    [(1, False, 88), (2, False, 76), (8, False, 4), (1, True, 94), (2, True, 82), (8, True, 10)],
)
def test_normalize(count: int, closest: bool, expected: int) -> None:
    assert normalize(count, closest, 8) == expected


def _four(with_costs: bool = True, gpus: tuple[int, ...] = (1, 1, 0, 0)) -> list[NUMANode]:
    def costs(i: int) -> dict[int, int]:
        return {j: 10 if i == j else 12 if i // 2 == j // 2 else 20 for j in range(4)}

    return [
        NUMANode(
            i,
            {"gpu": gpus[i] * 1000, "cpu": 4 * CPU, "memory": 5 * GIB},
            costs(i) if with_costs else {},
        )
        for i in range(4)
    ]


@pytest.mark.parametrize(
    ("combinations", "with_costs", "expected"),
    [
        ([(0,), (1,), (2,), (3,)], True, 10),
        ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], True, 11),
        ([(0, 1, 2), (1, 2, 3), (0, 2, 3)], True, 134 / 9),
        ([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], False, 255),
    ],
)
def test_min_distance(
    combinations: list[tuple[int, ...]], with_costs: bool, expected: float
) -> None:
    zones = _four(with_costs)

    assert min(average_distance(zones, c) for c in combinations) == pytest.approx(expected)


def _two(cpu: int = 8) -> list[NUMANode]:
    return [NUMANode(i, {"cpu": cpu * CPU, "memory": 10 * GIB}) for i in (0, 1)]


@pytest.mark.parametrize(
    ("zones", "requests", "expected"),
    [
        pytest.param(_two()[:1], {"cpu": 2 * CPU, "memory": 2 * GIB}, ([0], True), id="one"),
        pytest.param(_two(), {"cpu": 12 * CPU, "memory": 2 * GIB}, ([0, 1], True), id="two"),
        pytest.param(_two(), {"cpu": 22 * CPU, "memory": 2 * GIB}, (None, False), id="none"),
        pytest.param(
            _four(),
            {"cpu": 2 * CPU, "memory": 2 * GIB, "gpu": 2000},
            ([0, 1], True),
            id="four-closest",
        ),
        pytest.param(
            _four(gpus=(1, 0, 1, 0)),
            {"cpu": 2 * CPU, "memory": 2 * GIB, "gpu": 2000},
            ([0, 2], False),
            id="four-far",
        ),
    ],
)
def test_numa_nodes_required(
    zones: list[NUMANode], requests: dict[str, int], expected: tuple[list[int] | None, bool]
) -> None:
    assert numa_nodes_required("Guaranteed", zones, requests) == expected
