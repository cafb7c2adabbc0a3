"""A deposed leader sends nothing once its Lease was taken over, read from the API server's
audit log.

This module runs its own control plane with an audit log (Metadata level, every write to
pods, their binding and status, and Leases). Two replicas of one scheduler run with
ServiceAccounts of their own, so the log tells their writes apart. The leader gets a burst
of pods faster than its client's rate limit (QPS 50) lets it bind them: its binder fills
with bindings waiting in the client. Then it is frozen (SIGSTOP); the standby takes the
Lease; the old leader is resumed (SIGCONT) right after the takeover, or after a long pause.
The bindings that waited in its client when it froze reach the socket on resume; the write
fence refuses them there, so the audit log holds no write to a pod from the old leader's
account received after the new leader's first Lease write, and every pod is bound once, by
one of the two.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal
import time
from collections.abc import Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.audit import audit_flags
from tests.e2e.harness.kubesched import KubeschedProcess
from tests.e2e.harness.own_cluster import admin_client, own_cluster, service_account_kubeconfig
from tests.e2e.test_leader_election import (
    CRASH_FAILOVER_BOUND,
    identity_of,
    micro_time,
    replica_args,
    wait_holder,
)

SCHEDULER = "audited-scheduler"
BURST = 500
NODES = 5
BACKLOG = 120  # bound pods when the leader is frozen: its binder is full by then
EXIT_SECONDS = 30.0
WRITES = ("create", "update", "patch", "delete")
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [
        {
            "level": "Metadata",
            "verbs": list(WRITES),
            "resources": [
                {"group": "", "resources": ["pods", "pods/binding", "pods/status"]},
                {"group": "coordination.k8s.io", "resources": ["leases"]},
            ],
        },
        {"level": "None"},
    ],
}


@pytest.fixture(scope="module")
def audit_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit") / "audit.log"


@pytest.fixture(scope="module")
def local_cluster(
    request: pytest.FixtureRequest, audit_log: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """This module's own control plane, writing the audit log (no kube-scheduler)."""
    flags = audit_flags(AUDIT_POLICY, folder=tmp_path_factory.mktemp("audit-policy"), log=audit_log)
    with own_cluster(request, LocalCluster(apiserver_args=flags)) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    return admin_client(local_cluster)


def audit_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def received(event: dict[str, Any]) -> datetime:
    return micro_time(event["requestReceivedTimestamp"])


def first_lease_write(events: list[dict[str, Any]], user: str, lease: str) -> datetime:
    """When the API server received `user`'s first successful write of the Lease."""
    writes = [
        received(e)
        for e in events
        if e["user"]["username"] == user
        and e["objectRef"].get("resource") == "leases"
        and e["objectRef"].get("name") == lease
        and e.get("responseStatus", {}).get("code", 500) < 300
    ]
    assert writes, f"no Lease write by {user} in the audit log"
    return min(writes)


def pod_writes(events: list[dict[str, Any]], user: str) -> list[dict[str, Any]]:
    """`user`'s writes to pods, their bindings and their status."""
    return [
        e
        for e in events
        if e["user"]["username"] == user
        and e["objectRef"].get("resource") == "pods"
        and e["verb"] in WRITES
    ]


def describe(event: dict[str, Any]) -> str:
    ref = event["objectRef"]
    code = event.get("responseStatus", {}).get("code")
    return (
        f"{event['requestReceivedTimestamp']} {event['verb']} {ref.get('name')}"
        f"/{ref.get('subresource', '')} -> {code}"
    )


def create_burst(api: ApiClient, namespace: str, names: list[str]) -> None:
    def create(name: str) -> None:
        pod = make_pod().name(name).namespace(namespace).req(cpu="100m").scheduler(SCHEDULER)
        api.create(pod.obj())

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(create, names))


def cordon(api: ApiClient, unschedulable: bool) -> None:
    """Mark the audited nodes unschedulable, or schedulable again."""
    for index in range(NODES):
        body = {"spec": {"unschedulable": unschedulable}}
        api.patch("Node", f"audited-node-{index}", body)


def bound_names(api: ApiClient, namespace: str) -> set[str]:
    return {p["metadata"]["name"] for p in api.list("Pod", namespace=namespace) if is_bound(p)}


@pytest.fixture
def replicas(  # noqa: PLR0917 - fixtures
    kubesched: Any,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> tuple[Any, Any]:
    """The leader and the standby, each with a ServiceAccount of its own, and 5 nodes;
    with the writer process when the test's `replicas` parameter says so."""
    env = {"KUBESCHED_WRITER_PROCESS": "on"} if getattr(request, "param", False) else None
    for index in range(NODES):
        node = make_node().name(f"audited-node-{index}").capacity(cpu="64", pods="200")
        api.create(node.obj())
    started: list[KubeschedProcess] = []
    for account in ("replica-a", "replica-b"):
        config = service_account_kubeconfig(
            local_cluster, api, namespace, tmp_path / account, account=account
        )
        proc = kubesched(
            *replica_args(SCHEDULER, namespace), name=account, kubeconfig=config, extra_env=env
        )
        if not started:
            wait_holder(api, namespace, SCHEDULER, [identity_of(proc)])
        started.append(proc)
    started[1].wait_log('"waiting for leader lease"')
    return started[0], started[1]


@pytest.mark.parametrize(
    ("replicas", "extra_pause", "only_the_scheduler"),
    [(False, 0.0, False), (False, 12.0, False), (True, 0.0, True)],
    ids=["resumed-at-takeover", "long-pause", "writer-process-left-running"],
    indirect=["replicas"],
)
def test_a_resumed_deposed_leader_sends_no_binding(  # noqa: PLR0917 - fixtures and params
    replicas: tuple[Any, Any],
    api: ApiClient,
    namespace: str,
    audit_log: Path,
    extra_pause: float,
    only_the_scheduler: bool,
) -> None:
    """`only_the_scheduler`: the scheduling process is frozen, its writer process
    (`KUBESCHED_WRITER_PROCESS=on`) goes on: the fence it was sent stops it on its own."""
    a, b = replicas
    b_id = identity_of(b)
    user_a, user_b = (f"system:serviceaccount:{namespace}:replica-{x}" for x in "ab")
    names = [f"p-{i}" for i in range(BURST)]
    # The pods wait on cordoned nodes, so that all of them reach the leader's queue at once
    # when the nodes open: created one by one against open nodes, they came slower than the
    # leader binds them, and it could have bound them all by the time it froze.
    cordon(api, True)
    create_burst(api, namespace, names)
    cordon(api, False)
    wait_for(
        lambda: len(bound_names(api, namespace)),
        until=lambda bound: bound >= BACKLOG,
        timeout=60,
        interval=0.05,
        message=f"the leader has bound {BACKLOG} pods",
    )
    freeze = partial(os.kill, a.pid) if only_the_scheduler else a.signal
    freeze(signal.SIGSTOP)
    try:
        frozen_with = len(bound_names(api, namespace))
        wait_holder(api, namespace, SCHEDULER, [b_id], timeout=CRASH_FAILOVER_BOUND + 2)
        time.sleep(extra_pause)
    finally:
        freeze(signal.SIGCONT)
    assert a.wait(timeout=EXIT_SECONDS) == 1
    wait_for(
        lambda: len(bound_names(api, namespace)),
        until=lambda bound: bound == BURST,
        timeout=60,
        message="the new leader binds the rest",
    )

    events = audit_events(audit_log)
    takeover = first_lease_write(events, user_b, SCHEDULER)
    late = [e for e in pod_writes(events, user_a) if received(e) > takeover]
    bindings_a = [
        e for e in pod_writes(events, user_a) if e["objectRef"].get("subresource") == "binding"
    ]
    refused = a.log().count('"not binding: leader lease not renewed in time"')
    print(
        f"{frozen_with} pods bound when the leader froze; the old leader sent "
        f"{len(bindings_a)} bindings in all, refused {refused} on resume; "
        f"{len(late)} of its pod writes reached the server after the takeover"
    )
    assert not late, [describe(e) for e in late]
    assert refused > 0, "the old leader had bindings waiting when it froze"
    # Each pod was bound once: no binding answered 201 twice for the same pod.
    created = [
        e["objectRef"]["name"]
        for e in events
        if e["objectRef"].get("subresource") == "binding"
        and e.get("responseStatus", {}).get("code") == 201
        and e["objectRef"].get("namespace") == namespace
    ]
    assert sorted(created) == sorted(names)
