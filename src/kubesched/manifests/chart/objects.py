"""The chart's templates, made from the manifests model's objects.

Each template is the object `kubesched manifests` builds, with tokens for the names and
markers for what the chart's values choose (`markers`); RBAC rules come from
`kubesched.manifests.rbac` as they are, so a rule added there reaches the chart by
`make chart`. The ClusterRole keeps each rule that depends on the config behind the
condition `kubesched manifests` decides it by: the volume rules when a profile runs a volume
plugin, a declared resource's rules when a plugin declaring it is enabled (or, for native
PodGroups, the `GenericWorkload` gate is on), the preemption rules when a profile preempts;
then `rbac.extraRules`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.resources import (
    SCHEDULING_COMPOSITEPODGROUPS,
    SCHEDULING_PODGROUPS,
    ResourceSpec,
    built_in,
)
from kubesched.manifests import exposure, rbac, workload
from kubesched.manifests.chart import markers
from kubesched.manifests.chart.shadow import NOT_SHADOW, READ_ONLY_EXTRA_RULES, REPLICAS, SHADOW
from kubesched.manifests.meta import metadata, selector_labels
from kubesched.manifests.options import ManifestOptions, Names
from kubesched.manifests.render import NO_WRAP, to_yaml
from kubesched.manifests.shadow import read_only_rules

TOKEN_NAMES = Names(namespace="@NS@", name="@NAME@", lease_namespace="@LNS@", lease_name="@LEASE@")
LABELS = "kubesched.labels"
SELECTOR = "kubesched.selectorLabels"
PREEMPTS = 'eq (include "kubesched.preempts" .) "true"'
VOLUMES = 'eq (include "kubesched.volumes" .) "true"'
ENABLED, GATED = "$enabled", "$gated"
COMPOSITE = 'eq (include "kubesched.compositePodGroup" .) "true"'
ROLE_VARIABLES = (
    f'{{{{- {ENABLED} := include "kubesched.enabledPlugins" . | fromYamlArray }}}}\n'
    f'{{{{- {GATED} := eq (include "kubesched.genericWorkload" .) "true" }}}}\n'
)
LEADER_ELECT = ".Values.leaderElection.leaderElect"
LEASE_ROLE = f"and {LEADER_ELECT} ({NOT_SHADOW})"
CREDENTIALS = ".Values.serviceMonitor.authorization.credentials"
METRICS_READER = f"and .Values.serviceMonitor.enabled (not {CREDENTIALS}.name)"


@dataclass(frozen=True, slots=True)
class Source:
    """What the templates are made from: the config (the defaults) and what each in-tree
    plugin declares it reads (`kubesched.plugins.in_tree_resources`)."""

    config: KubeSchedulerConfiguration
    declared: Mapping[str, tuple[ResourceSpec, ...]]


Template = tuple[str, Callable[[Source], dict[str, Any]], str]


def _labelled(obj: dict[str, Any]) -> dict[str, Any]:
    """The object with the chart's labels (Helm's conventions) on it, and the chart's
    selector (its instance is the release) wherever the model selects kubesched's pods."""
    obj = _chart_selectors(copy.deepcopy(obj))
    obj["metadata"]["labels"] = markers.included(LABELS)
    return obj


def _chart_selectors(node: Any) -> Any:
    """`node` with every mapping equal to the model's selector labels made the chart's."""
    if node == selector_labels(TOKEN_NAMES):
        return markers.included(SELECTOR)
    if isinstance(node, dict):
        return {key: _chart_selectors(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_chart_selectors(value) for value in node]
    return node


def _cluster_role(source: Source) -> dict[str, Any]:
    """The ClusterRole: `rbac.cluster_rules`, each rule that depends on the config behind
    the condition that decides it there."""
    obj = _labelled(rbac.cluster_role(TOKEN_NAMES, preemption=False, volumes=False))
    base = rbac.cluster_rules(preemption=False, volumes=False)
    volumes = _added(rbac.cluster_rules(preemption=False, volumes=True), base)
    preemption = _added(rbac.cluster_rules(preemption=True, volumes=False), base)
    obj["rules"] = [
        *base,
        *_behind(VOLUMES, volumes),
        *_declared_rules(source.declared),
        *_behind(PREEMPTS, preemption),
        markers.items(".Values.rbac.extraRules"),
    ]
    return obj


def _shadow_cluster_role(source: Source) -> dict[str, Any]:
    """A shadow's ClusterRole (`chart.shadow`): the same rules under the same conditions,
    each with its read verbs only, and `rbac.extraRules` read-only too."""
    obj = _cluster_role(source)
    extra = markers.items(".Values.rbac.extraRules")
    rules = [rule for rule in obj["rules"] if rule != extra]
    kept = [
        rule
        for item in rules
        for rule in (read_only_rules([item]) if isinstance(item, dict) else [item])
    ]
    obj["rules"] = [*kept, markers.items(READ_ONLY_EXTRA_RULES)]
    return obj


def _added(rules: list[dict[str, Any]], base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rule for rule in rules if rule not in base]


def _behind(condition: str, rules: list[Any]) -> list[Any]:
    return [markers.when(condition), *rules, markers.END] if rules else []


def _declared_rules(declared: Mapping[str, tuple[ResourceSpec, ...]]) -> list[Any]:
    """`rbac.resource_rules` of every resource a plugin declares, in its order: reading
    kept when a plugin reading it is enabled, writing it when one that writes it is (a
    plugin that only reads a resource another writes gets no write), its status when one
    writes that; native PodGroups also under the gate (the pod-group cycle,
    `kubesched.framework.resources.cluster_resources`)."""
    readers: dict[tuple[str, str, str], set[str]] = {}
    writers: dict[tuple[str, str, str], set[str]] = {}
    status_writers: dict[tuple[str, str, str], set[str]] = {}
    specs: dict[tuple[str, str, str], ResourceSpec] = {}
    for plugin, declared_specs in declared.items():
        for spec in declared_specs:
            key = (spec.group, spec.resource, spec.version)
            specs.setdefault(key, spec)
            readers.setdefault(key, set()).add(plugin)
            if spec.writes:
                writers.setdefault(key, set()).add(plugin)
            if spec.writes_status or spec.writes:
                status_writers.setdefault(key, set()).add(plugin)
    cycle = (
        SCHEDULING_PODGROUPS.group,
        SCHEDULING_PODGROUPS.resource,
        SCHEDULING_PODGROUPS.version,
    )
    specs.setdefault(cycle, SCHEDULING_PODGROUPS)
    composites = SCHEDULING_COMPOSITEPODGROUPS
    tree = (composites.group, composites.resource, composites.version)
    guarded: list[tuple[str, dict[str, Any]]] = []
    for key in sorted({*specs, tree}):
        if key == tree and key not in specs:  # read by the pod-group cycle under its gate
            guarded.append(
                (COMPOSITE, rbac.rule(composites.group, (composites.resource,), rbac.READ))
            )
            continue
        spec, gated = specs[key], key == cycle
        if not built_in(spec):
            condition = _any_enabled(readers.get(key, set()), gated=gated)
            guarded.append((condition, rbac.rule(spec.group, (spec.resource,), rbac.READ)))
        if writers.get(key):
            condition = _any_enabled(writers[key], gated=False)
            guarded.append((condition, rbac.rule(spec.group, (spec.resource,), _WRITE)))
        if status_writers.get(key) or (gated and SCHEDULING_PODGROUPS.writes_status):
            condition = _any_enabled(status_writers.get(key, set()), gated=gated)
            status = rbac.rule(spec.group, (f"{spec.resource}/status",), ("patch", "update"))
            guarded.append((condition, status))
    return _grouped(guarded)


_WRITE = ("create", "delete", "patch", "update")


def _grouped(guarded: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The rules, each run of rules under one condition behind one `if`."""
    rules: list[Any] = []
    run: list[dict[str, Any]] = []
    for index, (condition, rule) in enumerate(guarded):
        run.append(rule)
        if index + 1 == len(guarded) or guarded[index + 1][0] != condition:
            rules += _behind(condition, run)
            run = []
    return rules


def _any_enabled(plugins: set[str], *, gated: bool) -> str:
    """The condition: one of `plugins` is enabled in a profile (or the gate is on)."""
    terms = [f'has "{name}" {ENABLED}' for name in sorted(plugins)]
    if gated:
        terms.insert(0, GATED)
    if len(terms) == 1:
        return terms[0]
    return "or " + " ".join(term if term == GATED else f"({term})" for term in terms)


def _config_map(_: Source) -> dict[str, Any]:
    """The model's ConfigMap named after the config's hash and immutable: a changed config
    is a new ConfigMap, so a replica of a previous ReplicaSet that restarts still reads the
    config it was started with (`PREVIOUS_CONFIG_MAP` keeps those the ReplicaSets mount)."""
    obj = _labelled(workload.config_map(TOKEN_NAMES, ""))
    obj["metadata"]["name"] = markers.value(CONFIG_MAP_NAME)
    obj["immutable"] = True
    obj["data"][workload.CONFIG_KEY] = markers.text('include "kubesched.config" .')
    return obj


CONFIG_MAP_NAME = 'include "kubesched.configMapName" . | quote'
PREVIOUS_CONFIG_MAP = """\
{{- /* The ConfigMaps that ReplicaSets of the Deployment with replicas still mount, when this
release changes the config: kept as they are while the new pods roll out, so that an old
replica that restarts or is replaced keeps its config; the next upgrade drops those whose
ReplicaSet has been scaled to zero. lookup finds nothing in helm template. */}}
{{- $current := include "kubesched.configMapName" . }}
{{- $deployment := include "kubesched.name" . }}
{{- $kept := list $current }}
{{- range (dig "items" list (lookup "apps/v1" "ReplicaSet" .Release.Namespace "")) }}
{{- $owned := false }}
{{- range (dig "metadata" "ownerReferences" list .) }}
{{- if and (eq .kind "Deployment") (eq .name $deployment) }}{{ $owned = true }}{{ end }}
{{- end }}
{{- if and $owned (gt (int (dig "spec" "replicas" 0 .)) 0) }}
{{- range (dig "spec" "template" "spec" "volumes" list .) }}
{{- $mounted := dig "configMap" "name" "" . }}
{{- if and (eq .name "config") $mounted (not (has $mounted $kept)) }}
{{- $kept = append $kept $mounted }}
{{- $previous := lookup "v1" "ConfigMap" $.Release.Namespace $mounted }}
{{- if $previous }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $mounted | quote }}
  namespace: {{ $.Release.Namespace | quote }}
  labels:
    {{- include "kubesched.labels" $ | nindent 4 }}
immutable: true
data:
  {{- toYaml $previous.data | nindent 2 }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
"""


def _chart_options() -> ManifestOptions:
    return ManifestOptions(
        image=markers.value('include "kubesched.image" . | quote'),
        image_pull_policy=markers.value(".Values.image.pullPolicy | quote"),
        image_pull_secrets=(),
        resources=markers.block(".Values.resources"),  # type: ignore[arg-type]
        priority_class_name=markers.optional(".Values.priorityClassName"),
        node_selector=markers.optional(".Values.nodeSelector"),  # type: ignore[arg-type]
        tolerations=(),
        affinity=None,
    )


def deployment_object(source: Source) -> dict[str, Any]:
    """The model's Deployment with the values put in (the hooks' pods start from its pod)."""
    options = _chart_options()
    obj = _labelled(workload.deployment(source.config, options, TOKEN_NAMES, config_text=""))
    obj["spec"]["replicas"] = markers.value(REPLICAS)
    template = obj["spec"]["template"]
    template["metadata"]["labels"] = markers.included("kubesched.podLabels")
    template["metadata"]["annotations"] = markers.included("kubesched.podAnnotations")
    pod = template["spec"]
    pod["securityContext"] = markers.optional(".Values.podSecurityContext")
    pod["affinity"] = markers.included("kubesched.affinity")
    pod["tolerations"] = markers.optional(".Values.tolerations")
    pod["imagePullSecrets"] = markers.optional('include "kubesched.pullSecrets" . | fromYamlArray')
    pod["volumes"][0]["configMap"]["name"] = markers.value(CONFIG_MAP_NAME)
    pod["volumes"].append(markers.items(".Values.extraVolumes"))
    container = pod["containers"][0]
    container["args"] = markers.included("kubesched.args")
    container["env"].append(markers.items(".Values.extraEnv"))
    container["securityContext"] = markers.optional(".Values.securityContext")
    container["volumeMounts"].append(markers.items(".Values.extraVolumeMounts"))
    return obj


def _service_account(_: Source) -> dict[str, Any]:
    obj = _labelled(rbac.service_account(TOKEN_NAMES))
    obj["metadata"]["annotations"] = markers.optional(".Values.serviceAccount.annotations")
    return obj


def _service_monitor(_: Source) -> dict[str, Any]:
    """The model's ServiceMonitor with the chart's labels, timings and token Secret."""
    obj = _labelled(exposure.service_monitor(TOKEN_NAMES))
    obj["metadata"]["labels"] = markers.included("kubesched.serviceMonitorLabels")
    endpoint = obj["spec"]["endpoints"][0]
    endpoint["interval"] = markers.value(".Values.serviceMonitor.interval | quote")
    endpoint["scrapeTimeout"] = markers.optional(".Values.serviceMonitor.scrapeTimeout")
    endpoint["authorization"]["credentials"] = {
        "name": markers.value('include "kubesched.metricsTokenSecret" . | quote'),
        "key": markers.value(f"{CREDENTIALS}.key | quote"),
    }
    return obj


def spread_affinity() -> str:
    """The model's default affinity (one replica per node), as template text."""
    spread = _chart_selectors(workload.spread(TOKEN_NAMES))
    return markers.to_template(to_yaml([spread], width=NO_WRAP).removeprefix("---\n"))


def _of(build: Callable[[Names], dict[str, Any]]) -> Callable[[Source], Any]:
    return lambda _: _labelled(build(TOKEN_NAMES))


def _service(source: Source) -> dict[str, Any]:
    return _labelled(exposure.metrics_service(TOKEN_NAMES, port=source.config.secure_port))


def _lease_namespace(_: Source) -> dict[str, Any]:
    """The Lease's namespace, made only with `namespace.create` and never deleted by helm
    (uninstall would take every object in it, the chart's or not)."""
    namespace = {"apiVersion": "v1", "kind": "Namespace"}
    obj = _labelled({**namespace, "metadata": metadata(TOKEN_NAMES.lease_namespace, TOKEN_NAMES)})
    obj["metadata"]["annotations"] = {KEEP_POLICY: "keep"}
    return obj


KEEP_POLICY = "helm.sh/resource-policy"


TEMPLATES: tuple[Template, ...] = (
    (
        "lease-namespace.yaml",
        _lease_namespace,
        'eq (include "kubesched.createLeaseNamespace" .) "true"',
    ),
    ("serviceaccount.yaml", _service_account, ""),
    ("clusterrole.yaml", _cluster_role, NOT_SHADOW),
    ("clusterrole-shadow.yaml", _shadow_cluster_role, SHADOW),
    (
        "clusterrolebinding.yaml",
        _of(lambda n: rbac.cluster_role_binding(n, name=n.cluster_wide, role=n.cluster_wide)),
        "",
    ),
    (
        "clusterrolebinding-auth-delegator.yaml",
        _of(
            lambda n: rbac.cluster_role_binding(
                n, name=n.auth_delegator_binding, role=rbac.AUTH_DELEGATOR
            )
        ),
        "",
    ),
    ("lease-role.yaml", _of(rbac.lease_role), LEASE_ROLE),
    ("lease-rolebinding.yaml", _of(rbac.lease_role_binding), LEASE_ROLE),
    ("configmap.yaml", _config_map, ""),
    ("deployment.yaml", deployment_object, ""),
    (
        "poddisruptionbudget.yaml",
        _of(exposure.disruption_budget),
        ".Values.podDisruptionBudget.enabled",
    ),
    ("service.yaml", _service, "or .Values.service.enabled .Values.serviceMonitor.enabled"),
    ("metrics-reader-serviceaccount.yaml", _of(exposure.metrics_reader_account), METRICS_READER),
    ("metrics-reader-clusterrole.yaml", _of(exposure.metrics_reader_role), METRICS_READER),
    (
        "metrics-reader-clusterrolebinding.yaml",
        _of(exposure.metrics_reader_binding),
        METRICS_READER,
    ),
    ("metrics-reader-secret.yaml", _of(exposure.metrics_reader_token), METRICS_READER),
    ("servicemonitor.yaml", _service_monitor, ".Values.serviceMonitor.enabled"),
)


def render_templates(source: Source) -> dict[str, str]:
    """File name under `templates/` -> its text."""
    files: dict[str, str] = {}
    for name, build, condition in TEMPLATES:
        body = markers.to_template(to_yaml([build(source)], width=NO_WRAP).removeprefix("---\n"))
        if name == "deployment.yaml":
            body = '{{- include "kubesched.validate" . }}\n' + body
        if name in ("clusterrole.yaml", "clusterrole-shadow.yaml"):
            body = ROLE_VARIABLES + body
        if name == "configmap.yaml":
            body += PREVIOUS_CONFIG_MAP
        if condition:
            body = f"{{{{- if {condition} }}}}\n{body}{{{{- end }}}}\n"
        files[name] = f"{HEADER}{body}"
    return files


HEADER = "# Generated by `make chart` from kubesched.manifests: do not edit.\n"
