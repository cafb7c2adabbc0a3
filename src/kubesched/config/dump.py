"""`--write-config-to`: the completed config as `KubeSchedulerConfiguration` v1 YAML.

The file holds every field that a config file can hold, with the completed values (the Lease
name and namespace included), so `--config=<that file>` gives the same config back. Flags
that have no field in the file (`--master`, serving, logging and `--plugin-module`) are not
written: pass them again. Plugin sets are written as configured; the framework adds the
default plugins when it builds the profiles.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

import yaml

from kubesched.apis.config import KubeSchedulerConfiguration, PluginRef, PluginSet, Profile
from kubesched.config.durations import format_duration
from kubesched.config.errors import ConfigError
from kubesched.config.fromfile import API_VERSION, KIND


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
        raise ConfigError([f"--write-config-to: cannot write {path}: {reason}"]) from error


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
        "delayCacheUntilActive": config.delay_cache_until_active,
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
    if profile.plugins:
        document["plugins"] = {
            point: _plugin_set(plugin_set) for point, plugin_set in profile.plugins.items()
        }
    if profile.plugin_config:
        document["pluginConfig"] = [
            {"name": name, "args": args} for name, args in profile.plugin_config.items()
        ]
    return document


def _plugin_set(plugin_set: PluginSet) -> dict[str, Any]:
    document: dict[str, Any] = {}
    if plugin_set.enabled:
        document["enabled"] = [_plugin(ref) for ref in plugin_set.enabled]
    if plugin_set.disabled:
        document["disabled"] = [_plugin(ref) for ref in plugin_set.disabled]
    return document


def _plugin(ref: PluginRef) -> dict[str, Any]:
    if ref.weight is None:
        return {"name": ref.name}
    return {"name": ref.name, "weight": ref.weight}
