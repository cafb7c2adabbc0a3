"""`NodeResourceTopologyMatchArgs` (scheduler-plugins, `kubescheduler.config.x-k8s.io`): the
scoring strategy and its resource weights, and how NRT data is cached between updates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import (
    ArgsError,
    PluginArgs,
    check_fields,
    integer,
    mapping,
    resource_specs,
    resource_specs_to_v1,
)
from kubesched.plugins.node_resource_topology.overreserve import CacheSettings

MOST_ALLOCATED = "MostAllocated"
BALANCED_ALLOCATION = "BalancedAllocation"
LEAST_ALLOCATED = "LeastAllocated"
LEAST_NUMA_NODES = "LeastNUMANodes"
STRATEGIES = (MOST_ALLOCATED, BALANCED_ALLOCATION, LEAST_ALLOCATED, LEAST_NUMA_NODES)

_STRATEGY, _RESYNC, _DISCARD, _CACHE = (
    "scoringStrategy",
    "cacheResyncPeriodSeconds",
    "discardReservedNodes",
    "cache",
)
_CACHE_VALUES = {
    "foreignPodsDetect": ("None", "All", "OnlyExclusiveResources"),
    "resyncMethod": ("Autodetect", "All", "OnlyExclusiveResources"),
    "informerMode": ("Shared", "Dedicated"),
    "resyncScope": ("All", "OnlyResources"),
}
"""Each `cache` field and its values; the first of the defaults is scheduler-plugins'."""
_CACHE_DEFAULTS = {
    "foreignPodsDetect": "All",
    "resyncMethod": "Autodetect",
    "informerMode": "Dedicated",
    "resyncScope": "All",
}


@dataclass(frozen=True, slots=True)
class NodeResourceTopologyMatchArgs(PluginArgs):
    """scheduler-plugins' `NodeResourceTopologyMatchArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = "NodeResourceTopologyMatchArgs"

    scoring_strategy: str = LEAST_ALLOCATED
    """MostAllocated, LeastAllocated, BalancedAllocation or LeastNUMANodes."""
    resources: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
    """(name, weight) of the allocation strategies; a weight below 1 counts as 1."""
    cache_resync_period_seconds: int = 0
    """0: no cache, every cycle reads the NRT objects as they are; above 0: the over-reserve
    cache, resynced at most this often."""
    discard_reserved_nodes: bool = False
    """Leave out, until the pod is bound, a node where a pod was reserved since the node's
    NRT object may not count it yet ("invalid node topology data")."""
    cache: Mapping[str, str] | None = None
    """The over-reserve cache's tuning (`foreignPodsDetect`, `resyncMethod`, `informerMode`,
    `resyncScope`) as given; `cache_settings()` fills in the defaults."""

    @property
    def weights(self) -> dict[str, int]:
        return dict(self.resources)

    def cache_settings(self) -> CacheSettings:
        """The over-reserve cache's settings, scheduler-plugins' defaults filled in."""
        given = {**_CACHE_DEFAULTS, **(self.cache or {})}
        return CacheSettings(
            resync_period_seconds=float(self.cache_resync_period_seconds),
            foreign_pods_detect=given["foreignPodsDetect"],
            resync_method=given["resyncMethod"],
            informer_mode=given["informerMode"],
            resync_scope=given["resyncScope"],
        )

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        check_fields(args, kind=cls.KIND, allowed=(_STRATEGY, _RESYNC, _DISCARD, _CACHE))
        strategy, resources = _scoring_strategy(args.get(_STRATEGY))
        resync = integer(
            args.get(_RESYNC, 0), path=f"{cls.KIND}.{_RESYNC}", low=-(2**63), high=2**63 - 1
        )
        discard = args.get(_DISCARD, False)
        if not isinstance(discard, bool):
            raise ArgsError(f"{cls.KIND}.{_DISCARD}: expected true or false, got {discard!r}")
        cache = _cache(args.get(_CACHE), path=f"{cls.KIND}.{_CACHE}")
        return cls(
            scoring_strategy=strategy,
            resources=resources,
            cache_resync_period_seconds=resync,
            discard_reserved_nodes=discard,
            cache=cache if _CACHE in args else None,
        )

    def to_v1(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            _STRATEGY: {
                "type": self.scoring_strategy,
                "resources": resource_specs_to_v1(self.resources),
            }
        }
        if self.cache_resync_period_seconds:
            out[_RESYNC] = self.cache_resync_period_seconds
        if self.discard_reserved_nodes:
            out[_DISCARD] = True
        if self.cache is not None:
            out[_CACHE] = dict(self.cache)
        return out


def _scoring_strategy(value: Any) -> tuple[str, tuple[tuple[str, int], ...]]:
    """(type, resources); an absent scoringStrategy is LeastAllocated over cpu and memory,
    a present one must name its type (upstream validation's text)."""
    path = f"{NodeResourceTopologyMatchArgs.KIND}.{_STRATEGY}"
    if value is None:
        return LEAST_ALLOCATED, (("cpu", 1), ("memory", 1))
    strategy = mapping(value, path=path)
    check_fields(strategy, kind=path, allowed=("type", "resources"))
    kind = strategy.get("type", "")
    if kind not in STRATEGIES:
        raise ArgsError(f'{path}.type: Invalid value: "{kind}": invalid ScoringStrategyType')
    return str(kind), resource_specs(strategy.get("resources"), path=f"{path}.resources")


def _cache(value: Any, *, path: str) -> dict[str, str]:
    """The `cache` settings, each checked against its values."""
    cache = mapping(value, path=path)
    check_fields(cache, kind=path, allowed=tuple(_CACHE_VALUES))
    for name, given in cache.items():
        if given not in _CACHE_VALUES[name]:
            allowed = ", ".join(f'"{v}"' for v in _CACHE_VALUES[name])
            raise ArgsError(
                f'{path}.{name}: Unsupported value: "{given}": supported values: {allowed}'
            )
    return {str(k): str(v) for k, v in cache.items()}
