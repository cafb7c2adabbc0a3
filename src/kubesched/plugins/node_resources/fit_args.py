"""`NodeResourcesFitArgs`, defaulted and validated like upstream's v1 API."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.plugins.helper.args import (
    ArgsError,
    check_fields,
    integer,
    mapping,
    resource_specs,
    sequence,
    string_list,
)
from kubesched.plugins.node_resources import resource_scoring as rs

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
_KIND = "NodeResourcesFitArgs"


@dataclass(frozen=True, slots=True)
class FitArgs:
    ignored_resources: frozenset[str] = frozenset()
    ignored_resource_groups: frozenset[str] = frozenset()
    strategy: str = LEAST_ALLOCATED
    resources: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
    shape: tuple[tuple[int, int], ...] = ()

    def ignores(self, resource: str) -> bool:
        """Whether the filter skips this extended resource (by name or by group prefix)."""
        if not is_extended_resource(resource):
            return False
        return (
            resource in self.ignored_resources
            or resource.split("/", 1)[0] in self.ignored_resource_groups
        )

    def scorer(self) -> rs.Scorer:
        weights = [weight for _, weight in self.resources]
        if self.strategy == MOST_ALLOCATED:
            return rs.most_allocated(weights)
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            return rs.requested_to_capacity_ratio(weights, self.shape)
        return rs.least_allocated(weights)


def is_extended_resource(name: str) -> bool:
    """Upstream `IsExtendedResourceName`: a `domain/name` outside `kubernetes.io/`."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def parse_fit_args(args: Mapping[str, Any]) -> FitArgs:
    check_fields(
        args, kind=_KIND, allowed=("ignoredResources", "ignoredResourceGroups", "scoringStrategy")
    )
    groups = string_list(args.get("ignoredResourceGroups"), path=f"{_KIND}.ignoredResourceGroups")
    for group in groups:
        if "/" in group:
            raise ArgsError(
                f"{_KIND}.ignoredResourceGroups: {group!r}: resource group name can't contain '/'"
            )
    strategy = mapping(args.get("scoringStrategy"), path=f"{_KIND}.scoringStrategy")
    check_fields(
        strategy,
        kind=f"{_KIND}.scoringStrategy",
        allowed=("type", "resources", "requestedToCapacityRatio"),
    )
    kind = strategy.get("type") or LEAST_ALLOCATED
    if kind not in STRATEGIES:
        supported = ", ".join(f'"{name}"' for name in STRATEGIES)
        raise ArgsError(
            f'{_KIND}.scoringStrategy.type: Unsupported value: "{kind}": '
            f"supported values: {supported}"
        )
    shape: tuple[tuple[int, int], ...] = ()
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        shape = _parse_shape(strategy.get("requestedToCapacityRatio"))
    return FitArgs(
        ignored_resources=frozenset(
            string_list(args.get("ignoredResources"), path=f"{_KIND}.ignoredResources")
        ),
        ignored_resource_groups=frozenset(groups),
        strategy=kind,
        resources=resource_specs(
            strategy.get("resources"), path=f"{_KIND}.scoringStrategy.resources"
        ),
        shape=shape,
    )


def _parse_shape(value: Any) -> tuple[tuple[int, int], ...]:
    path = f"{_KIND}.scoringStrategy.requestedToCapacityRatio"
    ratio = mapping(value, path=path)
    check_fields(ratio, kind=path, allowed=("shape",))
    points: list[tuple[int, int]] = []
    for i, item in enumerate(sequence(ratio.get("shape"), path=f"{path}.shape")):
        point = mapping(item, path=f"{path}.shape[{i}]")
        check_fields(point, kind=f"{path}.shape[{i}]", allowed=("utilization", "score"))
        utilization = integer(
            point.get("utilization", 0), path=f"{path}.shape[{i}].utilization", low=0, high=100
        )
        score = integer(point.get("score", 0), path=f"{path}.shape[{i}].score", low=0, high=10)
        if points and utilization <= points[-1][0]:
            raise ArgsError(
                f"{path}.shape[{i}].utilization: values must be sorted in increasing order"
            )
        points.append((utilization, score))
    if not points:
        raise ArgsError(f"{path}.shape: at least one point must be specified")
    return tuple(points)
