"""`DynamicResourcesArgs`: the Filter's per-node time limit and PreBind's wait for binding
conditions (v1 durations, `10s`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.apis.durations import DurationError, format_duration, parse_duration
from kubesched.plugins.helper.args import ArgsError, PluginArgs, check_fields

_FILTER, _BINDING = "filterTimeout", "bindingTimeout"


@dataclass(frozen=True, slots=True)
class DynamicResourcesArgs(PluginArgs):
    """Upstream `DynamicResourcesArgs`, with its v1 defaults (v1.37's gates
    DRASchedulerFilterTimeout, DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
    on); durations in seconds."""

    KIND: ClassVar[str] = "DynamicResourcesArgs"

    filter_timeout: float = 10.0
    """How long Filter may search one node for devices (0: no limit)."""
    binding_timeout: float = 600.0
    """How long PreBind waits for a device's binding conditions (at least 1s)."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidateDynamicResourcesArgs`."""
        default = cls.default()
        check_fields(args, kind=cls.KIND, allowed=(_FILTER, _BINDING))
        filter_timeout = _duration(args, _FILTER, default.filter_timeout)
        binding_timeout = _duration(args, _BINDING, default.binding_timeout)
        if filter_timeout < 0:
            raise ArgsError(
                f"{cls.KIND}.{_FILTER}: Invalid value: "
                f'"{format_duration(filter_timeout)}": must be zero or positive'
            )
        if binding_timeout < 1:
            raise ArgsError(
                f"{cls.KIND}.{_BINDING}: Invalid value: "
                f'"{format_duration(binding_timeout)}": must be at least 1 second'
            )
        return cls(filter_timeout=filter_timeout, binding_timeout=binding_timeout)

    def to_v1(self) -> dict[str, Any]:
        return {
            _BINDING: format_duration(self.binding_timeout),
            _FILTER: format_duration(self.filter_timeout),
        }


def _duration(args: Mapping[str, Any], field: str, default: float) -> float:
    value = args.get(field)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ArgsError(f"{DynamicResourcesArgs.KIND}.{field}: expected a duration, got {value!r}")
    try:
        return parse_duration(value)
    except DurationError as error:
        raise ArgsError(f"{DynamicResourcesArgs.KIND}.{field}: {error}") from error
