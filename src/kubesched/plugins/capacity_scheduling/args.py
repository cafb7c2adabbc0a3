"""`CapacitySchedulingArgs`: kubesched's own args of CapacityScheduling (scheduler-plugins'
plugin takes none). `fairQueueing` (off by default, so the plugin stays scheduler-plugins'
unless asked) orders the queue fairly across quotas (`dominant.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import ArgsError, PluginArgs, check_fields

_FAIR = "fairQueueing"


@dataclass(frozen=True, slots=True)
class CapacitySchedulingArgs(PluginArgs):
    """kubesched's args of CapacityScheduling, with their defaults."""

    KIND: ClassVar[str] = "CapacitySchedulingArgs"

    fair_queueing: bool = False
    """Pods of equal priority leave the queue by their quotas' dominant shares, the lowest
    first, instead of first come first served (`dominant.py`)."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        check_fields(args, kind=cls.KIND, allowed=(_FAIR,))
        fair = args.get(_FAIR, False)
        if not isinstance(fair, bool):
            raise ArgsError(
                f"{cls.KIND}.{_FAIR}: expected true or false, got {fair!r}; write "
                f"{_FAIR}: true to order the queue fairly across quotas, or leave it out"
            )
        return cls(fair_queueing=fair)

    def to_v1(self) -> dict[str, Any]:
        # written only when on: the defaults stay scheduler-plugins' (no args)
        return {_FAIR: True} if self.fair_queueing else {}
