"""The ConfigMap with the scheduler's config and the Deployment that runs it.

The Deployment meets Pod Security "restricted" (non-root uid 65532, no privilege
escalation, every capability dropped, seccomp RuntimeDefault) and also runs with a read-only
root filesystem: the only writable place is an emptyDir for the self-signed serving
certificate (`--cert-dir`). Its own pods are placed by the default kube-scheduler.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.manifests.meta import labels as object_labels
from kubesched.manifests.meta import metadata, selector_labels
from kubesched.manifests.options import ManifestOptions, Names

CONFIG_DIR = "/etc/kubesched"
CONFIG_KEY = "config.yaml"
CERT_DIR = "/var/lib/kubesched/serving-certs"
NON_ROOT_UID = 65532
CONFIG_HASH_ANNOTATION = "kubesched.io/config-hash"
_DEFAULTS = KubeSchedulerConfiguration()


def config_map(names: Names, config_text: str) -> dict[str, Any]:
    """The ConfigMap holding `config.yaml` (the KubeSchedulerConfiguration)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(names.config_map, names, namespace=names.namespace),
        "data": {CONFIG_KEY: config_text},
    }


def container_args(config: KubeSchedulerConfiguration) -> list[str]:
    """`--config` and `--cert-dir`, plus the command-line-only settings that differ from
    their defaults (they have no field in the config file)."""
    args = [f"--config={CONFIG_DIR}/{CONFIG_KEY}", f"--cert-dir={CERT_DIR}"]
    if config.secure_port != _DEFAULTS.secure_port:
        args.append(f"--secure-port={config.secure_port}")
    if config.bind_address != _DEFAULTS.bind_address:
        args.append(f"--bind-address={config.bind_address}")
    args += [f"--plugin-module={module}" for module in config.plugin_modules]
    args += [f"--feature-gates={gates}" for gates in config.feature_gates]
    if config.verbosity:
        args.append(f"-v={config.verbosity}")
    if config.logging_format != _DEFAULTS.logging_format:
        args.append(f"--logging-format={config.logging_format}")
    return args


def pod_security_context() -> dict[str, Any]:
    """The pods' securityContext: Pod Security "restricted" (non-root, seccomp RuntimeDefault)."""
    return {
        "runAsNonRoot": True,
        "runAsUser": NON_ROOT_UID,
        "runAsGroup": NON_ROOT_UID,
        "fsGroup": NON_ROOT_UID,
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def container_security_context() -> dict[str, Any]:
    """The container's securityContext: no privilege escalation, every capability dropped,
    a read-only root filesystem, non-root."""
    return {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "runAsUser": NON_ROOT_UID,
        "runAsGroup": NON_ROOT_UID,
    }


def _probe(path: str, **timing: int) -> dict[str, Any]:
    return {"httpGet": {"path": path, "port": "https", "scheme": "HTTPS"}, **timing}


def _container(config: KubeSchedulerConfiguration, options: ManifestOptions) -> dict[str, Any]:
    return {
        "name": "kubesched",
        "image": options.image,
        "imagePullPolicy": options.image_pull_policy,
        "args": container_args(config),
        "env": [
            {
                "name": "POD_NAMESPACE",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
            }
        ],
        "ports": [{"name": "https", "containerPort": config.secure_port, "protocol": "TCP"}],
        # kube-scheduler's static pod timings (kubeadm): slow to be declared dead.
        "startupProbe": _probe("/livez", periodSeconds=10, timeoutSeconds=15, failureThreshold=24),
        "livenessProbe": _probe("/livez", periodSeconds=10, timeoutSeconds=15, failureThreshold=8),
        "readinessProbe": _probe("/readyz", periodSeconds=5, timeoutSeconds=5, failureThreshold=3),
        "resources": options.resources,
        "securityContext": container_security_context(),
        "volumeMounts": [
            {"name": "config", "mountPath": CONFIG_DIR, "readOnly": True},
            {"name": "serving-certs", "mountPath": CERT_DIR},
        ],
    }


def spread(names: Names) -> dict[str, Any]:
    """Prefer one replica per node, so losing a node never loses every replica."""
    term = {
        "labelSelector": {"matchLabels": selector_labels(names)},
        "topologyKey": "kubernetes.io/hostname",
    }
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": term}
            ]
        }
    }


def _placement(options: ManifestOptions, names: Names) -> dict[str, Any]:
    """priorityClassName, nodeSelector, affinity and tolerations of the pods."""
    placement: dict[str, Any] = {}
    if options.priority_class_name:
        placement["priorityClassName"] = options.priority_class_name
    if options.node_selector:
        placement["nodeSelector"] = options.node_selector
    placement["affinity"] = spread(names) if options.affinity is None else options.affinity
    if options.tolerations:
        placement["tolerations"] = list(options.tolerations)
    return placement


def _pod_spec(
    config: KubeSchedulerConfiguration, options: ManifestOptions, names: Names
) -> dict[str, Any]:
    pull_secrets = [{"name": secret} for secret in options.image_pull_secrets]
    return {
        "serviceAccountName": names.name,
        # kubesched's own pods are placed by the default kube-scheduler, never by kubesched.
        "schedulerName": "default-scheduler",
        "securityContext": pod_security_context(),
        **_placement(options, names),
        **({"imagePullSecrets": pull_secrets} if pull_secrets else {}),
        # Time to stop scheduling, finish in-flight bindings and release the Lease.
        "terminationGracePeriodSeconds": 30,
        "containers": [_container(config, options)],
        "volumes": [
            {"name": "config", "configMap": {"name": names.config_map}},
            {"name": "serving-certs", "emptyDir": {"sizeLimit": "1Mi"}},
        ],
    }


def deployment(
    config: KubeSchedulerConfiguration,
    options: ManifestOptions,
    names: Names,
    *,
    config_text: str,
) -> dict[str, Any]:
    """The Deployment; its pod template carries a hash of the config, so that applying a
    changed config rolls the replicas (a mounted ConfigMap alone would not restart them)."""
    digest = hashlib.sha256(config_text.encode()).hexdigest()[:16]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata(names.name, names, namespace=names.namespace),
        "spec": {
            "replicas": options.replicas,
            "selector": {"matchLabels": selector_labels(names)},
            "template": {
                "metadata": {
                    "labels": object_labels(names),
                    "annotations": {CONFIG_HASH_ANNOTATION: digest},
                },
                "spec": _pod_spec(config, options, names),
            },
        },
    }
