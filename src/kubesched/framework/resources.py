"""What a cluster-aware plugin reads: API resources by group/version/resource.

A plugin class lists them in a `resources` class attribute:

    class QuotaRule:
        name = "QuotaRule"
        resources = (ResourceSpec("", "v1", "configmaps", label_indexes=("team",)),)

kubesched then runs ONE shared informer per resource (whatever number of plugins and profiles
declare it), hands every plugin a lister for it (`handle.lister(spec)`, with indexes by
namespace and by the declared label keys), turns its changes into cluster events
(`resource_event(spec, ActionType.UPDATE)`) that requeue the pods a plugin rejected if the plugin
registered them, and grants its `list`/`watch` (and `patch` on `/status` with
`writes_status`) in `kubesched manifests` and checks them in `kubesched doctor`.
Core pods are declared the same way (`PODS`); they are served from the pod informer the
scheduler runs anyway, with the declared label indexes added to it. So are the other core
resources in-tree plugins read (`kubesched.framework` exports their specs: `NAMESPACES`, the
`DEFAULT_SPREADING` Services and controllers, `POD_DISRUPTION_BUDGETS`): one informer each,
however many plugins declare them.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.apis.config import PLACEMENT_POINTS, KubeSchedulerConfiguration, PluginSet, Profile
from kubesched.apis.defaults import default_plugins, merge_plugins
from kubesched.apis.resources import (
    PODS,
    SCHEDULING_COMPOSITEPODGROUPS,
    SCHEDULING_PODGROUPS,
    ResourceSpec,
)
from kubesched.framework.events import ActionType, ClusterEvent
from kubesched.framework.registry import Registry


def resource_event(spec: ResourceSpec, action: ActionType) -> ClusterEvent:
    """A cluster event about a declared resource, for `events_to_register`
    (`resource_event(PODGROUPS, ActionType.ADD | ActionType.UPDATE)`)."""
    return ClusterEvent(spec.event_resource, action)


def plugin_resources(plugin: object) -> tuple[ResourceSpec, ...]:
    """What a plugin class or instance declares (nothing without a `resources` attribute)."""
    declared = getattr(plugin, "resources", ())
    return tuple(spec for spec in declared if isinstance(spec, ResourceSpec))


def enabled_plugin_names(profile: Profile, registry: Registry) -> set[str]:
    """Every plugin a profile instantiates (defaults merged in, as the builder does)."""
    defaults = default_plugins(
        frozenset(registry.names()),
        generic_workload=profile.generic_workload,
        topology_aware=profile.topology_aware_workload_scheduling,
    )
    merged = merge_plugins(defaults, profile.plugins)
    placement = [profile.plugins.get(point, PluginSet()) for point in PLACEMENT_POINTS]
    return {ref.name for plugin_set in (*merged.values(), *placement) for ref in plugin_set.enabled}


def declared_resources(profiles: Iterable[Profile], registry: Registry) -> list[ResourceSpec]:
    """The resources the enabled plugins of `profiles` read: one spec per resource, its
    label indexes and status writes united."""
    found: dict[tuple[str, str, str], ResourceSpec] = {}
    for profile in profiles:
        for name in sorted(enabled_plugin_names(profile, registry)):
            factory = registry.get(name)
            for spec in plugin_resources(factory):
                found[_key(spec)] = _unite(found.get(_key(spec)), spec)
    return list(found.values())


def cluster_resources(config: KubeSchedulerConfiguration, registry: Registry) -> list[ResourceSpec]:
    """What the enabled plugins of `config`'s profiles declare, plus native PodGroups under
    `GenericWorkload` (the pod-group cycle reads them, and writes their status, even with
    GangScheduling disabled): the informers the server runs, and so what RBAC must grant."""
    specs = declared_resources(config.profiles, registry)
    if config.generic_workload and not any(s.same_resource(SCHEDULING_PODGROUPS) for s in specs):
        specs.append(SCHEDULING_PODGROUPS)
    if config.composite_pod_group:
        specs.append(SCHEDULING_COMPOSITEPODGROUPS)
    return specs


def _key(spec: ResourceSpec) -> tuple[str, str, str]:
    return spec.group, spec.version, spec.resource


def _unite(old: ResourceSpec | None, new: ResourceSpec) -> ResourceSpec:
    if old is None:
        return new
    indexes = tuple(dict.fromkeys((*old.label_indexes, *new.label_indexes)))
    return ResourceSpec(
        old.group,
        old.version,
        old.resource,
        namespaced=old.namespaced,
        label_indexes=indexes,
        writes_status=old.writes_status or new.writes_status,
        writes=old.writes or new.writes,
        event_name=old.event_name or new.event_name,
        keep=_kept(old.keep, new.keep),
    )


def _kept(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """What two declarations keep of the body: both parts, or everything if one keeps it."""
    if not old or not new:
        return ()
    return tuple(dict.fromkeys((*old, *new)))


__all__ = [
    "PODS",
    "ResourceSpec",
    "cluster_resources",
    "declared_resources",
    "plugin_resources",
    "resource_event",
]
