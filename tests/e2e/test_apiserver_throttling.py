"""kubesched on an API server that throttles it with 429 and Retry-After loses no pod.

This module runs its own control plane: kube-apiserver with `--max-requests-inflight=1
--max-mutating-requests-inflight=1`. With API Priority and Fairness on (the default) the two
flags add up to the server's total concurrency, 2 seats, of which every priority level gets
ceil(2 * its shares / all shares) = 1. The default levels *queue* what exceeds their seats
(a burst of 150 pods met no 429 at all, only slower answers), so the test adds what an
administrator would to cap one client: a PriorityLevelConfiguration of 1 seat, no borrowing,
one queue of 8, and a FlowSchema sending every request of kubesched's ServiceAccount there.
A burst of pods then makes kubesched's bindings, events and status writes overflow that
queue: the server rejects them with 429 and its own Retry-After (1 s, doubled by APF while
it keeps rejecting).

Without the client's retries that burst costs dozens of binding errors (`SchedulerError`,
the pods requeued with backoff), lost events and informer relists; with them the server's
429s are all absorbed: every pod bound exactly once with one `Scheduled` event, no
scheduling error, kubesched ready and leading throughout, and the pods created after the
burst are placed at once (its throughput recovers).
"""

from __future__ import annotations

import concurrent.futures
import re
import ssl
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, Event, is_bound, wait_for
from tests.e2e.harness.own_cluster import admin_client, own_cluster, service_account_kubeconfig

SCHEDULER = "throttled-scheduler"
SERVICE_ACCOUNT = "throttled-kubesched"
PRIORITY_LEVEL = "kubesched-throttled"
TINY_INFLIGHT = ("--max-requests-inflight=1", "--max-mutating-requests-inflight=1")
BURST = 150
AFTER = 20
FLOWCONTROL = "/apis/flowcontrol.apiserver.k8s.io/v1"


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's own throttling control plane (no kube-scheduler), stopped at the end."""
    with own_cluster(request, LocalCluster(apiserver_args=TINY_INFLIGHT)) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    """Admin client (system:masters: exempt from flow control, never throttled)."""
    return admin_client(local_cluster)


def throttle(api: ApiClient, namespace: str) -> None:
    """One seat and a queue of 8 for every request of the ServiceAccount; more is a 429."""
    queuing = {"queues": 1, "handSize": 1, "queueLengthLimit": 8}
    limited = {
        "nominalConcurrencyShares": 1,
        "lendablePercent": 0,
        "borrowingLimitPercent": 0,
        "limitResponse": {"type": "Queue", "queuing": queuing},
    }
    api.request(
        "POST",
        f"{FLOWCONTROL}/prioritylevelconfigurations",
        body={
            "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "PriorityLevelConfiguration",
            "metadata": {"name": PRIORITY_LEVEL},
            "spec": {"type": "Limited", "limited": limited},
        },
    )
    subject = {"name": SERVICE_ACCOUNT, "namespace": namespace}
    everything = {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}
    rule = {
        "subjects": [{"kind": "ServiceAccount", "serviceAccount": subject}],
        "resourceRules": [{**everything, "clusterScope": True}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    }
    api.request(
        "POST",
        f"{FLOWCONTROL}/flowschemas",
        body={
            "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
            "kind": "FlowSchema",
            "metadata": {"name": PRIORITY_LEVEL},
            "spec": {
                "priorityLevelConfiguration": {"name": PRIORITY_LEVEL},
                "matchingPrecedence": 500,
                "distinguisherMethod": {"type": "ByUser"},
                "rules": [rule],
            },
        },
    )
    wait_for(
        lambda: api.request("GET", f"{FLOWCONTROL}/flowschemas/{PRIORITY_LEVEL}"),
        until=lambda schema: any(
            c.get("type") == "Dangling" and c.get("status") == "False"
            for c in (schema.get("status") or {}).get("conditions") or ()
        ),
        message="the API server uses the FlowSchema (its Dangling condition is False)",
    )


def create_pods(api: ApiClient, namespace: str, names: list[str], *, threads: int) -> None:
    def create(name: str) -> None:
        pod = make_pod().name(name).namespace(namespace).req(cpu="100m").scheduler(SCHEDULER)
        api.create(pod.obj())

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(create, names))


def wait_all_bound(api: ApiClient, namespace: str, names: list[str], timeout: float) -> None:
    def unbound() -> list[str]:
        bound = {p["metadata"]["name"] for p in api.list("Pod", namespace=namespace) if is_bound(p)}
        return [name for name in names if name not in bound]

    wait_for(unbound, until=lambda left: not left, timeout=timeout, message="every pod is bound")


def scheduled_counts(events: list[Event]) -> Counter[str]:
    return Counter(e.regarding_name for e in events if e.reason == "Scheduled")


def series(text: str, family: str) -> dict[str, float]:
    """`{labels}` -> value of one family in a Prometheus text page."""
    found = re.findall(rf"^{family}(\{{[^}}]*\}}) (\S+)$", text, flags=re.MULTILINE)
    return {labels: float(value) for labels, value in found}


def total(text: str, family: str, *, having: str = "") -> float:
    return sum(v for labels, v in series(text, family).items() if having in labels)


def apiserver_metrics(cluster: LocalCluster) -> str:
    context = ssl.create_default_context(cafile=str(cluster.ca_file))
    request = urllib.request.Request(f"{cluster.server}/metrics")
    request.add_header("Authorization", f"Bearer {cluster.admin_token}")
    with urllib.request.urlopen(request, timeout=10, context=context) as reply:
        return str(reply.read().decode())


def test_a_burst_throttled_with_429s_loses_no_pod(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    for index in range(4):
        node = make_node().name(f"node-{index}").capacity(cpu="32", memory="64Gi", pods="110")
        api.create(node.obj())
    throttle(api, namespace)
    sa_kubeconfig = service_account_kubeconfig(
        local_cluster, api, namespace, tmp_path / "sa", account=SERVICE_ACCOUNT
    )
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=true",
        f"--leader-elect-resource-namespace={namespace}",
        "--vmodule=client=4",  # the client's "Got a Retry-After response" lines (V(4))
        kubeconfig=sa_kubeconfig,
    )

    burst = [f"burst-{i}" for i in range(BURST)]
    started = time.monotonic()
    create_pods(api, namespace, burst, threads=16)
    wait_all_bound(api, namespace, burst, timeout=45)
    burst_seconds = time.monotonic() - started

    # The server really throttled kubesched, and kubesched waited and retried.
    rejected = total(
        apiserver_metrics(local_cluster),
        "apiserver_flowcontrol_rejected_requests_total",
        having=f'priority_level="{PRIORITY_LEVEL}"',
    )
    assert rejected > 0, "the API server rejected nothing: the burst did not overflow the queue"
    log = proc.log()
    retry_lines = re.findall(r'"Got a Retry-After response" delay="(\d+)s" attempt=(\d+)', log)
    assert retry_lines, proc.tail()

    # The throughput recovers: pods created after the burst are placed at once.
    after = [f"after-{i}" for i in range(AFTER)]
    started = time.monotonic()
    create_pods(api, namespace, after, threads=1)
    wait_all_bound(api, namespace, after, timeout=15)
    after_seconds = time.monotonic() - started

    # No pod lost or failed: each bound once, with one Scheduled event and no error.
    expected = Counter([*burst, *after])
    events = wait_for(
        lambda: api.events(namespace),
        until=lambda found: scheduled_counts(found) == expected,
        timeout=15,
        message="one Scheduled event per pod",
    )
    assert not [e.note for e in events if e.reason == "FailedScheduling"]
    metrics = proc.get("/metrics")[1]
    attempts = "scheduler_schedule_attempts_total"
    assert total(metrics, attempts, having='result="scheduled"') == BURST + AFTER
    assert total(metrics, attempts, having='result="error"') == 0
    assert total(metrics, "rest_client_requests_total", having='code="429"') > 0
    assert total(metrics, "rest_client_request_retries_total") >= len(retry_lines)

    # kubesched stayed up, ready and leading, and logged no failure nor traceback.
    assert proc.running()
    assert proc.get("/readyz")[0] == 200
    assert total(metrics, "leader_election_master_status") == 1
    log = proc.log()
    assert '"list/watch failed"' not in log
    assert "Traceback" not in log, proc.tail(80)
    print(
        f"burst of {BURST}: {burst_seconds:.1f} s, {rejected:.0f} requests rejected, "
        f"{len(retry_lines)} retries (delays {sorted(Counter(d for d, _ in retry_lines).items())},"
        f" most attempts {max(int(a) for _, a in retry_lines)}); "
        f"{AFTER} pods after it: {after_seconds:.1f} s"
    )
