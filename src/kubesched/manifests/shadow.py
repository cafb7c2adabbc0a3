"""`kubesched manifests --shadow-scheduler-name=NAME`: the objects deploying a shadow
(`kubesched run --shadow-scheduler-name`, docs/replay.md), which writes nothing.

They are the usual objects, changed so that nothing can write either:

* the ClusterRole only reads: every rule keeps its `get`/`list`/`watch` verbs and nothing else
  (no `pods/binding`, `pods/status`, events, pod deletion, claim or PodGroup writes), so the
  API server would refuse a write even if one left the process;
* no Lease Role and no Lease namespace: a shadow does not elect (nothing to fence);
* one replica: a shadow holds no Lease, so each replica would compare every pod (`--replicas`
  is ignored);
* the container runs with `--shadow-scheduler-name=NAME`.

`system:auth-delegator` stays bound: the secure port's TokenReviews and SubjectAccessReviews
(for /metrics) store nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.manifests.options import ManifestError, ManifestOptions, names_for

READ_VERBS = ("get", "list", "watch")
SHADOW_FLAG = "--shadow-scheduler-name"

Build = Callable[[KubeSchedulerConfiguration, ManifestOptions], list[dict[str, Any]]]


def shadow_manifests(
    config: KubeSchedulerConfiguration, options: ManifestOptions, build: Build
) -> list[dict[str, Any]]:
    """`build`'s objects for `config` without election, changed for a shadow of
    `config.shadow_scheduler_name` (see the module docstring)."""
    shadowed = config.shadow_scheduler_name
    election = dataclasses.replace(config.leader_election, leader_elect=False)
    plain = dataclasses.replace(config, shadow_scheduler_name="", leader_election=election)
    single = dataclasses.replace(options, replicas=1)
    objects = build(plain, single)
    own_role = names_for(plain, single).cluster_wide
    for obj in objects:
        if obj.get("kind") == "ClusterRole" and obj["metadata"]["name"] == own_role:
            obj["rules"] = read_only_rules(obj["rules"])
        elif obj.get("kind") == "Deployment":
            for container in obj["spec"]["template"]["spec"]["containers"]:
                container["args"].append(f"{SHADOW_FLAG}={shadowed}")
    return objects


def read_only_rules(rules: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each rule with its read verbs only; rules that grant none are dropped."""
    kept = []
    for rule in rules:
        verbs = [verb for verb in rule.get("verbs", ()) if verb in READ_VERBS]
        if verbs:
            kept.append({**rule, "verbs": verbs})
    return kept


def refuse_shadow_chart(config: KubeSchedulerConfiguration) -> None:
    """The chart's shadow mode is a value chosen at install (`shadow.schedulerName`), not
    a chart of its own: ManifestError naming it."""
    if config.shadow_scheduler_name:
        raise ManifestError(
            f"{SHADOW_FLAG} with --helm-chart: the chart's shadow mode is chosen at install; "
            "write the chart without the flag and install it with "
            f"--set shadow.schedulerName={config.shadow_scheduler_name}"
        )
