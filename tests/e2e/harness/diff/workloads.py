"""The cluster-wide PriorityClasses and the namespaced Services, controllers and PDB of a
random scenario (their selectors drive default topology spreading and preemption)."""

from __future__ import annotations

from typing import Any

from tests.e2e.harness.diff.pods import Context

PRIORITY_CLASSES = {"parity-low": -5, "parity-high": 1000}


def priority_classes() -> list[dict[str, Any]]:
    """The PriorityClasses scenarios use (cluster-wide, created once)."""
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        for name, value in PRIORITY_CLASSES.items()
    ]


def workloads(ctx: Context) -> list[dict[str, Any]]:
    """Services and controllers in the first namespace (their selectors drive default
    spreading), and a PDB over the batch pods (preemption avoids breaking it)."""
    ns = ctx.namespaces[0]
    template = {
        "metadata": {"labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "pause"}]},
    }

    def meta(name: str) -> dict[str, Any]:
        return {"name": name, "namespace": ns}

    def templated(app: str) -> dict[str, Any]:
        return {**template, "metadata": {"labels": {"app": app}}}

    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": meta("web"),
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": meta("web"),
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "web"}},
                "template": templated("web"),
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": meta("db"),
            "spec": {
                "replicas": 0,
                "serviceName": "db",
                "selector": {
                    "matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]
                },
                "template": templated("db"),
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": meta("cache"),
            "spec": {"replicas": 0, "selector": {"app": "cache"}, "template": templated("cache")},
        },
    ]
    if ctx.rng.random() < 0.3:
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": meta("batch"),
                "spec": {"selector": {"app": "batch"}, "ports": [{"port": 81}]},
            }
        )
    if ctx.rng.random() < 0.5:
        objects.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": meta("batch"),
                "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "batch"}}},
            }
        )
    return objects
