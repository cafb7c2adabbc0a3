"""What surrounds the Deployment: a PodDisruptionBudget for its replicas, a Service for its
metrics port and, for the Prometheus Operator, a ServiceMonitor scraping it.

The metrics port is kube-scheduler's secure port (10259, HTTPS, self-signed certificate
unless `--tls-cert-file` is given) with delegated authentication and authorization: the
scraper presents a bearer token whose identity may `get` the non-resource URL `/metrics`
(kube-prometheus grants its Prometheus exactly that for kube-scheduler).
"""

from __future__ import annotations

from typing import Any

from kubesched.manifests.meta import metadata, selector_labels
from kubesched.manifests.options import Names

PORT_NAME = "https"
SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"  # noqa: S105 - a path
SCRAPE_INTERVAL = "30s"


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
    """The Prometheus Operator's scrape of the Service: HTTPS with Prometheus' own token."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": metadata(names.name, names, namespace=names.namespace),
        "spec": {
            "selector": {"matchLabels": selector_labels(names)},
            "namespaceSelector": {"matchNames": [names.namespace]},
            "endpoints": [
                {
                    "port": PORT_NAME,
                    "scheme": "https",
                    "path": "/metrics",
                    "interval": SCRAPE_INTERVAL,
                    "bearerTokenFile": SERVICE_ACCOUNT_TOKEN,
                    # The self-signed serving certificate; with --tls-cert-file set a CA.
                    "tlsConfig": {"insecureSkipVerify": True},
                }
            ],
        },
    }
