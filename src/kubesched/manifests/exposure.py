"""What surrounds the Deployment: a PodDisruptionBudget for its replicas, a Service for its
metrics port and, for the Prometheus Operator, a ServiceMonitor scraping it.

The metrics port is kube-scheduler's secure port (10259, HTTPS, self-signed certificate
unless `--tls-cert-file` is given) with delegated authentication and authorization: the
scraper presents a bearer token whose identity may `get` the non-resource URL `/metrics`.

The ServiceMonitor presents the token of a ServiceAccount of its own (`<name>-metrics-reader`,
allowed that one URL and nothing else), kept in a Secret of type
`kubernetes.io/service-account-token` that the API server's token controller fills in. It
names that Secret in `authorization.credentials`: prometheus-operator deprecates both
`bearerTokenFile` (it hands Prometheus' own token to every target, and a Prometheus with
`arbitraryFSAccessThroughSMs.deny` refuses it) and `bearerTokenSecret` in favour of
`authorization`. The Secret must live in the ServiceMonitor's namespace, which it does.
"""

from __future__ import annotations

from typing import Any

from kubesched.manifests.meta import RBAC_API, RBAC_GROUP, metadata, selector_labels
from kubesched.manifests.options import Names

PORT_NAME = "https"
SCRAPE_INTERVAL = "30s"
TOKEN_KEY = "token"  # noqa: S105 - the key the token controller writes, no secret
SERVICE_ACCOUNT_TOKEN_TYPE = "kubernetes.io/service-account-token"  # noqa: S105 - a type name
SERVICE_ACCOUNT_ANNOTATION = "kubernetes.io/service-account.name"
METRICS_PATH = "/metrics"


def disruption_budget(names: Names) -> dict[str, Any]:
    """At most one replica evicted at a time (any replica count: minAvailable would block
    every drain of a single replica)."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": metadata(names.name, names, namespace=names.namespace),
        "spec": {"maxUnavailable": 1, "selector": {"matchLabels": selector_labels(names)}},
    }


def metrics_service(names: Names, *, port: int) -> dict[str, Any]:
    """A ClusterIP Service in front of every replica's secure port (each serves /metrics;
    only the leader's scheduler_* series move)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata(names.name, names, namespace=names.namespace),
        "spec": {
            "type": "ClusterIP",
            "selector": selector_labels(names),
            "ports": [
                {"name": PORT_NAME, "port": port, "targetPort": PORT_NAME, "protocol": "TCP"}
            ],
        },
    }


def service_monitor(names: Names) -> dict[str, Any]:
    """The Prometheus Operator's scrape of the Service: HTTPS with the metrics reader's token.
    Its series carry the Service's app and instance labels (`targetLabels`, as
    `app_kubernetes_io_name` and `app_kubernetes_io_instance`): the Grafana dashboard selects
    kubesched's series by them, whatever the scheduler and job are called."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": metadata(names.name, names, namespace=names.namespace),
        "spec": {
            "selector": {"matchLabels": selector_labels(names)},
            "targetLabels": list(selector_labels(names)),
            "namespaceSelector": {"matchNames": [names.namespace]},
            "endpoints": [
                {
                    "port": PORT_NAME,
                    "scheme": "https",
                    "path": METRICS_PATH,
                    "interval": SCRAPE_INTERVAL,
                    "authorization": {
                        "type": "Bearer",
                        "credentials": {"name": names.metrics_reader_token, "key": TOKEN_KEY},
                    },
                    # The self-signed serving certificate; with --tls-cert-file set a CA.
                    "tlsConfig": {"insecureSkipVerify": True},
                }
            ],
        },
    }


def metrics_reader_account(names: Names) -> dict[str, Any]:
    """The identity the ServiceMonitor scrapes as (its token is not mounted anywhere)."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": metadata(names.metrics_reader, names, namespace=names.namespace),
        "automountServiceAccountToken": False,
    }


def metrics_reader_token(names: Names) -> dict[str, Any]:
    """The Secret the token controller fills with a token of the metrics reader (`token`)."""
    meta = metadata(names.metrics_reader_token, names, namespace=names.namespace)
    meta["annotations"] = {SERVICE_ACCOUNT_ANNOTATION: names.metrics_reader}
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": meta,
        "type": SERVICE_ACCOUNT_TOKEN_TYPE,
    }


def metrics_reader_role(names: Names) -> dict[str, Any]:
    """`get` on the non-resource URL /metrics: what delegated authorization asks for."""
    return {
        "apiVersion": RBAC_API,
        "kind": "ClusterRole",
        "metadata": metadata(names.metrics_reader_role, names),
        "rules": [{"nonResourceURLs": [METRICS_PATH], "verbs": ["get"]}],
    }


def metrics_reader_binding(names: Names) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_API,
        "kind": "ClusterRoleBinding",
        "metadata": metadata(names.metrics_reader_role, names),
        "roleRef": {
            "apiGroup": RBAC_GROUP,
            "kind": "ClusterRole",
            "name": names.metrics_reader_role,
        },
        "subjects": [
            {"kind": "ServiceAccount", "name": names.metrics_reader, "namespace": names.namespace}
        ],
    }


def metrics_reader_objects(names: Names) -> list[dict[str, Any]]:
    """The metrics reader, in apply order: its ServiceAccount before the token Secret (the
    token controller deletes a token Secret whose account does not exist)."""
    return [
        metrics_reader_account(names),
        metrics_reader_role(names),
        metrics_reader_binding(names),
        metrics_reader_token(names),
    ]
