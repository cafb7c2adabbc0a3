"""kubesched survives an API server that disappears and returns.

This module runs its own control plane (restarting the worker's shared one would disturb
the other tests): etcd, kube-apiserver and the real kube-scheduler, whose Lease timings
are stretched so that it, too, rides out the outage. kubesched runs as a real process.

- A graceful restart: while kube-apiserver is down, a Node is deleted straight from etcd (a
  change kubesched's informers can only learn by resuming or relisting once it is back);
  afterwards pods already bound keep their node, a pending pod is not forgotten, new nodes
  and pods are seen, capacity is still counted exactly, and nothing is bound twice.
- A crash while bindings are in flight: every pod still ends up bound exactly once.

Either way kubesched keeps running and logs warnings, not tracebacks.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import ssl
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    ApiClient,
    condition,
    is_bound,
    is_unschedulable,
    node_name,
    pod_requests,
    quantity,
    wait_for,
)
from tests.e2e.harness.own_cluster import admin_client, own_cluster

SCHEDULER = "outage-scheduler"
POD_CPU = "500m"
NODE_CPU = "2"
OUTAGE_SECONDS = 3.0
# After the restart kubesched's informers reconnect with backoff (0.8 s doubling, jitter).
RECOVERY_TIMEOUT = 40.0


def _start_default_scheduler(cluster: LocalCluster) -> None:
    # Keep kube-scheduler's Lease through the outage (it would exit after 10 s).
    cluster.start_default_scheduler(
        extra_args=["--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=50s"]
    )


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's own control plane with kube-scheduler, always stopped at the end."""
    with own_cluster(request, LocalCluster(), then=_start_default_scheduler) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    """Admin client of this module's control plane (also used by the after-test clean-up)."""
    return admin_client(local_cluster)


def delete_from_etcd(cluster: LocalCluster, key: str) -> None:
    """Delete one key through etcd's v3 JSON gateway (bypassing the API server)."""
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
    request = urllib.request.Request(
        f"{cluster.etcd_url}/v3/kv/deleterange",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        answer = json.loads(reply.read())
    assert answer.get("deleted") == "1", answer


def create_pod(
    api: ApiClient,
    namespace: str,
    name: str,
    *,
    cpu: str = POD_CPU,
    scheduler: str = SCHEDULER,
    selector: dict[str, str] | None = None,
) -> None:
    builder = make_pod().name(name).namespace(namespace).req(cpu=cpu).scheduler(scheduler)
    if selector:
        builder = builder.node_selector(**selector)
    api.create(builder.obj())


def wait_bound(api: ApiClient, namespace: str, name: str, timeout: float = 30.0) -> str:
    pod = wait_for(
        lambda: api.get("Pod", name, namespace=namespace),
        until=is_bound,
        timeout=timeout,
        message=f"pod {name} is bound",
    )
    return node_name(pod)


def free_cpu(api: ApiClient, nodes: list[str]) -> Decimal:
    """Allocatable minus requested cpu over `nodes`, from the API server's state."""
    free = sum((quantity(NODE_CPU) for _ in nodes), Decimal(0))
    for pod in api.list("Pod"):
        if node_name(pod) in nodes:
            free -= pod_requests(pod).get("cpu", Decimal(0))
    return free


def metrics_text(proc: Any, token: str) -> str:
    """GET /metrics on kubesched's secure port (it authenticates the caller: admin token)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # kubesched's self-signed serving certificate
    request = urllib.request.Request(f"https://127.0.0.1:{proc.port}/metrics")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10, context=context) as reply:
        return str(reply.read().decode())


def attempts(metrics: str, result: str) -> int:
    pattern = rf'scheduler_schedule_attempts_total\{{[^}}]*result="{result}"[^}}]*\}} (\S+)'
    return sum(
        int(float(value))
        for line in metrics.splitlines()
        if f'profile="{SCHEDULER}"' in line
        for value in re.findall(pattern, line)
    )


def test_kubesched_rides_out_an_apiserver_restart(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    for name in ("n1", "n2"):
        api.create(make_node().name(name).capacity(cpu=NODE_CPU, memory="8Gi").obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    before = [f"before-{i}" for i in range(4)]
    for name in before:
        create_pod(api, namespace, name)
    create_pod(api, namespace, "default-0", scheduler="default-scheduler")
    # A pod that waits for a node that does not exist yet.
    create_pod(api, namespace, "waiting", cpu="1500m", selector={"added": "after"})
    placed = {name: wait_bound(api, namespace, name) for name in [*before, "default-0"]}
    for name in before:
        wait_for(
            functools.partial(api.events, namespace, regarding=name, reason="Scheduled"),
            message=f"a Scheduled event for {name}",
        )
    wait_for(
        lambda: api.get("Pod", "waiting", namespace=namespace),
        until=is_unschedulable,
        message="the waiting pod is reported unschedulable",
    )

    # The outage: kube-apiserver goes away (etcd stays); meanwhile n2 vanishes.
    local_cluster.stop_apiserver(grace=2.0)
    delete_from_etcd(local_cluster, "/registry/minions/n2")
    time.sleep(OUTAGE_SECONDS)
    assert proc.running(), proc.tail()
    local_cluster.start_apiserver()
    assert proc.running(), proc.tail()

    # The informers resumed and the queue kept the waiting pod: the node it waits for,
    # added after the restart, gets it scheduled (by the node event, not a periodic flush).
    api.create(make_node().name("n3").label("added", "after").capacity(cpu=NODE_CPU).obj())
    assert wait_bound(api, namespace, "waiting", timeout=RECOVERY_TIMEOUT) == "n3"
    # ...and, n3 coming after n2's deletion in etcd's history, n2 is gone for kubesched too.
    # Fill exactly what is left on n1 and n3 (the pods bound before still count), plus one.
    fits = int(free_cpu(api, ["n1", "n3"]) / quantity(POD_CPU))
    after = [f"after-{i}" for i in range(fits + 1)]
    for name in after:
        create_pod(api, namespace, name)
    pods = {
        name: wait_for(
            functools.partial(api.get, "Pod", name, namespace=namespace),
            until=lambda pod: is_bound(pod) or is_unschedulable(pod),
            message=f"{name} is bound or reported unschedulable",
        )
        for name in after
    }
    bound = {name: node_name(pod) for name, pod in pods.items() if is_bound(pod)}
    assert len(bound) == fits, bound
    assert set(bound.values()) <= {"n1", "n3"}, f"placed on the deleted node n2: {bound}"
    (refused,) = (pod for pod in pods.values() if not is_bound(pod))
    message = (condition(refused, "PodScheduled") or {}).get("message", "")
    assert message.startswith("0/2 nodes are available: 2 Insufficient cpu"), message

    # Nothing scheduled before the outage was lost or bound again.
    for name, node in placed.items():
        assert node_name(api.get("Pod", name, namespace=namespace)) == node
    for name in [*before, "waiting", *bound]:
        assert len(api.events(namespace, regarding=name, reason="Scheduled")) == 1, name
    metrics = metrics_text(proc, local_cluster.admin_token)
    assert attempts(metrics, "scheduled") == len(before) + 1 + fits
    assert attempts(metrics, "error") == 0

    # kubesched kept running and ready, and said what happened without tracebacks.
    assert proc.running()
    assert proc.get("/readyz")[0] == 200
    log = proc.log()
    assert '"list/watch failed"' in log
    assert "Traceback" not in log, proc.tail(80)


def test_bindings_cut_off_by_an_apiserver_crash_are_not_lost(
    kubesched: Any, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    api.create(make_node().name("n1").capacity(cpu=NODE_CPU).obj())
    api.create(make_node().name("n2").capacity(cpu=NODE_CPU).obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    names = [f"burst-{i}" for i in range(8)]  # exactly the capacity of n1 and n2
    for name in names:
        create_pod(api, namespace, name)
    # The API server crashes while kubesched is binding these (some bindings may have
    # reached etcd without kubesched hearing the answer).
    local_cluster.stop_apiserver(grace=0.0)
    time.sleep(OUTAGE_SECONDS)
    local_cluster.start_apiserver()

    nodes = {name: wait_bound(api, namespace, name, timeout=RECOVERY_TIMEOUT) for name in names}
    assert sorted(nodes.values()) == ["n1"] * 4 + ["n2"] * 4, nodes
    assert proc.running()
    assert "Traceback" not in proc.log(), proc.tail(80)
