"""VolumeBindingArgs: `bindTimeoutSeconds` and the capacity-scoring `shape`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import PluginArgs, check_fields, integer, sequence
from kubesched.plugins.helper.fielderrors import invalid, raise_all
from kubesched.plugins.helper.shape import (
    MAX_CUSTOM_PRIORITY_SCORE,
    Shape,
    decode_shape,
    shape_to_v1,
)


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs(PluginArgs):
    """Upstream `VolumeBindingArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "VolumeBindingArgs"

    bind_timeout_seconds: int = 600
    """How long PreBind waits for the bound volumes (0..2^31-1 seconds)."""
    shape: Shape = ((0, MAX_CUSTOM_PRIORITY_SCORE), (100, 0))
    """(utilization 0..100, score 0..10) points, utilization strictly increasing; v1.37's
    default (StorageCapacityScoring on) prefers the node whose storage is least used."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidateVolumeBindingArgs`."""
        kind, default = cls.KIND, cls.default()
        check_fields(args, kind=kind, allowed=("bindTimeoutSeconds", "shape"))
        timeout = args.get("bindTimeoutSeconds", default.bind_timeout_seconds)
        timeout = integer(timeout, path=f"{kind}.bindTimeoutSeconds", low=-(2**31), high=2**31 - 1)
        errors = []
        if timeout < 0:
            detail = "invalid BindTimeoutSeconds, should not be a negative value"
            errors.append(invalid(f"{kind}.bindTimeoutSeconds", timeout, detail))
        # An empty shape is defaulted as a missing one (upstream's v1 defaulting tests len()).
        points = sequence(args.get("shape"), path=f"{kind}.shape")
        shape, shape_errors = (
            decode_shape(points, path=f"{kind}.shape") if points else (default.shape, [])
        )
        raise_all(errors + shape_errors)
        return cls(bind_timeout_seconds=timeout, shape=shape)

    def to_v1(self) -> dict[str, Any]:
        return {"bindTimeoutSeconds": self.bind_timeout_seconds, "shape": shape_to_v1(self.shape)}
