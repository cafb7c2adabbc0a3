"""Whether a config preempts: some profile has DefaultPreemption enabled at PostFilter.

DefaultPreemption is in kube-scheduler's default plugins (multiPoint), so it is on unless
a profile disables it. This mirrors the framework's merge of a profile's plugin sets into
the defaults (`kubesched.apis.defaults` and `builder`) for this one plugin, without
importing the framework (manifests stay pure).
"""

from __future__ import annotations

from kubesched.apis.config import KubeSchedulerConfiguration, PluginRef, PluginSet, Profile

PLUGIN = "DefaultPreemption"
WILDCARD = "*"


def _names(refs: tuple[PluginRef, ...]) -> set[str]:
    return {ref.name for ref in refs}


def profile_preempts(profile: Profile) -> bool:
    """DefaultPreemption runs at PostFilter in this profile."""
    multi = profile.plugins.get("multiPoint", PluginSet())
    post_filter = profile.plugins.get("postFilter", PluginSet())
    if PLUGIN in _names(post_filter.enabled):
        return True
    multi_disabled = _names(multi.disabled)
    from_defaults = WILDCARD not in multi_disabled and PLUGIN not in multi_disabled
    in_multi = from_defaults or PLUGIN in _names(multi.enabled)
    return in_multi and not {WILDCARD, PLUGIN} & _names(post_filter.disabled)


def preemption_enabled(config: KubeSchedulerConfiguration) -> bool:
    """Any profile preempts (then kubesched deletes pods and reads PodDisruptionBudgets)."""
    return any(profile_preempts(profile) for profile in config.profiles)
