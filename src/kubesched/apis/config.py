"""The completed, validated configuration: frozen dataclasses that only `config` builds and
the framework reads.

Mirrors `KubeSchedulerConfiguration` (kubescheduler.config.k8s.io/v1). Field names are the
snake_case of the YAML names. Plugin sets are kept as the user wrote them; the framework
merges them with the default plugins (as upstream's defaulting does) when it builds a profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.apis.extenders import Extender

DEFAULT_SCHEDULER_NAME = "kubesched"
# kube-scheduler's own names: its profile serves pods with this schedulerName (and pods with
# none), and its replicas elect a leader through this Lease. kubesched stays away from both
# unless one of its profiles is named `default-scheduler` (it then replaces kube-scheduler).
UPSTREAM_DEFAULT_SCHEDULER_NAME = "default-scheduler"
UPSTREAM_LEASE_NAMESPACE = "kube-system"
UPSTREAM_LEASE_NAME = "kube-scheduler"

MULTI_POINT = "multiPoint"
# `disabled: [{name: "*"}]` drops every default plugin of an extension point.
WILDCARD = "*"
EXTENSION_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
    MULTI_POINT,
)

PLACEMENT_POINTS = ("placementGenerate", "placementScore")
"""The `TopologyAwareWorkloadScheduling` extension points a profile may list plugins at
(besides multiPoint), as kube-scheduler v1.37's `plugins.placementGenerate`/`placementScore`."""
WORKLOAD_EXTENSION_POINTS = (*PLACEMENT_POINTS, "podGroupPostFilter")
"""kube-scheduler v1.37's extension points of workload-aware (gang) scheduling: accepted in a
file; `podGroupPostFilter` is refused when it enables plugins (DefaultPreemption is kubesched's
only pod-group PostFilter, run when the profile enables it)."""


@dataclass(frozen=True, slots=True)
class PluginRef:
    """One entry of an `enabled`/`disabled` list; `weight` only matters for score plugins."""

    name: str
    weight: int | None = None


@dataclass(frozen=True, slots=True)
class PluginSet:
    """`enabled` plugins run after the defaults of their extension point; `disabled` removes
    default plugins (`*` removes all of them)."""

    enabled: tuple[PluginRef, ...] = ()
    disabled: tuple[PluginRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Profile:
    """One scheduler name with its plugins. `plugins` maps an extension point name from
    `EXTENSION_POINTS` (YAML spelling, e.g. "preFilter") to the user's PluginSet."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: dict[str, PluginSet] = field(default_factory=dict)
    plugin_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    dra_workload_resource_claims: bool = False
    """The `DRAWorkloadResourceClaims` feature gate (beta, off, needs `GenericWorkload`) is
    on: DynamicResources reserves a claim a PodGroup declares for the PodGroup, shared by
    its members."""
    generic_workload: bool = False
    """The `GenericWorkload` feature gate is on: GangScheduling is a default plugin (the last
    of multiPoint, as upstream) and scheduling.k8s.io PodGroups are scheduled as groups."""
    topology_aware_workload_scheduling: bool = False
    """The `TopologyAwareWorkloadScheduling` feature gate (alpha, needs `GenericWorkload`)
    is on: TopologyPlacementGenerator and PodGroupPodsCount are default plugins and a pod
    group is placed within one of the placements they generate and score."""
    composite_pod_group: bool = False
    """The `CompositePodGroup` feature gate (alpha, needs both gates above) is on: a PodGroup's
    `spec.parentCompositePodGroupName` is read and its tree is queued and placed as one."""


@dataclass(frozen=True, slots=True)
class LeaderElection:
    """`leaderElection` (component-base LeaderElectionConfiguration); durations in seconds."""

    leader_elect: bool = True
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    resource_lock: str = "leases"
    # Empty means "default": the first profile's scheduler name / the pod's namespace
    # in a cluster, else kube-system. `config` fills them in when it completes the config.
    resource_name: str = ""
    resource_namespace: str = ""


JSON_CONTENT_TYPE = "application/json"
PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
CONTENT_TYPES = (PROTOBUF_CONTENT_TYPE, JSON_CONTENT_TYPE)
"""`clientConnection.contentType`s kubesched speaks; protobuf, kube-scheduler's default, for
the Binding and Event bodies it writes on every pod (`kubesched.kube.protobuf`)."""


@dataclass(frozen=True, slots=True)
class ClientConnection:
    """`clientConnection` plus `--master` (a flag only, as in kube-scheduler)."""

    kubeconfig: str = ""
    master: str = ""
    qps: float = 50.0
    burst: int = 100
    content_type: str = PROTOBUF_CONTENT_TYPE
    accept_content_types: str = ""


@dataclass(frozen=True, slots=True)
class KubeSchedulerConfiguration:
    """The completed configuration: the file's fields (with upstream's v1 defaults, the Lease
    name and namespace filled in) plus the command-line-only settings below."""

    profiles: tuple[Profile, ...] = (Profile(),)
    leader_election: LeaderElection = field(default_factory=LeaderElection)
    client_connection: ClientConnection = field(default_factory=ClientConnection)
    parallelism: int = 16
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: float = 1.0
    pod_max_backoff_seconds: float = 10.0
    extenders: tuple[Extender, ...] = ()
    """The `extenders:` of the file, in the order given (`kubesched.apis.extenders`)."""
    # Wait to fill the informer caches until this replica leads (slower failover, less memory).
    delay_cache_until_active: bool = False
    # Serving and the rest of the command line (not part of the YAML file).
    secure_port: int = 10259
    bind_address: str = "0.0.0.0"  # noqa: S104 - kube-scheduler's default
    cert_dir: str = ""  # empty: the serving layer picks its default directory
    tls_cert_file: str = ""
    tls_private_key_file: str = ""
    plugin_modules: tuple[str, ...] = ()
    # Paths served on the secure port without delegated authorization (comma lists allowed).
    authorization_always_allow_paths: tuple[str, ...] = ("/healthz", "/readyz", "/livez")
    verbosity: int = 0
    logging_format: str = "text"
    vmodule: tuple[str, ...] = ()
    """`--vmodule` items (`pattern=N`, comma lists allowed)."""
    # The rest of kube-scheduler's command line.
    authentication_kubeconfig: str = ""
    """kubeconfig for TokenReviews of callers of the secure port; empty: the main one."""
    authorization_kubeconfig: str = ""
    """kubeconfig for SubjectAccessReviews of callers; empty: the main one."""
    authentication_cache_ttl: float = 10.0
    authorization_allowed_ttl: float = 10.0
    authorization_denied_ttl: float = 10.0
    client_ca_file: str = ""
    """CA of the client certificates that authenticate callers of the secure port."""
    tls_min_version: str = "VersionTLS12"
    tls_cipher_suites: tuple[str, ...] = ()
    """IANA names (comma lists allowed); empty: Python's defaults."""
    permit_address_sharing: bool = False
    permit_port_sharing: bool = False
    feature_gates: tuple[str, ...] = ()
    """`--feature-gates` items as given (`A=true,B=false`)."""
    disabled_metrics: tuple[str, ...] = ()
    """Metric families not exported (comma lists allowed)."""
    pod_max_in_unschedulable_pods_seconds: float = 300.0
    shadow_scheduler_name: str = ""
    """`--shadow-scheduler-name`: shadow mode. kubesched decides, for each pod of this other
    scheduler, where its one profile would put it, compares with where that scheduler put it,
    and writes nothing to the cluster (`kubesched.scheduler.shadow`); empty: schedule."""

    @property
    def generic_workload(self) -> bool:
        """The `GenericWorkload` feature gate is on (native PodGroups, GangScheduling)."""
        return any(profile.generic_workload for profile in self.profiles)

    @property
    def composite_pod_group(self) -> bool:
        """The `CompositePodGroup` feature gate is on (CompositePodGroups are watched)."""
        return any(profile.composite_pod_group for profile in self.profiles)

    @property
    def scheduler_names(self) -> tuple[str, ...]:
        """The profiles' scheduler names: the spec.schedulerName values kubesched serves."""
        return tuple(profile.scheduler_name for profile in self.profiles)

    @property
    def lease(self) -> str:
        """The leader-election Lease as `namespace/name`."""
        election = self.leader_election
        return f"{election.resource_namespace}/{election.resource_name}"

    @property
    def uses_default_scheduler_lease(self) -> bool:
        """True when the Lease is kube-scheduler's own `kube-system/kube-scheduler`."""
        election = self.leader_election
        return (election.resource_namespace, election.resource_name) == (
            UPSTREAM_LEASE_NAMESPACE,
            UPSTREAM_LEASE_NAME,
        )

    @property
    def replaces_default_scheduler(self) -> bool:
        """True when a profile serves `default-scheduler`, in kube-scheduler's place."""
        return UPSTREAM_DEFAULT_SCHEDULER_NAME in self.scheduler_names
