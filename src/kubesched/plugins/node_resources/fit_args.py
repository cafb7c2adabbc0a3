"""`NodeResourcesFitArgs`, defaulted and validated like upstream's v1 API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import (
    DEFAULT_RESOURCES,
    PluginArgs,
    check_fields,
    mapping,
    resource_specs,
    resource_specs_to_v1,
    sequence,
    string_list,
)
from kubesched.plugins.helper.fielderrors import (
    forbidden,
    invalid,
    label_name_errors,
    not_supported,
    raise_all,
    required,
)
from kubesched.plugins.helper.shape import Shape, decode_shape, shape_to_v1
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
        """Upstream defaulting and `ValidateNodeResourcesFitArgs` (every error, aggregated as
        upstream's)."""
        check_fields(
            args,
            kind=_KIND,
            allowed=("ignoredResources", "ignoredResourceGroups", "scoringStrategy"),
        )
        ignored = string_list(args.get("ignoredResources"), path=f"{_KIND}.ignoredResources")
        groups = string_list(
            args.get("ignoredResourceGroups"), path=f"{_KIND}.ignoredResourceGroups"
        )
        path = f"{_KIND}.scoringStrategy"
        given = args.get("scoringStrategy")
        strategy = mapping(given, path=path)
        check_fields(strategy, kind=path, allowed=("type", "resources", "requestedToCapacityRatio"))
        # v1 defaulting: a missing scoringStrategy is LeastAllocated; a given one keeps its type.
        kind = strategy.get("type", "") if given is not None else LEAST_ALLOCATED
        resources = resource_specs(strategy.get("resources"), path=f"{path}.resources")
        errors = _name_errors(ignored, groups)
        if kind not in STRATEGIES:
            errors.append(not_supported(f"{path}.type", kind, sorted(STRATEGIES)))
        for i, (name, weight) in enumerate(resources):
            if not 0 < weight <= 100:
                detail = f"resource weight of {name} not in valid range (0, 100]"
                errors.append(invalid(f"{path}.resources[{i}].weight", weight, detail))
        ratio = strategy.get("requestedToCapacityRatio")
        shape: Shape = ()
        if kind == REQUESTED_TO_CAPACITY_RATIO:
            if ratio is None:
                detail = "must be specified when type is RequestedToCapacityRatio"
                errors.append(required(f"{path}.requestedToCapacityRatio", detail))
            else:
                shape, shape_errors = _decode_shape(ratio)
                errors += shape_errors
        elif ratio is not None:
            detail = "must be nil when type is not RequestedToCapacityRatio"
            errors.append(forbidden(f"{path}.requestedToCapacityRatio", detail))
        raise_all(errors)
        return cls(
            ignored_resources=tuple(ignored),
            ignored_resource_groups=tuple(groups),
            strategy=str(kind),
            resources=resources,
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


def _name_errors(ignored: Sequence[str], groups: Sequence[str]) -> list[str]:
    errors = []
    for i, name in enumerate(ignored):
        errors += label_name_errors(f"{_KIND}.ignoredResources[{i}]", name)
    for i, group in enumerate(groups):
        path = f"{_KIND}.ignoredResourceGroups[{i}]"
        if "/" in group:
            errors.append(invalid(path, group, "resource group name can't contain '/'"))
        errors += label_name_errors(path, group)
    return errors


def _decode_shape(value: Any) -> tuple[Shape, list[str]]:
    path = f"{_KIND}.scoringStrategy.requestedToCapacityRatio"
    ratio = mapping(value, path=path)
    check_fields(ratio, kind=path, allowed=("shape",))
    return decode_shape(sequence(ratio.get("shape"), path=f"{path}.shape"), path=f"{path}.shape")
