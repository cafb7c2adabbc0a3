"""kubesched names the RBAC fix at runtime, the first time it meets a 403, and points at
`kubesched doctor`: the Role of the guide on leader-election conflicts between a custom
scheduler and kube-scheduler (leases get/create/update restricted by resourceNames) cannot
create the Lease; missing `create events` and `patch pods/status` are logged once each.

The service account gets that guide's rules verbatim, plus the read-only rules of
`kubesched manifests` (list/watch on everything kubesched's informers read), so the caches sync
and the later 403s are reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.manifests.rbac import cluster_rules
from kubesched.plugins.dynamic_resources.resources import ALL as DRA_RESOURCES
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient
from tests.e2e.test_doctor import (
    ClusterObjects,
    bind_cluster_role,
    cluster_objects,
    create_service_account,
    leader_election_guide_rules,
    rule,
    token_kubeconfig,
    unique,
)

__all__ = ["cluster_objects"]  # the fixture, used below

LEASE = "my-custom-scheduler"


@dataclass
class Guide:
    """A namespace and the kubeconfig of a service account bound to the guide's rules."""

    namespace: str
    kubeconfig: Path


def read_rules() -> list[dict[str, Any]]:
    """What `kubesched manifests` grants to read (its informers, DynamicResources' DRA
    objects included), none of its writes."""
    reads = {"get", "list", "watch"}
    return [
        {**r, "verbs": [v for v in r["verbs"] if v in reads]}
        for r in cluster_rules(preemption=True, resources=DRA_RESOURCES)
        if reads & set(r["verbs"])
    ]


@pytest.fixture
def guide(
    api: ApiClient,
    local_cluster: LocalCluster,
    cluster_objects: ClusterObjects,
    namespace: str,
    tmp_path: Path,
) -> Guide:
    token = create_service_account(api, namespace, "custom-scheduler-sa")
    rules = [*leader_election_guide_rules(LEASE), *read_rules()]
    bind_cluster_role(
        cluster_objects,
        name=unique("guide-rbac"),
        rules=rules,
        namespace=namespace,
        sa="custom-scheduler-sa",
    )
    return Guide(namespace, token_kubeconfig(local_cluster, token, tmp_path / "sa.kubeconfig"))


def test_lease_create_403_names_the_resource_names_pitfall_once(
    kubesched: Callable[..., Any], guide: Guide
) -> None:
    namespace, kubeconfig = guide.namespace, guide.kubeconfig
    proc = kubesched(
        f"--scheduler-name={LEASE}",
        f"--leader-elect-resource-namespace={namespace}",
        f"--leader-elect-resource-name={LEASE}",
        kubeconfig=kubeconfig,
    )
    log = proc.wait_log("cannot create the leader-election Lease")
    (line,) = [entry for entry in log.splitlines() if "cannot create the leader-election" in entry]
    assert f'lease="{namespace}/{LEASE}"' in line
    assert "resourceNames cannot restrict create" in line
    assert "verbs [create] and no resourceNames" in line
    assert "kubesched doctor" in line
    time.sleep(8)  # several more attempts (every 2-4 s): no more raw 403 lines
    log = proc.log()
    assert log.count("cannot create the leader-election Lease") == 1
    assert "error creating lease" not in log


def test_missing_events_and_pod_status_rights_are_named_once(
    kubesched: Callable[..., Any], api: ApiClient, guide: Guide
) -> None:
    namespace, kubeconfig = guide.namespace, guide.kubeconfig
    proc = kubesched(f"--scheduler-name={LEASE}", "--leader-elect=false", kubeconfig=kubeconfig)
    for name in ("p1", "p2"):  # no nodes: unschedulable, needs an event and a condition
        api.create(make_pod().name(name).namespace(namespace).scheduler(LEASE).obj())
    log = proc.wait_log("kubesched may not write events")
    log = proc.wait_log("kubesched may not update pod status")
    status_lines = [e for e in log.splitlines() if "may not update pod status" in e]
    assert len(status_lines) == 1
    assert "grant patch on pods/status" in status_lines[0]
    assert "kubesched doctor" in status_lines[0]
    event_lines = [e for e in log.splitlines() if "may not write events" in e]
    assert len(event_lines) == 1
    assert "grant create and patch on events (apiGroup events.k8s.io)" in event_lines[0]


def test_cache_sync_wait_names_the_informer_and_why_and_stops_on_sigterm(  # noqa: PLR0917
    kubesched: Callable[..., Any],
    api: ApiClient,
    local_cluster: LocalCluster,
    cluster_objects: ClusterObjects,
    namespace: str,
    tmp_path: Path,
) -> None:
    """An identity that may not list pods: the wait names /api/v1/pods and its 403, and
    SIGTERM ends the wait at once (exit 0) instead of after the 120 s timeout."""
    token = create_service_account(api, namespace, "no-pods-sa")
    bind_cluster_role(
        cluster_objects,
        name=unique("no-pods"),
        rules=[
            rule([""], ["nodes", "namespaces"], ["list", "watch"]),
            rule(["policy"], ["poddisruptionbudgets"], ["list", "watch"]),
        ],
        namespace=namespace,
        sa="no-pods-sa",
    )
    kubeconfig = token_kubeconfig(local_cluster, token, tmp_path / "no-pods.kubeconfig")
    proc = kubesched(
        f"--scheduler-name={LEASE}", "--leader-elect=false", kubeconfig=kubeconfig, ready=False
    )
    log = proc.wait_log('"waiting for caches to sync"', timeout=40)
    (line,) = [e for e in log.splitlines() if "waiting for caches to sync" in e][:1]
    assert "/api/v1/pods (not synced: 403 Forbidden" in line
    assert "/api/v1/nodes" not in line
    assert proc.get("/readyz")[0] == 500
    started = time.monotonic()
    assert proc.stop() == 0
    assert time.monotonic() - started < 5
    assert "Traceback" not in proc.log()
