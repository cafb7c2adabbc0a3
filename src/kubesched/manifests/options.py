"""What `kubesched manifests` can change besides the scheduler's own config, and the names
of the objects it generates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.resources import ResourceSpec
from kubesched.config.validation import is_dns_label
from kubesched.errors import FatalError

DEFAULT_NAMESPACE = "kubesched-system"
APP_VERSION = "0.1.0"
"""kubesched's version (pyproject), the default image tag and the chart's appVersion."""
DEFAULT_IMAGE = f"kubesched:{APP_VERSION}"
"""The image `make image` and `docker build -t kubesched:<version> .` name, which no registry
serves: the default of `kubesched manifests --image` and of the chart's image.repository/tag."""


def unpublished_image_notice(image: str) -> str | None:
    """The one line that says `image` was never pushed anywhere and how to push it (None for
    any other image): the default is a local name only."""
    if image != DEFAULT_IMAGE:
        return None
    return (
        f"the image {DEFAULT_IMAGE} is on no registry: build and push it from a kubesched "
        "checkout (`make image-push REGISTRY=registry.example.com/kubesched`, docs/deploying.md) "
        "and pass the reference it prints to --image"
    )


DEFAULT_REPLICAS = 2
DEFAULT_PULL_POLICY = "IfNotPresent"
PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def default_resources() -> dict[str, Any]:
    """Requests sized for a small cluster; no CPU limit: throttling would stall the
    scheduling loop and the Lease renewals."""
    return {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "1Gi"}}


METRICS_READER_SUFFIX = "-metrics-reader"
TOKEN_SECRET_SUFFIX = "-token"  # noqa: S105 - a name suffix, no secret

# Namespaces every cluster has: never emitted as objects (`kubectl delete -f` would remove them).
BUILT_IN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


class ManifestError(FatalError, ValueError):
    """The options cannot give working manifests; the message says the fix in one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestOptions:
    """How to deploy kubesched; the scheduler's behaviour itself is the config's."""

    namespace: str = DEFAULT_NAMESPACE
    """Namespace of the Deployment, its ServiceAccount and ConfigMap (created unless built in)."""

    name: str = ""
    """Name of the namespaced objects; empty: the first profile's scheduler name. Cluster-wide
    objects are called `kubesched:<namespace>:<name>`, so several deployments never clash."""

    image: str = DEFAULT_IMAGE
    """The container image, e.g. `registry.example.com/kubesched:0.1.0`."""

    replicas: int = DEFAULT_REPLICAS
    """Replicas of the Deployment; they share the one Lease (one leads, the others stand by)."""

    image_pull_policy: str = DEFAULT_PULL_POLICY
    """`Always`, `IfNotPresent` or `Never`."""

    image_pull_secrets: tuple[str, ...] = ()
    """Secrets (in `namespace`) to pull the image from a private registry."""

    resources: dict[str, Any] = field(default_factory=default_resources)
    """The container's `resources` (requests and limits)."""

    priority_class_name: str = ""
    """The pods' priorityClassName, e.g. `system-cluster-critical`; empty: none."""

    node_selector: dict[str, str] = field(default_factory=dict)
    """The pods' nodeSelector."""

    tolerations: tuple[dict[str, Any], ...] = ()
    """The pods' tolerations (e.g. to run on control-plane nodes)."""

    affinity: dict[str, Any] | None = None
    """The pods' affinity; None: prefer one replica per node (podAntiAffinity)."""

    disruption_budget: bool = True
    """A PodDisruptionBudget (maxUnavailable 1): a node drain never stops every replica."""

    service: bool = True
    """A Service for the metrics port (HTTPS, delegated authn/authz as kube-scheduler)."""

    service_monitor: bool = False
    """A ServiceMonitor (monitoring.coreos.com/v1) for the Prometheus Operator, with the
    identity it scrapes as (`kubesched.manifests.exposure.metrics_reader_objects`)."""

    preemption: bool | None = None
    """Grant what only preemption needs: `delete` on pods (evicting lower-priority victims)
    and reading PodDisruptionBudgets. None (the default): exactly when a profile has
    DefaultPreemption enabled, as it is by default (`kubesched.manifests.preemption`)."""
    plugin_resources: tuple[ResourceSpec, ...] = ()
    """What the enabled plugins read (`kubesched.plugins.config_resources(config)`):
    get/list/watch each, and patch its status when a plugin writes it."""
    extra_rules: tuple[dict[str, Any], ...] = ()
    """More PolicyRules for the ClusterRole, as they are (the chart's `rbac.extraRules`: with
    `--helm-chart`, the rules of what plugin modules declare, which a template cannot derive)."""
    with_crds: bool = False
    """Also emit the CustomResourceDefinitions of the CRDs kubesched's plugins read
    (scheduler-plugins' ElasticQuota and PodGroup, for CapacityScheduling and Coscheduling),
    for clusters that lack them."""


@dataclass(frozen=True, slots=True)
class Names:
    """The names of every generated object."""

    namespace: str
    name: str
    lease_namespace: str
    lease_name: str

    @property
    def cluster_wide(self) -> str:
        """ClusterRole and ClusterRoleBinding name, unique per namespace and deployment."""
        return f"kubesched:{self.namespace}:{self.name}"

    @property
    def auth_delegator_binding(self) -> str:
        """The ClusterRoleBinding to `system:auth-delegator` (delegated auth of /metrics)."""
        return f"{self.cluster_wide}:auth-delegator"

    @property
    def lease_role(self) -> str:
        """The Role and RoleBinding in the Lease's namespace."""
        return f"{self.name}-leader-election"

    @property
    def config_map(self) -> str:
        """The ConfigMap holding the KubeSchedulerConfiguration."""
        return f"{self.name}-config"

    @property
    def metrics_reader(self) -> str:
        """The ServiceAccount whose token the ServiceMonitor presents to scrape /metrics."""
        return f"{self.name}{METRICS_READER_SUFFIX}"

    @property
    def metrics_reader_token(self) -> str:
        """The Secret (type kubernetes.io/service-account-token) holding that token."""
        return f"{self.metrics_reader}{TOKEN_SECRET_SUFFIX}"

    @property
    def metrics_reader_role(self) -> str:
        """The ClusterRole and ClusterRoleBinding letting that account `get` /metrics."""
        return f"{self.cluster_wide}{METRICS_READER_SUFFIX.replace('-', ':', 1)}"


def names_for(config: KubeSchedulerConfiguration, options: ManifestOptions) -> Names:
    """The object names, or ManifestError when an option is not usable."""
    name = options.name or config.profiles[0].scheduler_name
    election = config.leader_election
    names = Names(
        namespace=options.namespace,
        name=name,
        lease_namespace=election.resource_namespace,
        lease_name=election.resource_name,
    )
    _check(config, options, names)
    return names


def check_namespace(namespace: str) -> None:
    """ManifestError unless `namespace` can name a namespace."""
    if not is_dns_label(namespace):
        raise ManifestError(
            f"--namespace: {namespace!r} is not a valid namespace name "
            "(lowercase letters, digits and '-', at most 63)"
        )


def _check(config: KubeSchedulerConfiguration, options: ManifestOptions, names: Names) -> None:
    check_namespace(names.namespace)
    if not is_dns_label(names.name):
        raise ManifestError(
            f"--name: {names.name!r} is not usable as a Deployment name and label (lowercase "
            "letters, digits and '-', at most 63); pass --name"
        )
    if not options.image or any(char.isspace() for char in options.image):
        raise ManifestError(f"--image: {options.image!r} is not an image reference")
    if options.image_pull_policy not in PULL_POLICIES:
        raise ManifestError(
            f"--image-pull-policy: {options.image_pull_policy!r} is not one of "
            + ", ".join(PULL_POLICIES)
        )
    if options.replicas < 1:
        raise ManifestError(f"--replicas: {options.replicas} must be at least 1")
    if options.replicas > 1 and not config.leader_election.leader_elect:
        raise ManifestError(
            f"--replicas={options.replicas} with leader election off would run "
            f"{options.replicas} active schedulers placing the same pods; "
            "keep --leader-elect=true or use --replicas=1"
        )
