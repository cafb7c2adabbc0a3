"""`NodeResourcesBalancedAllocationArgs`, defaulted and validated like upstream's v1 API."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import (
    DEFAULT_RESOURCES,
    PluginArgs,
    check_fields,
    resource_specs,
    resource_specs_to_v1,
)
from kubesched.plugins.helper.fielderrors import duplicate, invalid, raise_all


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs(PluginArgs):
    """Upstream `NodeResourcesBalancedAllocationArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "NodeResourcesBalancedAllocationArgs"

    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
    """(name, weight: always 1, as upstream requires) of the resources whose balance is scored."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting (a missing or zero weight is 1) and validation."""
        check_fields(args, kind=cls.KIND, allowed=("resources",))
        path = f"{cls.KIND}.resources"
        resources = resource_specs(args.get("resources"), path=path)
        errors, seen = [], set()
        for i, (name, weight) in enumerate(
            resources
        ):  # ValidateNodeResourcesBalancedAllocationArgs
            if name in seen:
                errors.append(duplicate(f"{path}[{i}].name", name))
            seen.add(name)
            if weight != 1:
                errors.append(invalid(f"{path}[{i}].weight", weight, "must be 1"))
        raise_all(errors)
        return cls(resources=resources)

    def to_v1(self) -> dict[str, Any]:
        return {"resources": resource_specs_to_v1(self.resources)}
