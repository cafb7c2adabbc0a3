"""`DefaultPreemptionArgs`: how many candidate nodes the dry run looks for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import ArgsError, PluginArgs, check_fields, integer

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
        """Upstream's defaulting and `ValidateDefaultPreemptionArgs`."""
        kind, default = cls.KIND, cls.default()
        check_fields(args, kind=kind, allowed=(_PERCENTAGE, _ABSOLUTE))
        percentage = args.get(_PERCENTAGE)
        absolute = args.get(_ABSOLUTE)
        parsed = cls(
            default.min_candidate_nodes_percentage
            if percentage is None
            else integer(percentage, path=f"{kind}.{_PERCENTAGE}", low=0, high=100),
            default.min_candidate_nodes_absolute
            if absolute is None
            else integer(absolute, path=f"{kind}.{_ABSOLUTE}", low=0, high=_MAX_INT32),
        )
        if not parsed.min_candidate_nodes_percentage and not parsed.min_candidate_nodes_absolute:
            raise ArgsError(
                f"{kind}.{_PERCENTAGE}: Invalid value: 0: cannot be zero at the same time"
                f" as {_ABSOLUTE}"
            )
        return parsed

    def to_v1(self) -> dict[str, Any]:
        return {
            _ABSOLUTE: self.min_candidate_nodes_absolute,
            _PERCENTAGE: self.min_candidate_nodes_percentage,
        }
