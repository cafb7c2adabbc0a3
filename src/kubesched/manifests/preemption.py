"""Whether a config preempts (some profile has DefaultPreemption, or scheduler-plugins'
CapacityScheduling, enabled at PostFilter) and whether it reads volumes (some profile has a
volume plugin enabled at Filter).

These plugins are in kube-scheduler's default plugins (multiPoint), so they are on unless a
profile disables them. This mirrors the framework's merge of a profile's plugin sets into
the defaults (`kubesched.apis.defaults` and `builder`) for these plugins, without
importing the framework (manifests stay pure).
"""

from __future__ import annotations

from kubesched.apis import names
from kubesched.apis.config import KubeSchedulerConfiguration, PluginRef, PluginSet, Profile

PLUGIN = names.DEFAULT_PREEMPTION
QUOTA_PLUGIN = names.CAPACITY_SCHEDULING
"""Not a default plugin: it preempts only where a profile enables it."""
GANG_PLUGIN = names.COSCHEDULING
"""Preempts only with its arg `gangPreemption: true`, where a profile enables it."""
WILDCARD = "*"


def _names(refs: tuple[PluginRef, ...]) -> set[str]:
    return {ref.name for ref in refs}


VOLUME_PLUGINS = (
    names.VOLUME_RESTRICTIONS,
    names.NODE_VOLUME_LIMITS,
    names.VOLUME_BINDING,
    names.VOLUME_ZONE,
)


def plugin_enabled(profile: Profile, plugin: str, point: str, *, default: bool = True) -> bool:
    """`plugin` runs at extension point `point` (e.g. `postFilter`) in this profile;
    `default`: it is one of kube-scheduler's default plugins (on unless disabled)."""
    multi = profile.plugins.get("multiPoint", PluginSet())
    at_point = profile.plugins.get(point, PluginSet())
    if plugin in _names(at_point.enabled):
        return True
    multi_disabled = _names(multi.disabled)
    from_defaults = default and WILDCARD not in multi_disabled and plugin not in multi_disabled
    in_multi = from_defaults or plugin in _names(multi.enabled)
    return in_multi and not {WILDCARD, plugin} & _names(at_point.disabled)


def profile_preempts(profile: Profile) -> bool:
    """DefaultPreemption, CapacityScheduling, or Coscheduling with `gangPreemption: true`
    runs at PostFilter in this profile."""
    gangs = (profile.plugin_config.get(GANG_PLUGIN) or {}).get("gangPreemption") is True
    return (
        plugin_enabled(profile, PLUGIN, "postFilter")
        or plugin_enabled(profile, QUOTA_PLUGIN, "postFilter", default=False)
        or (gangs and plugin_enabled(profile, GANG_PLUGIN, "postFilter", default=False))
    )


def volumes_enabled(config: KubeSchedulerConfiguration) -> bool:
    """Any profile runs a volume plugin (then kubesched reads PVCs, PVs, StorageClasses and
    the CSI objects, and binds PVs to claims)."""
    return any(
        plugin_enabled(profile, plugin, "filter")
        for profile in config.profiles
        for plugin in VOLUME_PLUGINS
    )


def preemption_enabled(config: KubeSchedulerConfiguration) -> bool:
    """Any profile preempts (then kubesched deletes pods and reads PodDisruptionBudgets)."""
    return any(profile_preempts(profile) for profile in config.profiles)
