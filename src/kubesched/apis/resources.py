"""A resource a cluster-aware plugin reads, by group/version/resource (pure data: the
framework, the server, `kubesched manifests` and `doctor` all read it; see
`kubesched.framework.resources`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """One API resource, e.g. `ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "podgroups")`."""

    group: str
    """"" for the core group (pods, configmaps, services, ...)."""
    version: str
    resource: str
    """The plural, lower-case name used in URLs and RBAC (`configmaps`, `podgroups`)."""
    namespaced: bool = True
    label_indexes: tuple[str, ...] = field(default=(), compare=False)
    """Label keys to index by (`lister.by_label(key, value)` is then a dict look-up)."""
    writes_status: bool = field(default=False, compare=False)
    """The plugin patches `<resource>/status` (`handle.patch_status`)."""
    writes: bool = field(default=False, compare=False)
    """The plugin creates, patches and deletes the objects and patches their status
    (`handle.create_object`, `patch_object`, `delete_object`): RBAC grants `create`,
    `delete`, `patch` and `update` on the resource and `patch`, `update` on its `/status`."""
    event_name: str = field(default="", compare=False)
    """The resource name its cluster events carry when upstream has a fixed one for it
    (`resource.k8s.io/ResourceClaim`); empty: derived (see `event_resource`)."""
    keep: tuple[str, ...] = field(default=(), compare=False)
    """The parts of each object's body the informer keeps, as dotted paths (`spec.selector`),
    so a resource read for one field costs little memory; empty: the whole body. The
    metadata is always kept."""

    @property
    def path(self) -> str:
        """The collection's URL path across all namespaces (`/apis/g/v/res`)."""
        if self.group:
            return f"/apis/{self.group}/{self.version}/{self.resource}"
        return f"/api/{self.version}/{self.resource}"

    def object_path(self, *, namespace: str, name: str) -> str:
        """The URL path of one object."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        scope = f"/namespaces/{namespace}" if self.namespaced and namespace else ""
        return f"{base}{scope}/{self.resource}/{name}"

    @property
    def event_resource(self) -> str:
        """The name its cluster events carry, upstream's GVK string for custom resources
        (`podgroups.v1alpha1.scheduling.x-k8s.io`; `configmaps` for core ones), or the
        `event_name` given."""
        if self.event_name:
            return self.event_name
        if not self.group:
            return self.resource
        return f"{self.resource}.{self.version}.{self.group}"

    def same_resource(self, other: ResourceSpec) -> bool:
        return (self.group, self.version, self.resource) == (
            other.group,
            other.version,
            other.resource,
        )


PODS = ResourceSpec("", "v1", "pods")
"""Core pods (served from the scheduler's own pod informer)."""

NAMESPACES = ResourceSpec("", "v1", "namespaces", namespaced=False)
"""Namespaces, for their labels (InterPodAffinity's `namespaceSelector`s)."""

_SELECTOR = ("spec.selector",)
SERVICES = ResourceSpec("", "v1", "services", keep=_SELECTOR)
REPLICATION_CONTROLLERS = ResourceSpec("", "v1", "replicationcontrollers", keep=_SELECTOR)
REPLICA_SETS = ResourceSpec("apps", "v1", "replicasets", keep=_SELECTOR)
STATEFUL_SETS = ResourceSpec("apps", "v1", "statefulsets", keep=_SELECTOR)
DEFAULT_SPREADING = (SERVICES, REPLICATION_CONTROLLERS, REPLICA_SETS, STATEFUL_SETS)
"""What default topology spreading reads, their selectors (upstream `helper.DefaultSelector`:
the Service, ReplicationController, ReplicaSet and StatefulSet listers)."""

POD_DISRUPTION_BUDGETS = ResourceSpec(
    "policy",
    "v1",
    "poddisruptionbudgets",
    keep=("spec.selector", "status.disruptionsAllowed", "status.disruptedPods"),
)
"""PodDisruptionBudgets, read by preemption (DefaultPreemption)."""

BUILT_IN = (PODS, NAMESPACES, *DEFAULT_SPREADING, POD_DISRUPTION_BUDGETS)
"""The core resources in-tree plugins read. kubesched's fixed RBAC rules grant reading them
(`kubesched.manifests.rbac`: PodDisruptionBudgets when a profile preempts), so a plugin
declaring one adds no rule."""


def built_in(spec: ResourceSpec) -> bool:
    """Whether `spec` is one of `BUILT_IN`."""
    return any(spec.same_resource(known) for known in BUILT_IN)


SCHEDULING_PODGROUPS = ResourceSpec("scheduling.k8s.io", "v1beta1", "podgroups", writes_status=True)
"""kube-scheduler's native PodGroups (the `GenericWorkload` feature gate): read by
GangScheduling and the pod-group cycle, whose `PodGroupInitiallyScheduled` condition is
written to their status."""

SCHEDULING_COMPOSITEPODGROUPS = ResourceSpec("scheduling.k8s.io", "v1alpha3", "compositepodgroups")
"""kube-scheduler's CompositePodGroups (the alpha `CompositePodGroup` feature gate): groups of
PodGroups, read by GangScheduling and the pod-group cycle (upstream writes no status to
them)."""
