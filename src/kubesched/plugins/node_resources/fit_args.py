"""`NodeResourcesFitArgs`, defaulted and validated like upstream's v1 API."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import (
    DEFAULT_RESOURCES,
    ArgsError,
    PluginArgs,
    check_fields,
    mapping,
    resource_specs,
    resource_specs_to_v1,
    sequence,
    string_list,
)
from kubesched.plugins.helper.shape import Shape, parse_shape, shape_to_v1
from kubesched.plugins.node_resources import resource_scoring as rs

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
_KIND = "NodeResourcesFitArgs"


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs(PluginArgs):
    """Upstream `NodeResourcesFitArgs`, with its v1 defaults (`scoringStrategy` flattened:
    `strategy`, `resources`, `shape`)."""

    KIND: ClassVar[str] = _KIND

    ignored_resources: tuple[str, ...] = ()
    """Extended resources the filter ignores."""
    ignored_resource_groups: tuple[str, ...] = ()
    """Prefixes (before `/`) of extended resources the filter ignores."""
    strategy: str = LEAST_ALLOCATED
    """`scoringStrategy.type`."""
    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
    """`scoringStrategy.resources`: (name, weight 1..100)."""
    shape: Shape = ()
    """`scoringStrategy.requestedToCapacityRatio.shape` (RequestedToCapacityRatio only)."""

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

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidateNodeResourcesFitArgs`."""
        check_fields(
            args,
            kind=_KIND,
            allowed=("ignoredResources", "ignoredResourceGroups", "scoringStrategy"),
        )
        groups = _groups(args.get("ignoredResourceGroups"))
        strategy = mapping(args.get("scoringStrategy"), path=f"{_KIND}.scoringStrategy")
        check_fields(
            strategy,
            kind=f"{_KIND}.scoringStrategy",
            allowed=("type", "resources", "requestedToCapacityRatio"),
        )
        kind = _strategy_type(strategy.get("type") or LEAST_ALLOCATED)
        shape: Shape = ()
        if kind == REQUESTED_TO_CAPACITY_RATIO:
            shape = _parse_shape(strategy.get("requestedToCapacityRatio"))
        return cls(
            ignored_resources=tuple(
                string_list(args.get("ignoredResources"), path=f"{_KIND}.ignoredResources")
            ),
            ignored_resource_groups=groups,
            strategy=kind,
            resources=resource_specs(
                strategy.get("resources"), path=f"{_KIND}.scoringStrategy.resources"
            ),
            shape=shape,
        )

    def to_v1(self) -> dict[str, Any]:
        strategy: dict[str, Any] = {}
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            strategy["requestedToCapacityRatio"] = {"shape": shape_to_v1(self.shape)}
        strategy["resources"] = resource_specs_to_v1(self.resources)
        strategy["type"] = self.strategy
        document: dict[str, Any] = {}
        if self.ignored_resource_groups:
            document["ignoredResourceGroups"] = list(self.ignored_resource_groups)
        if self.ignored_resources:
            document["ignoredResources"] = list(self.ignored_resources)
        document["scoringStrategy"] = strategy
        return document


def is_extended_resource(name: str) -> bool:
    """Upstream `IsExtendedResourceName`: a `domain/name` outside `kubernetes.io/`."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def _groups(value: Any) -> tuple[str, ...]:
    groups = string_list(value, path=f"{_KIND}.ignoredResourceGroups")
    for group in groups:
        if "/" in group:
            raise ArgsError(
                f"{_KIND}.ignoredResourceGroups: {group!r}: resource group name can't contain '/'"
            )
    return tuple(groups)


def _strategy_type(kind: Any) -> str:
    if kind not in STRATEGIES:
        supported = ", ".join(f'"{name}"' for name in STRATEGIES)
        raise ArgsError(
            f'{_KIND}.scoringStrategy.type: Unsupported value: "{kind}": '
            f"supported values: {supported}"
        )
    return str(kind)


def _parse_shape(value: Any) -> Shape:
    path = f"{_KIND}.scoringStrategy.requestedToCapacityRatio"
    ratio = mapping(value, path=path)
    check_fields(ratio, kind=path, allowed=("shape",))
    return parse_shape(sequence(ratio.get("shape"), path=f"{path}.shape"), path=f"{path}.shape")
