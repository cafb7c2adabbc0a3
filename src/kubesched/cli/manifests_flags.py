"""The deployment flags of `kubesched manifests` (those that are not scheduler flags): how the
pods run (image, resources, placement) and what surrounds them (PDB, Service,
ServiceMonitor). The Helm chart's values are the same settings (`charts/kubesched`).
"""

from __future__ import annotations

import argparse
from typing import Any

import yaml

from kubesched.manifests import (
    DEFAULT_IMAGE,
    DEFAULT_NAMESPACE,
    DEFAULT_REPLICAS,
    ManifestError,
    ManifestOptions,
    check_namespace,
)
from kubesched.manifests.options import DEFAULT_PULL_POLICY, PULL_POLICIES, default_resources

OWN_FLAGS = (
    "with-crds",
    "crds-only",
    "namespace",
    "name",
    "image",
    "replicas",
    "image-pull-policy",
    "image-pull-secret",
    "resources",
    "priority-class-name",
    "node-selector",
    "tolerations",
    "affinity",
    "no-pod-disruption-budget",
    "no-service",
    "service-monitor",
    "helm-chart",
    "overwrite",
)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Add the deployment flags to `parser`."""
    add = parser.add_argument
    add("--namespace", default=DEFAULT_NAMESPACE, help=f"namespace (default {DEFAULT_NAMESPACE})")
    add("--name", default="", help="name of its objects (default: the scheduler name)")
    add("--image", default=DEFAULT_IMAGE, help=f"container image (default {DEFAULT_IMAGE})")
    add("--image-pull-policy", default=DEFAULT_PULL_POLICY, choices=PULL_POLICIES)
    add("--image-pull-secret", action="append", default=[], metavar="SECRET", help="repeatable")
    add("--replicas", type=int, default=DEFAULT_REPLICAS, help="replicas sharing one Lease")
    add(
        "--with-crds",
        action="store_true",
        help="also print the CustomResourceDefinitions plugins read (scheduler-plugins' "
        "ElasticQuota and PodGroup, for CapacityScheduling and Coscheduling)",
    )
    add(
        "--crds-only",
        action="store_true",
        help="print only those CustomResourceDefinitions (what the Helm chart's crds/ holds)",
    )
    add("--resources", metavar="YAML", help="the container's resources (requests/limits)")
    add("--priority-class-name", default="", help="e.g. system-cluster-critical")
    add("--node-selector", action="append", default=[], metavar="KEY=VALUE", help="repeatable")
    add("--tolerations", metavar="YAML", help="a list of tolerations")
    add("--affinity", metavar="YAML", help="the pods' affinity (default: one replica per node)")
    add("--no-pod-disruption-budget", action="store_true", help="no PodDisruptionBudget")
    add("--no-service", action="store_true", help="no Service for the metrics port")
    add("--service-monitor", action="store_true", help="a ServiceMonitor (Prometheus Operator)")
    add("--helm-chart", metavar="DIR", help="write the Helm chart into DIR instead of YAML")
    add(
        "--overwrite",
        action="store_true",
        help="with --helm-chart: replace files of DIR whose content differs (values.yaml "
        "you edited, too); without it such a DIR is refused",
    )


def check_own(own: argparse.Namespace) -> None:
    """ManifestError when the deployment flags cannot go together or name a bad namespace."""
    check_namespace(own.namespace)
    if own.helm_chart is not None and not own.helm_chart.strip():
        raise ManifestError("--helm-chart: empty; name the folder to write the chart into")
    if own.overwrite and not own.helm_chart:
        raise ManifestError("--overwrite only applies to --helm-chart DIR; add --helm-chart")
    if own.crds_only and own.helm_chart:
        raise ManifestError(
            "--crds-only prints the CRDs and --helm-chart writes a chart, whose crds/ holds "
            "them: pass one of the two"
        )


def options_from(own: argparse.Namespace) -> ManifestOptions:
    """The ManifestOptions of the parsed deployment flags; ManifestError on a bad value."""
    return ManifestOptions(
        namespace=own.namespace,
        name=own.name,
        image=own.image,
        image_pull_policy=own.image_pull_policy,
        image_pull_secrets=tuple(own.image_pull_secret),
        replicas=own.replicas,
        with_crds=own.with_crds,
        resources=_yaml(own.resources, "resources", dict) or default_resources(),
        priority_class_name=own.priority_class_name,
        node_selector=dict(_pair(item) for item in own.node_selector),
        tolerations=tuple(_yaml(own.tolerations, "tolerations", list) or ()),
        affinity=_yaml(own.affinity, "affinity", dict),
        disruption_budget=not own.no_pod_disruption_budget,
        service=not own.no_service,
        service_monitor=own.service_monitor,
    )


def _yaml(text: str | None, flag: str, kind: type) -> Any:
    """`text` parsed as YAML (JSON is YAML too) of type `kind`; None when not given."""
    if text is None:
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ManifestError(f"--{flag}: not YAML ({error})") from error
    if not isinstance(value, kind):
        raise ManifestError(f"--{flag}: expected a YAML {kind.__name__}, got {text!r}")
    return value


def _pair(item: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise ManifestError(f"--node-selector: {item!r} is not KEY=VALUE")
    return key, value
