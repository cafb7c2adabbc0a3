"""`--write-config-to`: the completed config as `KubeSchedulerConfiguration` v1 YAML.

The file holds every field that a config file can hold, with the completed values (the Lease
name and namespace included), so `--config=<that file>` gives the same config back. Flags
that have no field in the file (`--master`, serving, logging and `--plugin-module`) are not
written: pass them again. As kube-scheduler, each profile is written in effect: its plugins
merged with the default ones (`multiPoint`) and the args of every enabled default plugin
with upstream's defaults filled in. `/configz` serves the same document as JSON.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import yaml

from kubesched.apis.config import (
    PLACEMENT_POINTS,
    KubeSchedulerConfiguration,
    PluginRef,
    PluginSet,
    Profile,
)
from kubesched.apis.defaults import DEFAULT_PLUGIN_ARGS, default_plugins, merge_plugins
from kubesched.apis.durations import format_duration
from kubesched.config.errors import ConfigError
from kubesched.config.extenders import extender_document
from kubesched.config.fromfile import API_VERSION, KIND


def configz(config: KubeSchedulerConfiguration) -> str:
    """`/configz`: the same document as JSON under `componentconfig`, as kube-scheduler."""
    return json.dumps({"componentconfig": to_document(config)})


def dump_config(config: KubeSchedulerConfiguration) -> str:
    """The YAML text of `config` (apiVersion and kind first, then the fields by name)."""
    # ASCII only: PyYAML writes some Unicode line breaks (U+0085) raw, which do not read back.
    return yaml.safe_dump(to_document(config), sort_keys=False, allow_unicode=False)


def write_config(
    config: KubeSchedulerConfiguration, *, path: str, stdout: TextIO = sys.stdout
) -> None:
    """Write `config` to `path`, or to `stdout` when `path` is `-`; a file that cannot be
    written is a one-line ConfigError."""
    text = dump_config(config)
    if path == "-":
        stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        parent = Path(path).parent
        fix = (
            f"create {parent} first or pass a path in an existing directory"
            if not parent.is_dir()
            else "pass a writable path"
        )
        raise ConfigError([f"--write-config-to: cannot write {path}: {reason}; {fix}"]) from error


def to_document(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """The config as the mapping a YAML file holds."""
    connection, election = config.client_connection, config.leader_election
    document: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "clientConnection": {
            "acceptContentTypes": connection.accept_content_types,
            "burst": connection.burst,
            "contentType": connection.content_type,
            "kubeconfig": connection.kubeconfig,
            "qps": connection.qps,
        },
        "leaderElection": {
            "leaderElect": election.leader_elect,
            "leaseDuration": format_duration(election.lease_duration),
            "renewDeadline": format_duration(election.renew_deadline),
            "resourceLock": election.resource_lock,
            "resourceName": election.resource_name,
            "resourceNamespace": election.resource_namespace,
            "retryPeriod": format_duration(election.retry_period),
        },
        "parallelism": config.parallelism,
    }
    if config.extenders:  # omitted when empty, as kube-scheduler writes it
        document["extenders"] = [extender_document(e) for e in config.extenders]
    if config.delay_cache_until_active:  # omitted when false, as kube-scheduler writes it
        document["delayCacheUntilActive"] = True
    if config.percentage_of_nodes_to_score is not None:
        document["percentageOfNodesToScore"] = config.percentage_of_nodes_to_score
    document["podInitialBackoffSeconds"] = round(config.pod_initial_backoff_seconds)
    document["podMaxBackoffSeconds"] = round(config.pod_max_backoff_seconds)
    document["profiles"] = [_profile(profile) for profile in config.profiles]
    return document


def _profile(profile: Profile) -> dict[str, Any]:
    document: dict[str, Any] = {"schedulerName": profile.scheduler_name}
    if profile.percentage_of_nodes_to_score is not None:
        document["percentageOfNodesToScore"] = profile.percentage_of_nodes_to_score
    plugins = merge_plugins(
        default_plugins(
            generic_workload=profile.generic_workload,
            topology_aware=profile.topology_aware_workload_scheduling,
        ),
        profile.plugins,
    )
    for point in PLACEMENT_POINTS:  # kept as given (no defaults there), when given
        if profile.plugins.get(point, PluginSet()) != PluginSet():
            plugins[point] = profile.plugins[point]
    document["plugins"] = {point: _plugin_set(plugin_set) for point, plugin_set in plugins.items()}
    document["pluginConfig"] = [
        {"name": name, "args": {"apiVersion": API_VERSION, "kind": f"{name}Args", **args}}
        for name, args in sorted(_effective_args(profile, plugins).items())
    ]
    return document


def _effective_args(profile: Profile, plugins: Mapping[str, PluginSet]) -> dict[str, Any]:
    """The user's args over upstream's defaults, for every enabled default plugin with args
    (and the user's args of any other plugin)."""
    enabled = {ref.name for plugin_set in plugins.values() for ref in plugin_set.enabled}
    effective: dict[str, Any] = {
        name: copy.deepcopy(dict(args))
        for name, args in DEFAULT_PLUGIN_ARGS.items()
        if name in enabled
    }
    for name, args in profile.plugin_config.items():
        effective[name] = _overlay(effective.get(name, {}), args)
    return effective


def _overlay(default: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """`given` over `default`: objects merge field by field, anything else is replaced."""
    merged = dict(default)
    for key, value in given.items():
        base = merged.get(key)
        both_objects = isinstance(base, Mapping) and isinstance(value, Mapping)
        merged[key] = _overlay(base, value) if both_objects else value  # type: ignore[arg-type]
    return merged


def _plugin_set(plugin_set: PluginSet) -> dict[str, Any]:
    document: dict[str, Any] = {}
    if plugin_set.enabled:
        document["enabled"] = [_plugin(ref) for ref in plugin_set.enabled]
    if plugin_set.disabled:
        document["disabled"] = [_plugin(ref) for ref in plugin_set.disabled]
    return document


def _plugin(ref: PluginRef) -> dict[str, Any]:
    return {"name": ref.name, "weight": ref.weight or 0}
