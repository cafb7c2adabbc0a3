"""`values.yaml`: the chart's default values, those of the config and options it is made
from, each key with the comment a chart user reads."""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.dump import to_document
from kubesched.manifests.options import ManifestOptions

_IN_FILE_ONLY = ("apiVersion", "kind", "leaderElection", "profiles")
_DOCS = {
    "name": "Name of the namespaced objects; empty: the first profile's schedulerName.",
    "image": "The kubesched image (Dockerfile; docs/deploying.md shows how to build and push it).\n"
    "The default is the name `docker build -t kubesched:<version> .` gives: on no registry.",
    "imagePullSecrets": "Secrets (names, in the release namespace) to pull the image.",
    "replicas": "Replicas sharing one Lease: one schedules, the others stand by.",
    "schedulerName": "The profile of pods with `spec.schedulerName` equal to this (one profile;\n"
    "`profiles` below replaces schedulerName, plugins and pluginConfig).",
    "plugins": "That profile's `plugins` (KubeSchedulerConfiguration v1).",
    "pluginConfig": "That profile's `pluginConfig`.",
    "profiles": "Several profiles, as in a KubeSchedulerConfiguration; empty: the one above.",
    "leaderElection": "Leader election: the Lease of its own (never kube-system/kube-scheduler);\n"
    "resourceName empty: the schedulerName; resourceNamespace empty: the release namespace.",
    "config": "Any other KubeSchedulerConfiguration field (parallelism, podMaxBackoffSeconds...).",
    "pluginModules": "Python modules registering out-of-tree plugins (--plugin-module).",
    "verbosity": "Log verbosity (-v).",
    "loggingFormat": "text or json.",
    "extraArgs": "More command-line flags of kubesched (kube-scheduler's flags).",
    "rbac": "preemption: null: grant pod deletion and reading PodDisruptionBudgets exactly when\n"
    "a profile runs DefaultPreemption (on by default); true/false to force.",
    "resources": "The container's resources; no CPU limit: throttling stalls Lease renewals.",
    "priorityClassName": "The pods' priority class, e.g. system-cluster-critical.",
    "nodeSelector": "The pods' nodeSelector.",
    "tolerations": "The pods' tolerations (e.g. to run on control-plane nodes).",
    "affinity": "The pods' affinity; empty: prefer one replica per node.",
    "podDisruptionBudget": "A PodDisruptionBudget (maxUnavailable: 1) for the replicas.",
    "service": "A Service for the metrics port (HTTPS 10259, delegated authn/authz).",
    "serviceMonitor": "A ServiceMonitor (Prometheus Operator) scraping that Service with\n"
    "Prometheus' token, which must be allowed `get` on the non-resource URL /metrics.",
}


def default_values(
    config: KubeSchedulerConfiguration, options: ManifestOptions, *, app_version: str
) -> dict[str, Any]:
    """The values for which the chart renders what `kubesched manifests` prints."""
    repository, _, tag = options.image.rpartition(":")
    return {
        "name": options.name,
        "image": {
            "repository": repository or options.image,
            "tag": "" if tag == app_version else tag,
            "pullPolicy": options.image_pull_policy,
        },
        "imagePullSecrets": list(options.image_pull_secrets),
        "replicas": options.replicas,
        **_profiles(config),
        "leaderElection": _election(config, options),
        "config": _other_fields(config),
        "pluginModules": list(config.plugin_modules),
        "verbosity": config.verbosity,
        "loggingFormat": config.logging_format,
        "extraArgs": [],
        "rbac": {"preemption": options.preemption},
        "resources": options.resources,
        "priorityClassName": options.priority_class_name,
        "nodeSelector": options.node_selector,
        "tolerations": list(options.tolerations),
        "affinity": options.affinity or {},
        "podDisruptionBudget": {"enabled": options.disruption_budget},
        "service": {"enabled": options.service},
        "serviceMonitor": {"enabled": options.service_monitor},
    }


def values_yaml(values: dict[str, Any]) -> str:
    """The values as YAML, a comment before each key."""
    parts = []
    for key, value in values.items():
        comment = "\n".join(f"# {line}" for line in _DOCS[key].splitlines())
        parts.append(comment + "\n" + yaml.safe_dump({key: value}, sort_keys=False))
    return "\n".join(parts)


def _profiles(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """One plain profile as schedulerName; any other profiles as the config file has them."""
    first = config.profiles[0]
    plain = dataclasses.replace(
        KubeSchedulerConfiguration().profiles[0], scheduler_name=first.scheduler_name
    )
    if len(config.profiles) == 1 and first == plain:
        return {
            "schedulerName": first.scheduler_name,
            "plugins": {},
            "pluginConfig": [],
            "profiles": [],
        }
    profiles = to_document(config)["profiles"]
    return {
        "schedulerName": first.scheduler_name,
        "plugins": {},
        "pluginConfig": [],
        "profiles": profiles,
    }


def _election(config: KubeSchedulerConfiguration, options: ManifestOptions) -> dict[str, Any]:
    election = dict(to_document(config)["leaderElection"])
    if election["resourceNamespace"] == options.namespace:
        election["resourceNamespace"] = ""
    if election["resourceName"] == config.profiles[0].scheduler_name:
        election["resourceName"] = ""
    return election


def _other_fields(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """The fields of the config file besides profiles and leader election that differ
    from the defaults (kubesched fills in the rest)."""
    document, defaults = to_document(config), to_document(KubeSchedulerConfiguration())
    return {
        key: value
        for key, value in document.items()
        if key not in _IN_FILE_ONLY and value != defaults.get(key)
    }
