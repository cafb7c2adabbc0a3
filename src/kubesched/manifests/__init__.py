"""`kubesched manifests`: pure functions from a completed config to the objects that deploy
kubesched, and from those objects to YAML. Nothing here talks to a cluster.

    config = load_config(["--scheduler-name=my-scheduler"], environ={"POD_NAMESPACE": ns}).config
    objects = build_manifests(config, ManifestOptions(namespace=ns))
    print(to_yaml(objects))          # kubectl apply -f -

The objects, in apply order: with `with_crds`, the CRDs kubesched's plugins read
(scheduler-plugins' PodGroup), Namespace(s), ServiceAccount, ClusterRole, ClusterRoleBindings
(its own role and `system:auth-delegator`), the Lease Role and RoleBinding (in the Lease's
namespace), the ConfigMap with the KubeSchedulerConfiguration, the Deployment, its
PodDisruptionBudget, the Service of its metrics port and (when asked) a ServiceMonitor with
the identity it scrapes as (a ServiceAccount, its ClusterRole for `/metrics`, the binding and
the token Secret).
`kubesched.manifests.rbac` explains every permission.
"""

from __future__ import annotations

from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import dump_config
from kubesched.config.validation import default_scheduler_conflicts
from kubesched.manifests.crds import crd_objects
from kubesched.manifests.exposure import (
    disruption_budget,
    metrics_reader_objects,
    metrics_service,
    service_monitor,
)
from kubesched.manifests.meta import metadata
from kubesched.manifests.options import (
    BUILT_IN_NAMESPACES,
    DEFAULT_IMAGE,
    DEFAULT_NAMESPACE,
    DEFAULT_REPLICAS,
    ManifestError,
    ManifestOptions,
    Names,
    check_namespace,
    names_for,
)
from kubesched.manifests.preemption import preemption_enabled, volumes_enabled
from kubesched.manifests.rbac import rbac_objects
from kubesched.manifests.render import to_yaml
from kubesched.manifests.shadow import shadow_manifests
from kubesched.manifests.workload import config_map, deployment

__all__ = [
    "DEFAULT_IMAGE",
    "DEFAULT_NAMESPACE",
    "DEFAULT_REPLICAS",
    "ManifestError",
    "ManifestOptions",
    "build_manifests",
    "check_namespace",
    "to_yaml",
]


def build_manifests(
    config: KubeSchedulerConfiguration, options: ManifestOptions
) -> list[dict[str, Any]]:
    """The objects deploying `config` (a completed config, its Lease name and namespace
    filled in); ManifestError when they could not work. With `shadow_scheduler_name`, a
    shadow's objects (`kubesched.manifests.shadow`: read-only RBAC, no Lease, one replica)."""
    if config.shadow_scheduler_name:
        return shadow_manifests(config, options, build_manifests)
    conflicts = default_scheduler_conflicts(config)
    if conflicts:
        raise ManifestError(conflicts[0])
    names = names_for(config, options)
    config_text = dump_config(config)
    crds = crd_objects() if options.with_crds else []
    return [
        *crds,
        *_namespaces(names, leader_elect=config.leader_election.leader_elect),
        *rbac_objects(
            names,
            leader_elect=config.leader_election.leader_elect,
            preemption=preemption_enabled(config)
            if options.preemption is None
            else options.preemption,
            resources=options.plugin_resources,
            volumes=volumes_enabled(config),
            extra=options.extra_rules,
        ),
        config_map(names, config_text),
        deployment(config, options, names, config_text=config_text),
        *_exposure(config, options, names),
    ]


def _exposure(
    config: KubeSchedulerConfiguration, options: ManifestOptions, names: Names
) -> list[dict[str, Any]]:
    """The PodDisruptionBudget, the metrics Service and the ServiceMonitor, as asked."""
    objects = []
    if options.disruption_budget:
        objects.append(disruption_budget(names))
    if options.service or options.service_monitor:
        objects.append(metrics_service(names, port=config.secure_port))
    if options.service_monitor:
        objects += [*metrics_reader_objects(names), service_monitor(names)]
    return objects


def _namespaces(names: Names, *, leader_elect: bool) -> list[dict[str, Any]]:
    """kubesched's namespace and the Lease's, unless built in (or the Lease is not used)."""
    wanted = [names.namespace]
    if leader_elect and names.lease_namespace != names.namespace:
        wanted.append(names.lease_namespace)
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata(namespace, names)}
        for namespace in wanted
        if namespace not in BUILT_IN_NAMESPACES
    ]
