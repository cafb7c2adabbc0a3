"""The chart's values: every key with its default (those of the config and options the chart
is made from), its meaning and its schema (`spec` writes values.yaml, values.schema.json and
the README's table from this one tree)."""

from __future__ import annotations

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.flags import feature_gates
from kubesched.manifests import exposure
from kubesched.manifests.chart import monitoring
from kubesched.manifests.chart import schemas as s
from kubesched.manifests.chart.profiles import election_values, other_fields, profile_values
from kubesched.manifests.chart.shadow import shadow_values
from kubesched.manifests.chart.spec import Entry, Group, Leaf
from kubesched.manifests.chart.values_pod import container_values, placement_values, pod_values
from kubesched.manifests.options import PULL_POLICIES, ManifestOptions

LOGGING_FORMATS = ("text", "json")
_DURATION = s.string(pattern=s.GO_DURATION)


def value_tree(
    config: KubeSchedulerConfiguration, options: ManifestOptions, *, app_version: str
) -> tuple[Entry, ...]:
    """Every value of the chart, in values.yaml's order."""
    return (
        Leaf(
            key="name",
            default=options.name,
            doc="Name of the namespaced objects; empty: the first profile's schedulerName.",
            schema=s.optional_string(s.DNS_LABEL, max_length=63),
        ),
        _image(options, app_version=app_version),
        Leaf(
            key="imagePullSecrets",
            default=list(options.image_pull_secrets),
            doc="Secrets (names, in the release namespace) to pull the image.",
            schema=s.array(s.string(pattern=s.DNS_SUBDOMAIN)),
        ),
        Leaf(
            key="replicas",
            default=options.replicas,
            doc="Replicas sharing one Lease: one schedules, the others stand by.",
            schema=s.integer(minimum=1),
        ),
        *_scheduling(config),
        _leader_election(config, options),
        shadow_values(),
        *_lifecycle(),
        *_config_and_logging(config),
        Leaf(
            key="featureGates",
            default=feature_gates(config.feature_gates),
            doc="Feature gates (--feature-gates), e.g. GenericWorkload: true for native gang\n"
            "scheduling (the ClusterRole then grants scheduling.k8s.io PodGroups; with\n"
            "CompositePodGroup: true, groups of gangs, also CompositePodGroups).",
            schema=s.mapping(s.boolean()),
        ),
        Leaf(
            key="extraArgs",
            default=[],
            doc="More command-line flags of kubesched (kube-scheduler's flags), after those\n"
            "above; a --feature-gates here is read for the ClusterRole too.",
            schema=s.array(s.string()),
        ),
        _rbac(options),
        Group(
            key="serviceAccount",
            doc="kubesched's ServiceAccount (the RBAC above is bound to it).",
            children=(
                Leaf(
                    key="annotations",
                    default={},
                    doc="Its annotations (e.g. a cloud provider's workload identity).",
                    schema=s.string_map(),
                ),
            ),
        ),
        *pod_values(),
        *container_values(options),
        *placement_values(options),
        Group(
            key="podDisruptionBudget",
            doc="A PodDisruptionBudget (maxUnavailable: 1) for the replicas.",
            children=(_enabled(default=options.disruption_budget),),
        ),
        Group(
            key="service",
            doc="A Service for the metrics port (HTTPS 10259, delegated authn/authz).",
            children=(_enabled(default=options.service),),
        ),
        _service_monitor(options),
        *monitoring.values(),
    )


def _lifecycle() -> tuple[Group, Group]:
    """The config check before install and upgrade, and the Lease's namespace."""
    return (
        Group(
            key="configCheck",
            doc="Before helm installs or upgrades anything, a Job (a pre-install and pre-upgrade\n"
            "hook) runs the image's `kubesched --write-config-to` on the release's config, with\n"
            "the pods' arguments, volumes and environment: a wrong plugin name, plugin args or\n"
            "plugin module fails the install or upgrade and the running replicas keep theirs.",
            children=(
                Leaf(
                    key="enabled",
                    default=True,
                    doc="Run the check (it needs the image where the pods run).",
                    schema=s.boolean(),
                ),
            ),
        ),
        Group(
            key="namespace",
            doc="The Lease's namespace (leaderElection.resourceNamespace) when it is not the\n"
            "release namespace, which is Helm's (helm install --create-namespace).",
            children=(
                Leaf(
                    key="create",
                    default=False,
                    doc="Create it (helm uninstall then keeps it: helm.sh/resource-policy keep);\n"
                    "false: it must exist.",
                    schema=s.boolean(),
                ),
            ),
        ),
    )


def _rbac(options: ManifestOptions) -> Group:
    return Group(
        key="rbac",
        doc="The ClusterRole grants what the profiles and feature gates enable (as\n"
        "`kubesched manifests`): the volume plugins' objects, the PodGroups of Coscheduling\n"
        "and of the GenericWorkload gate, CapacityScheduling's ElasticQuotas, and\n"
        "preemption's; these values add to it.",
        children=(
            Leaf(
                key="preemption",
                default=options.preemption,
                doc="null: grant pod deletion and reading PodDisruptionBudgets exactly when\n"
                "a profile runs DefaultPreemption (on by default); true/false to force.",
                schema=s.nullable(s.boolean()),
            ),
            Leaf(
                key="extraRules",
                default=list(options.extra_rules),
                doc="More PolicyRules, for what plugin modules (pluginModules) declare they\n"
                "read: the chart cannot import them (`kubesched manifests --plugin-module=M\n"
                "--helm-chart=DIR` writes their rules here).",
                schema=s.array(s.POLICY_RULE),
            ),
        ),
    )


def _enabled(*, default: bool) -> Leaf:
    return Leaf(key="enabled", default=default, doc="Create it.", schema=s.boolean())


def _image(options: ManifestOptions, *, app_version: str) -> Group:
    repository, _, tag = options.image.rpartition(":")
    return Group(
        key="image",
        doc="The kubesched image (Dockerfile; docs/deploying.md shows how to build and push it).\n"
        "The default is the name `docker build -t kubesched:<version> .` gives: on no registry.",
        children=(
            Leaf(
                key="repository",
                default=repository or options.image,
                doc="Registry and repository of the image.",
                schema=s.string(pattern="^\\S+$"),
            ),
            Leaf(
                key="tag",
                default="" if tag == app_version else tag,
                doc="Its tag; empty: the chart's appVersion.",
                schema=s.optional_string(s.IMAGE_TAG),
            ),
            Leaf(
                key="digest",
                default="",
                doc="Its digest (sha256:...); when set, the image is repository@digest\n"
                "(the tag is not used).",
                schema=s.optional_string(s.DIGEST),
            ),
            Leaf(
                key="pullPolicy",
                default=options.image_pull_policy,
                doc="Always, IfNotPresent or Never.",
                schema=s.string(enum=PULL_POLICIES),
            ),
        ),
    )


def _scheduling(config: KubeSchedulerConfiguration) -> tuple[Entry, ...]:
    profile = profile_values(config)
    return (
        Leaf(
            key="schedulerName",
            default=profile["schedulerName"],
            doc="The profile of pods with `spec.schedulerName` equal to this (one profile;\n"
            "`profiles` below replaces schedulerName, plugins and pluginConfig).",
            schema=s.SCHEDULER_NAME,
        ),
        Leaf(
            key="plugins",
            default=profile["plugins"],
            doc="That profile's `plugins` (KubeSchedulerConfiguration v1).",
            schema=s.PLUGINS,
        ),
        Leaf(
            key="pluginConfig",
            default=profile["pluginConfig"],
            doc="That profile's `pluginConfig`.",
            schema=s.PLUGIN_CONFIG,
        ),
        Leaf(
            key="profiles",
            default=profile["profiles"],
            doc="Several profiles, as in a KubeSchedulerConfiguration; empty: the one above.",
            schema=s.PROFILES,
        ),
    )


def _leader_election(config: KubeSchedulerConfiguration, options: ManifestOptions) -> Group:
    election = election_values(config, options)
    return Group(
        key="leaderElection",
        doc="Leader election: the Lease of its own (never kube-system/kube-scheduler).",
        children=(
            Leaf(
                key="leaderElect",
                default=election["leaderElect"],
                doc="Elect a leader (needed for more than one replica).",
                schema=s.boolean(),
            ),
            Leaf(
                key="leaseDuration",
                default=election["leaseDuration"],
                doc="How long standbys wait for a Lease not renewed before taking it over;\n"
                "a Go duration (15s, 1m30s), as the two below. kubesched refuses at start\n"
                "what client-go refuses: leaseDuration > renewDeadline > 1.2 x retryPeriod.",
                schema=_DURATION,
            ),
            Leaf(
                key="renewDeadline",
                default=election["renewDeadline"],
                doc="How long the leader retries renewing before it stops leading.",
                schema=_DURATION,
            ),
            Leaf(
                key="resourceLock",
                default=election["resourceLock"],
                doc="The lock kind: only leases.",
                schema=s.string(enum=("leases",)),
            ),
            Leaf(
                key="resourceName",
                default=election["resourceName"],
                doc="The Lease's name; empty: the schedulerName.",
                schema=s.optional_string(s.DNS_SUBDOMAIN, max_length=253),
            ),
            Leaf(
                key="resourceNamespace",
                default=election["resourceNamespace"],
                doc="The Lease's namespace; empty: the release namespace (another one must\n"
                "exist, or set namespace.create).",
                schema=s.optional_string(s.DNS_LABEL, max_length=63),
            ),
            Leaf(
                key="retryPeriod",
                default=election["retryPeriod"],
                doc="How often to try to acquire or renew the Lease.",
                schema=_DURATION,
            ),
        ),
    )


def _config_and_logging(config: KubeSchedulerConfiguration) -> tuple[Leaf, ...]:
    return (
        Leaf(
            key="config",
            default=other_fields(config),
            doc="Any other KubeSchedulerConfiguration field (parallelism, podMaxBackoffSeconds,\n"
            "clientConnection...).",
            schema=s.CONFIG,
        ),
        Leaf(
            key="pluginModules",
            default=list(config.plugin_modules),
            doc="Python modules registering out-of-tree plugins (--plugin-module).",
            schema=s.array(s.string(pattern=s.PYTHON_MODULE)),
        ),
        Leaf(
            key="verbosity",
            default=config.verbosity,
            doc="Log verbosity (-v).",
            schema=s.integer(minimum=0),
        ),
        Leaf(
            key="loggingFormat",
            default=config.logging_format,
            doc="text (klog's) or json.",
            schema=s.string(enum=LOGGING_FORMATS),
        ),
    )


def _service_monitor(options: ManifestOptions) -> Group:
    return Group(
        key="serviceMonitor",
        doc="A ServiceMonitor (Prometheus Operator) scraping that Service over HTTPS with a\n"
        "ServiceAccount token (README: the token).",
        children=(
            _enabled(default=options.service_monitor),
            Leaf(
                key="labels",
                default={},
                doc="More labels of the ServiceMonitor: a Prometheus selects ServiceMonitors\n"
                "by label (kube-prometheus-stack: release: <its release name>).",
                schema=s.string_map(),
            ),
            Leaf(
                key="interval",
                default=exposure.SCRAPE_INTERVAL,
                doc="How often Prometheus scrapes (a Prometheus duration: 30s, 1m).",
                schema=s.string(pattern=s.PROMETHEUS_DURATION, min_length=1),
            ),
            Leaf(
                key="scrapeTimeout",
                default="",
                doc="How long a scrape may take; empty: Prometheus' own (at most interval).",
                schema=s.string(pattern=s.PROMETHEUS_DURATION),
            ),
            _authorization(),
        ),
    )


def _authorization() -> Group:
    credentials = Group(
        key="credentials",
        doc="The Secret key holding the bearer token.",
        children=(
            Leaf(
                key="name",
                default="",
                doc="A Secret in the release namespace; empty: the chart's own, a token of\n"
                "the ServiceAccount <name>-metrics-reader, allowed `get` on /metrics only.",
                schema=s.optional_string(s.DNS_SUBDOMAIN, max_length=253),
            ),
            Leaf(
                key="key",
                default=exposure.TOKEN_KEY,
                doc="The key of the token in that Secret.",
                schema=s.string(min_length=1),
            ),
        ),
    )
    return Group(
        key="authorization",
        doc="The Authorization header of the scrapes (type Bearer).",
        children=(credentials,),
    )
