"""The profiles' part of kube-scheduler's `ValidateKubeSchedulerConfiguration` (v1.37.2,
pkg/scheduler/apis/config/validation): each profile's name, percentage, removed plugins and
`pluginConfig` (duplicates, and the args of the plugins it validates with the file), then the
scheduler names' uniqueness and the queue sort all profiles share. Every text is
kube-scheduler's, so that the command line aggregates them as it does; kubesched's hints
ride along (`kubesched.config.errors.Problem`).

The args of the other plugins (NodeResourcesFit among them: its entry in upstream's table is
misspelt `NodeResourcesFitArgs`) are checked when the profile's framework is built
(`kubesched.config.plugin_check`), after these, as kube-scheduler builds them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from kubesched.apis.config import MULTI_POINT, PluginRef, PluginSet, Profile
from kubesched.config.dnsnames import is_dns_subdomain
from kubesched.config.errors import Problem

API_VERSION = "kubescheduler.config.k8s.io/v1"
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
VALIDATED_WITH_THE_FILE = frozenset(
    {
        "DefaultPreemption",
        "InterPodAffinity",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
        "PodTopologySpread",
        "VolumeBinding",
        "DynamicResources",
    }
)
"""kube-scheduler v1.37.2's `validatePluginConfig` table."""
# Upstream names the version the plugins were removed in by core/v1's SchemeGroupVersion: "v1".
_REMOVED_TEXT = (
    f'was invalid in version "v1" (KubeSchedulerConfiguration is version "{API_VERSION}")'
)


class ArgsChecks(Protocol):
    """The plugins' args checks the file's validation runs (`kubesched.config.args_check`:
    it knows the plugins, which loading the file must not import)."""

    def decoding_error(self, profiles: Iterable[Profile]) -> str | None:
        """kube-scheduler's strict-decoding error for the first unknown args field, or None."""
        ...

    def errors(self, name: str, args: Mapping[str, Any], *, path: str) -> list[str]:
        """The args errors of plugin `name` at `path` (`profiles[0].pluginConfig[1].args`)."""
        ...


def percentage(path: str, value: int | None) -> list[str]:
    if value is None or 0 <= value <= 100:
        return []
    return [
        Problem(
            f"{path}: Invalid value: {value}: not in valid range [0-100]", "0 or unset: adaptive"
        )
    ]


def validate_profiles(
    profiles: tuple[Profile, ...], *, args_checks: ArgsChecks | None = None
) -> list[str]:
    if not profiles:
        return [Problem("profiles: Required value", "at least one profile is required")]
    errors: list[str] = []
    first_index: dict[str, int] = {}
    for position, profile in enumerate(profiles):
        path = f"profiles[{position}]"
        errors += _profile(profile, path=path, args_checks=args_checks)
        name = profile.scheduler_name
        if name in first_index:  # the bad value, a field.Path, prints as JSON: {}
            errors.append(
                Problem(
                    f"{path}.schedulerName: Duplicate value: {{}}",
                    f"{name!r} is also profiles[{first_index[name]}]'s; scheduler names must be "
                    "unique",
                )
            )
        first_index[name] = position
    return errors + _common_queue_sort(profiles)


def _profile(profile: Profile, *, path: str, args_checks: ArgsChecks | None) -> list[str]:
    errors: list[str] = []
    name = profile.scheduler_name
    if not name:
        errors.append(
            Problem(
                f"{path}.schedulerName: Required value", "pods pick a profile by spec.schedulerName"
            )
        )
    elif not is_dns_subdomain(name):
        errors.append(
            f"{path}.schedulerName: {name!r} is not a DNS-1123 subdomain (lowercase letters, "
            "digits, '-' and '.'), so no pod could name it in spec.schedulerName"
        )
    errors += percentage(f"{path}.percentageOfNodesToScore", profile.percentage_of_nodes_to_score)
    for point, plugin_set in profile.plugins.items():
        if point == MULTI_POINT:  # upstream checks the other extension points only
            continue
        errors += [
            Problem(
                f"{path}.plugins.{point}.enabled[{position}]: Invalid value: "
                f"{json.dumps(ref.name)}: {_REMOVED_TEXT}",
                "delete it",
            )
            for position, ref in enumerate(plugin_set.enabled)
            if ref.name in REMOVED_PLUGINS
        ]
    configs = profile.plugin_config
    return errors + _plugin_config(configs, path=f"{path}.pluginConfig", args_checks=args_checks)


def _plugin_config(
    configs: dict[str, dict[str, Any]], *, path: str, args_checks: ArgsChecks | None
) -> list[str]:
    errors: list[str] = []
    for position, (name, args) in enumerate(configs.items()):
        item = f"{path}[{position}]"
        if name in REMOVED_PLUGINS:
            errors.append(
                Problem(f"{item}: Invalid value: {json.dumps(name)}: {_REMOVED_TEXT}", "delete it")
            )
        elif name in VALIDATED_WITH_THE_FILE and args_checks is not None:
            errors += args_checks.errors(name, args, path=f"{item}.args")
    return errors


def _go_plugin_set(plugin_set: PluginSet) -> dict[str, Any]:
    """The merged queueSort set as kube-scheduler prints it (Go field names, weight 0 when
    unset, `null` when empty): the user's enabled plugins in order, every disabled name."""

    def plugins(refs: Iterable[PluginRef], *, weights: bool) -> list[dict[str, Any]] | None:
        items = [{"Name": ref.name, "Weight": (ref.weight or 0) if weights else 0} for ref in refs]
        return items or None

    return {
        "Enabled": plugins(plugin_set.enabled, weights=True),
        "Disabled": plugins(plugin_set.disabled, weights=False),
    }


def _common_queue_sort(profiles: tuple[Profile, ...]) -> list[str]:
    canon = _go_plugin_set(profiles[0].plugins.get("queueSort", PluginSet()))
    errors: list[str] = []
    enabled = canon["Enabled"] or []
    if len(enabled) > 1:
        errors.append(
            Problem(
                f"profiles[0].plugins.queueSort.Enabled: Invalid value: {len(enabled)}: only one "
                "queue sort plugin can be enabled",
                "one scheduling queue serves every profile, sorted by one plugin",
            )
        )
    sort_name = enabled[0]["Name"] if enabled else ""
    canon_args = profiles[0].plugin_config.get(sort_name)
    for position, profile in enumerate(profiles[1:], start=1):
        mine = _go_plugin_set(profile.plugins.get("queueSort", PluginSet()))
        if mine != canon:
            errors.append(
                Problem(
                    f"profiles[{position}].plugins.queueSort: Invalid value: "
                    f"{json.dumps(mine, separators=(',', ':'))}: must be the same for all profiles",
                    "one scheduling queue serves every profile; copy profiles[0]'s queueSort",
                )
            )
        args = profile.plugin_config.get(sort_name)
        if sort_name and args is not None and args != canon_args:
            errors.append(
                Problem(
                    f"profiles[{position}].pluginConfig.args: Invalid value: "
                    f"{json.dumps(args, separators=(',', ':'))}: queueSort must be the same for "
                    "all profiles",
                    f"copy profiles[0]'s args of {sort_name}",
                )
            )
    return errors
