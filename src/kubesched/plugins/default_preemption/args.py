"""`DefaultPreemptionArgs`: how many candidate nodes the dry run looks for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import PluginArgs, check_fields, integer
from kubesched.plugins.helper.fielderrors import invalid, raise_all

_MAX_INT32 = 2**31 - 1
_PERCENTAGE, _ABSOLUTE = "minCandidateNodesPercentage", "minCandidateNodesAbsolute"


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs(PluginArgs):
    """Upstream `DefaultPreemptionArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "DefaultPreemptionArgs"

    min_candidate_nodes_percentage: int = 10
    """Candidates to find, as a percentage of the nodes preemption could help (0-100)."""
    min_candidate_nodes_absolute: int = 100
    """...and at least this many (capped at the number of such nodes)."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream's defaulting and `ValidateDefaultPreemptionArgs` (every error, aggregated
        as upstream's)."""
        kind, default = cls.KIND, cls.default()
        check_fields(args, kind=kind, allowed=(_PERCENTAGE, _ABSOLUTE))
        percentage = _int32(args, _PERCENTAGE, default.min_candidate_nodes_percentage)
        absolute = _int32(args, _ABSOLUTE, default.min_candidate_nodes_absolute)
        errors = []
        if not 0 <= percentage <= 100:
            errors.append(
                invalid(f"{kind}.{_PERCENTAGE}", percentage, "not in valid range [0, 100]")
            )
        if absolute < 0:
            errors.append(invalid(f"{kind}.{_ABSOLUTE}", absolute, "not in valid range [0, inf)"))
        if percentage == 0 and absolute == 0:
            errors += [
                invalid(
                    f"{kind}.{_PERCENTAGE}", 0, f"cannot be zero at the same time as {_ABSOLUTE}"
                ),
                invalid(
                    f"{kind}.{_ABSOLUTE}", 0, f"cannot be zero at the same time as {_PERCENTAGE}"
                ),
            ]
        raise_all(errors)
        return cls(percentage, absolute)

    def to_v1(self) -> dict[str, Any]:
        return {
            _ABSOLUTE: self.min_candidate_nodes_absolute,
            _PERCENTAGE: self.min_candidate_nodes_percentage,
        }


def _int32(args: Mapping[str, Any], field: str, default: int) -> int:
    value = args.get(field)
    if value is None:
        return default
    return integer(
        value, path=f"{DefaultPreemptionArgs.KIND}.{field}", low=-_MAX_INT32 - 1, high=_MAX_INT32
    )
