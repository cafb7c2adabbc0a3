"""Build a profile's Framework: defaults merged in, plugins instantiated once, multiPoint
expanded to the extension points each plugin implements, weights and invariants checked.

Expansion follows upstream `expandMultiPointPlugins`, per extension point:
1. plugins enabled at the point *and* in multiPoint (explicit overrides), in the point's order;
2. multiPoint plugins not disabled there (`*` disables all of them);
3. the point's other enabled plugins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis.config import (
    MULTI_POINT,
    PLACEMENT_POINTS,
    WILDCARD,
    PluginRef,
    PluginSet,
    Profile,
)
from kubesched.apis.defaults import default_plugins, merge_plugins
from kubesched.apis.gotext import go_quote
from kubesched.errors import FatalError
from kubesched.framework import interfaces as api
from kubesched.framework.dra import WorkloadClaimsAware
from kubesched.framework.handle import Handle
from kubesched.framework.interfaces import Plugin
from kubesched.framework.placement import PlacementFeasiblePlugin
from kubesched.framework.placement_points import PlacementGeneratePlugin, PlacementScorePlugin
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.registry import Registry
from kubesched.runtime.batch import UNRECORDED, BatchMetrics, OpportunisticBatch
from kubesched.runtime.framework import Framework, PluginLists
from kubesched.runtime.instrument import ExtensionPointObserver, PluginRunObserver, ignore
from kubesched.runtime.plugin_metrics import PluginMetrics
from kubesched.runtime.queueing import HintObserver

# Extension point (YAML name) -> the protocol its plugins implement, in upstream's order.
POINT_PROTOCOLS: dict[str, type] = {
    "preEnqueue": api.PreEnqueuePlugin,
    "queueSort": api.QueueSortPlugin,
    "preFilter": api.PreFilterPlugin,
    "filter": api.FilterPlugin,
    "postFilter": api.PostFilterPlugin,
    "preScore": api.PreScorePlugin,
    "score": api.ScorePlugin,
    "reserve": api.ReservePlugin,
    "permit": api.PermitPlugin,
    "preBind": api.PreBindPlugin,
    "bind": api.BindPlugin,
    "postBind": api.PostBindPlugin,
    "placementGenerate": PlacementGeneratePlugin,
    "placementScore": PlacementScorePlugin,
}

# The order in which kube-scheduler's framework checks the points (`getExtensionPoints`).
_UPSTREAM_ORDER = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
    "placementGenerate",
    "placementScore",
)


class FrameworkError(FatalError):
    """A profile's plugin configuration is invalid; the message names the profile."""


def build_framework(
    *,
    profile: Profile,
    registry: Registry,
    handle: Handle,
    default_percentage_of_nodes_to_score: int | None = None,
    observe: ExtensionPointObserver = ignore,
    plugin_metrics: PluginMetrics | None = None,
    observe_hint: HintObserver | None = None,
    opportunistic_batching: bool = False,
    batch_metrics: BatchMetrics = UNRECORDED,
    observe_post_filter: PluginRunObserver | None = None,
) -> Framework:
    """The Framework of one profile (raises FrameworkError with a one-line fix-it message).

    `observe` is told each extension point's duration, `plugin_metrics` stores each plugin's
    (`runtime.plugin_metrics`), `observe_hint` each queueing hint's (`runtime.queueing`);
    none is needed outside the scheduler. `opportunistic_batching` (the scheduler's
    OpportunisticBatching gate) gives the framework a batch (`runtime.batch`) reporting to
    `batch_metrics`. `observe_post_filter` is told of each PostFilter plugin's run."""
    defaults = default_plugins(
        frozenset(registry.names()),
        generic_workload=profile.generic_workload,
        topology_aware=profile.topology_aware_workload_scheduling,
    )
    plugins = merge_plugins(defaults, profile.plugins)
    plugins.update({point: profile.plugins.get(point, PluginSet()) for point in PLACEMENT_POINTS})
    builder = _Builder(profile=profile, registry=registry, plugins=plugins)
    instances = builder.instantiate(handle)
    if profile.dra_workload_resource_claims:
        for plugin in instances.values():
            if isinstance(plugin, WorkloadClaimsAware):
                plugin.workload_resource_claims = True
    points: dict[str, Any] = {
        _attr(point): builder.point_plugins(point, instances) for point in POINT_PROTOCOLS
    }
    lists = PluginLists(
        **points,
        placement_feasible=builder.placement_plugins(instances, PlacementFeasiblePlugin),
    )
    builder.check_invariants(lists)
    percentage = profile.percentage_of_nodes_to_score
    if percentage is None:
        percentage = default_percentage_of_nodes_to_score
    fw = Framework(
        profile_name=profile.scheduler_name,
        plugins=lists,
        score_weights=builder.score_weights(lists),
        percentage_of_nodes_to_score=percentage,
        handle=handle,
        observe=observe,
        plugin_metrics=plugin_metrics,
        observe_hint=observe_hint,
        observe_post_filter=observe_post_filter,
    )
    fw.topology_aware = profile.topology_aware_workload_scheduling
    fw.placement_score_weights = builder.placement_score_weights(lists)
    if opportunistic_batching:
        fw.batch = OpportunisticBatch(
            fw, generic_workload=profile.generic_workload, metrics=batch_metrics
        )
    return fw


def _attr(point: str) -> str:
    """`preFilter` -> `pre_filter` (PluginLists field names)."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in point)


class _Builder:
    def __init__(
        self, *, profile: Profile, registry: Registry, plugins: dict[str, PluginSet]
    ) -> None:
        self.profile = profile
        self.registry = registry
        self.plugins = plugins

    def error(self, message: str) -> FrameworkError:
        return FrameworkError(f"profile {self.profile.scheduler_name!r}: {message}")

    def instantiate(self, handle: Handle) -> dict[str, Plugin]:
        self._check_names()
        instances: dict[str, Plugin] = {}
        for point, plugin_set in self.plugins.items():
            for ref in plugin_set.enabled:
                if ref.name not in instances:
                    instances[ref.name] = self._create(ref.name, point, handle)
        return instances

    def _check_names(self) -> None:
        available = ", ".join(self.registry.names())
        for point, plugin_set in self.plugins.items():
            for ref in plugin_set.enabled:
                if ref.name not in self.registry:
                    raise self.error(
                        f"{self._upstream_type(point)} {go_quote(ref.name)}"
                        f" does not exist (enabled at {point}); available plugins: {available}"
                    )
        for name in self.profile.plugin_config:
            if name not in self.registry:
                raise self.error(
                    f"pluginConfig names plugin {name!r}, which does not exist;"
                    f" available plugins: {available}"
                )

    def _registered_twice(self, name: str, point: str) -> str:
        """kube-scheduler's text for a plugin enabled twice at one extension point."""
        kind = go_quote(self._upstream_type(point))
        return f"plugin {go_quote(name)} already registered as {kind}"

    def _upstream_type(self, point: str) -> str:
        """kube-scheduler's name for `point` in its "does not exist" error (`PreFilterPlugin`);
        a multiPoint plugin is reported at the first point upstream expands it to."""
        if point == MULTI_POINT:
            expanded = (p for p in _UPSTREAM_ORDER if not self._all_disabled(p))
            point = next(expanded, MULTI_POINT)
        return f"{point[0].upper()}{point[1:]}Plugin"

    def _all_disabled(self, point: str) -> bool:
        return any(ref.name == WILDCARD for ref in self.plugins[point].disabled)

    def _create(self, name: str, point: str, handle: Handle) -> Plugin:
        factory = self.registry.get(name)
        assert factory is not None
        args: Mapping[str, Any] = self.profile.plugin_config.get(name) or {}
        try:
            plugin = factory(args=args, handle=handle)
        except PLUGIN_ERRORS as exc:
            raise self.error(f"initializing plugin {name!r} (enabled at {point}): {exc}") from exc
        if getattr(plugin, "name", None) != name:
            raise self.error(
                f"plugin registered as {name!r} reports name {getattr(plugin, 'name', None)!r}"
            )
        return plugin

    def point_plugins(self, point: str, instances: dict[str, Plugin]) -> list[Any]:
        protocol = POINT_PROTOCOLS[point]
        plugin_set = self.plugins.get(point, PluginSet())
        enabled: list[str] = []
        for ref in plugin_set.enabled:
            if not isinstance(instances[ref.name], protocol):
                raise self.error(
                    f"plugin {go_quote(ref.name)} does not extend"
                    f" {self._upstream_type(point)} plugin"
                )
            if ref.name in enabled:
                raise self.error(self._registered_twice(ref.name, point))
            enabled.append(ref.name)
        names = self._expand(point, enabled, plugin_set, instances)
        return [instances[name] for name in names]

    def placement_plugins(self, instances: dict[str, Plugin], protocol: type) -> list[Any]:
        """multiPoint plugins of PlacementFeasible (`protocol`), which has no extension point
        of its own in a profile, as upstream."""
        found = [instances[ref.name] for ref in self.plugins[MULTI_POINT].enabled]
        return [pl for pl in found if isinstance(pl, protocol)]

    def placement_score_weights(self, lists: PluginLists) -> dict[str, int]:
        """Weights of the PlacementScore plugins: the point's entry wins over multiPoint's
        (unset: 1)."""
        scorers = {plugin.name for plugin in lists.placement_score}
        weights: dict[str, int] = {}
        refs = [*self.plugins["placementScore"].enabled, *self.plugins[MULTI_POINT].enabled]
        for ref in refs:
            if ref.name in scorers and ref.name not in weights:
                if ref.weight is not None and ref.weight < 0:
                    raise self.error(
                        f"placement score plugin {ref.name!r} has negative weight {ref.weight}"
                    )
                weights[ref.name] = ref.weight or 1
        return weights

    def _expand(
        self, point: str, enabled: list[str], plugin_set: PluginSet, instances: dict[str, Plugin]
    ) -> list[str]:
        disabled = {ref.name for ref in plugin_set.disabled}
        if WILDCARD in disabled:
            return enabled
        protocol = POINT_PROTOCOLS[point]
        overrides: list[str] = []
        from_multi: list[str] = []
        for ref in self.plugins[MULTI_POINT].enabled:
            if not isinstance(instances[ref.name], protocol) or ref.name in disabled:
                continue
            if ref.name in enabled:
                overrides.append(ref.name)
            elif ref.name in from_multi:
                raise self.error(self._registered_twice(ref.name, point))
            else:
                from_multi.append(ref.name)
        first = [name for name in enabled if name in overrides]
        rest = [name for name in enabled if name not in overrides]
        return first + from_multi + rest

    def check_invariants(self, lists: PluginLists) -> None:
        if len(lists.queue_sort) != 1:
            raise self.error(
                f"exactly one queueSort plugin is required, got {len(lists.queue_sort)}"
            )
        if not lists.bind:
            raise self.error("at least one bind plugin is required")
        if len(lists.placement_generate) > 1:
            raise self.error("at most one placement generate plugin is allowed")

    def score_weights(self, lists: PluginLists) -> dict[str, int]:
        """Weights of the score plugins: the score point's entry wins over multiPoint's."""
        weights: dict[str, int] = {}
        refs: list[PluginRef] = [*self.plugins["score"].enabled, *self.plugins[MULTI_POINT].enabled]
        scorers = {plugin.name for plugin in lists.score}
        for ref in refs:
            if ref.name not in scorers or ref.name in weights:
                continue
            if ref.weight is not None and ref.weight < 0:
                raise self.error(f"score plugin {ref.name!r} has negative weight {ref.weight}")
            weights[ref.name] = ref.weight or 1
        return weights


def check_common_queue_sort(frameworks: Sequence[Framework]) -> None:
    """All profiles share one queue, so they must use the same QueueSort plugin (upstream
    validation); raises FrameworkError naming two profiles that differ."""
    first = frameworks[0] if frameworks else None
    for fw in frameworks[1:]:
        assert first is not None
        mine, theirs = fw.plugins.queue_sort[0].name, first.plugins.queue_sort[0].name
        if mine != theirs:
            raise FrameworkError(
                f"queueSort must be the same for all profiles: profile {first.profile_name!r}"
                f" uses {theirs}, profile {fw.profile_name!r} uses {mine}"
            )
