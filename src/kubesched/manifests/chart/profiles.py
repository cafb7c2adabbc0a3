"""The defaults of the chart's scheduling values, from the config it is made from: one plain
profile as `schedulerName` (any other profiles as the config file has them), the Lease with
the names the chart fills in left empty, and the other config fields that differ from the
defaults (kubesched fills in the rest)."""

from __future__ import annotations

import dataclasses
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.dump import to_document
from kubesched.manifests.options import ManifestOptions

_IN_FILE_ONLY = ("apiVersion", "kind", "leaderElection", "profiles")


def profile_values(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """schedulerName, plugins, pluginConfig and profiles."""
    first = config.profiles[0]
    plain = dataclasses.replace(
        KubeSchedulerConfiguration().profiles[0], scheduler_name=first.scheduler_name
    )
    single = len(config.profiles) == 1 and first == plain
    return {
        "schedulerName": first.scheduler_name,
        "plugins": {},
        "pluginConfig": [],
        "profiles": [] if single else to_document(config)["profiles"],
    }


def election_values(config: KubeSchedulerConfiguration, options: ManifestOptions) -> dict[str, Any]:
    """leaderElection, its Lease name and namespace empty where the chart's defaults match."""
    election = dict(to_document(config)["leaderElection"])
    if election["resourceNamespace"] == options.namespace:
        election["resourceNamespace"] = ""
    if election["resourceName"] == config.profiles[0].scheduler_name:
        election["resourceName"] = ""
    return election


def other_fields(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """The fields of the config file besides profiles and leader election that differ
    from the defaults."""
    document, defaults = to_document(config), to_document(KubeSchedulerConfiguration())
    return {
        key: value
        for key, value in document.items()
        if key not in _IN_FILE_ONLY and value != defaults.get(key)
    }
