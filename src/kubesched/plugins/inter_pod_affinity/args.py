"""`InterPodAffinityArgs`: the weight of existing pods' required affinity in the score."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import ArgsError, PluginArgs, check_fields

_WEIGHT, _IGNORE = "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs(PluginArgs):
    """Upstream `InterPodAffinityArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "InterPodAffinityArgs"

    hard_pod_affinity_weight: int = 1
    """The score (0..100) an existing pod's required affinity term that selects the
    incoming pod adds to its domain."""
    ignore_preferred_terms_of_existing_pods: bool = False
    """Score by the incoming pod's preferred terms only."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidateInterPodAffinityArgs`."""
        kind, default = cls.KIND, cls.default()
        check_fields(args, kind=kind, allowed=(_WEIGHT, _IGNORE))
        weight = args.get(_WEIGHT, default.hard_pod_affinity_weight)
        if isinstance(weight, bool) or not isinstance(weight, int) or not 0 <= weight <= 100:
            raise ArgsError(
                f"{kind}.{_WEIGHT}: Invalid value: {weight!r}: not in valid range [0, 100]"
            )
        ignore = args.get(_IGNORE, default.ignore_preferred_terms_of_existing_pods)
        if not isinstance(ignore, bool):
            raise ArgsError(f"{kind}.{_IGNORE}: expected a boolean")
        return cls(weight, ignore)

    def to_v1(self) -> dict[str, Any]:
        return {
            _WEIGHT: self.hard_pod_affinity_weight,
            _IGNORE: self.ignore_preferred_terms_of_existing_pods,
        }
