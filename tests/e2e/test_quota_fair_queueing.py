"""CapacityScheduling's `fairQueueing` (kubesched's own) on the real API server: a late team
is served by dominant share instead of waiting behind an early team's backlog.

Two namespaces with ElasticQuotas of min 4 / max 8 CPUs on two nodes of 4 CPUs (8 in all);
team A's 8 pods of 1 CPU are created before team B's 4, all before kubesched starts. With
`fairQueueing: true` the queue alternates between the quotas while their shares are equal
and serves the lower one first: A and B end with 4 bound pods each and nothing is
preempted (A's other pods are refused, as borrowing would exceed the sum of the `min`s).
Without it, A's 8 pods go first and borrow B's guarantee, and B takes it back by
preempting 4 of A's pods: the churn the arg avoids.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.pod_group_crd import kubesched_pod_group_crd_in_place
from tests.e2e.harness.scheduler_plugins import install_scheduler_plugins_crds

USES_SCHEDULER_PLUGINS = True  # its ElasticQuota CRD
SCHEDULER = "fair-quota-scheduler"
EQ_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/elasticquotas"
POOL_LABEL = "fair-queueing.kubesched.io/pool"
PLUGINS = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
}


@pytest.fixture(scope="module", autouse=True)
def _crds(api: ApiClient) -> Iterator[None]:
    install_scheduler_plugins_crds(api)
    yield
    kubesched_pod_group_crd_in_place(api)  # later modules read kubesched's PodGroup CRD


def _config(path: Path, kubeconfig: Path, *, fair: bool) -> Path:
    profile: dict[str, Any] = {"schedulerName": SCHEDULER, "plugins": PLUGINS}
    if fair:
        profile["pluginConfig"] = [{"name": "CapacityScheduling", "args": {"fairQueueing": True}}]
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": {"leaderElect": False},
        "profiles": [profile],
    }
    path.write_text(yaml.safe_dump(config))
    return path


def _team(api: ApiClient, namespace: str, pods: int, pool: str) -> None:
    body = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "metadata": {"name": namespace},
        "spec": {"min": {"cpu": "4"}, "max": {"cpu": "8"}},
    }
    api.request("POST", EQ_PATH.format(ns=namespace), body=body)
    for i in range(pods):
        pod = make_pod().name(f"app-{i}").scheduler(SCHEDULER).req(cpu="1")
        obj = pod.node_selector(**{POOL_LABEL: pool}).obj()
        obj["spec"]["terminationGracePeriodSeconds"] = 0  # no kubelet finishes a deletion
        api.create(obj, namespace=namespace)


def _bound(api: ApiClient, namespace: str) -> tuple[int, int]:
    """(bound pods, pods refused with a PodScheduled=False message) of a namespace."""
    pods = api.list("Pod", namespace=namespace)
    bound = sum(1 for pod in pods if is_bound(pod))
    refused = sum(1 for pod in pods if not is_bound(pod) and unschedulable_message(pod))
    return bound, refused


def _preempted(api: ApiClient, namespace: str) -> int:
    """How many pods of a namespace have a Preempted event."""
    return len({event.regarding_name for event in api.events(namespace, reason="Preempted")})


@pytest.mark.parametrize("fair", [True, False], ids=["fair", "first-come"])
def test_a_late_team_gets_its_guarantee_without_preemption(
    fair: bool,
    local_cluster: LocalCluster,
    api: ApiClient,
    new_namespace: Callable[..., str],
    tmp_path: Path,
) -> None:
    pool = f"pool-{secrets.token_hex(3)}"
    for i in (1, 2):
        node = make_node().name(f"{pool}-n{i}").label(POOL_LABEL, pool)
        api.create(node.capacity(cpu="4", pods="20").obj())
    team_a, team_b = new_namespace("fair-a"), new_namespace("fair-b")
    _team(api, team_a, 8, pool)
    _team(api, team_b, 4, pool)
    config = _config(tmp_path / "config.yaml", local_cluster.kubeconfig_path, fair=fair)
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--config={config}",
        workdir=tmp_path,
        name="kubesched-fair-queueing",
        token=local_cluster.admin_token,
    )
    try:
        proc.wait_ready()
        if fair:
            wait_for(
                lambda: (_bound(api, team_a), _bound(api, team_b)),
                until=lambda seen: seen == ((4, 4), (4, 0)),
                message="A: 4 bound and 4 refused, B: 4 bound",
            )
            assert len(api.list("Pod", namespace=team_a)) == 8
            assert api.events(team_a, reason="Preempted") == []
        else:
            # Four preemptors in a row, each while the victims of the one before still
            # terminate: one may take a pod more than it needs (counted as in scheduler-
            # plugins' CapacityScheduling, whose quota book also lags its evictions), so the
            # test asks for at least 4 preempted pods.
            wait_for(
                lambda: (_bound(api, team_b)[0], _preempted(api, team_a)),
                until=lambda seen: seen[0] == 4 and seen[1] >= 4,
                message="B: 4 bound after preempting at least 4 of A's pods",
            )
            assert _bound(api, team_a)[0] <= 4  # B's 4 CPUs of the 8 are B's again
    finally:
        proc.stop()
