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


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs(PluginArgs):
    """Upstream `NodeResourcesBalancedAllocationArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "NodeResourcesBalancedAllocationArgs"

    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
    """(name, weight 1..100) of the resources whose balance is scored."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting (a missing or zero weight is 1) and validation."""
        check_fields(args, kind=cls.KIND, allowed=("resources",))
        return cls(resources=resource_specs(args.get("resources"), path=f"{cls.KIND}.resources"))

    def to_v1(self) -> dict[str, Any]:
        return {"resources": resource_specs_to_v1(self.resources)}
