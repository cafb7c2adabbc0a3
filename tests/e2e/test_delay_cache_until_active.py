"""`delayCacheUntilActive: true`: a standby fills its informer caches only once it leads (as
kube-scheduler), and then schedules like any leader."""

from __future__ import annotations

import json
from pathlib import Path

from kubesched.localcluster import LocalCluster
from tests.e2e.harness import ApiClient
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.test_leader_election import (
    LEASE_DURATION,
    RENEW_DEADLINE,
    RETRY_PERIOD,
    add_node,
    create_pods,
    identity_of,
    wait_all_bound,
    wait_holder,
)

SCHEDULER = "delayed-scheduler"
SYNCED = '"caches synced"'


def delayed_config(path: Path, *, kubeconfig: Path, namespace: str) -> Path:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "delayCacheUntilActive": True,
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": namespace,
            "resourceName": SCHEDULER,
            "leaseDuration": f"{LEASE_DURATION:g}s",
            "renewDeadline": f"{RENEW_DEADLINE:g}s",
            "retryPeriod": f"{RETRY_PERIOD:g}s",
        },
        "profiles": [{"schedulerName": SCHEDULER}],
    }
    path.write_text(json.dumps(config))
    return path


def test_a_delayed_standby_fills_its_caches_when_it_takes_over(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    tmp_path: Path,
    local_cluster: LocalCluster,
) -> None:
    add_node(api, "delayed-node")
    config = delayed_config(
        tmp_path / "config.yaml", kubeconfig=local_cluster.kubeconfig_path, namespace=namespace
    )
    leader = kubesched(f"--config={config}", name="leader", ready=False)
    wait_holder(api, namespace, SCHEDULER, [identity_of(leader)])
    leader.wait_log(SYNCED)
    standby = kubesched(f"--config={config}", name="standby", ready=False)
    standby.wait_log('"waiting for leader lease"')
    wait_all_bound(api, namespace, create_pods(api, namespace, SCHEDULER, ["first"]))
    assert SYNCED not in standby.tail(400), "a delayed standby lists nothing"
    assert standby.get("/readyz")[0] != 200, "not ready before its caches are filled"

    leader.kill()
    standby.wait_log(SYNCED, timeout=LEASE_DURATION + 15)
    wait_all_bound(api, namespace, create_pods(api, namespace, SCHEDULER, ["second"]))
    assert standby.get("/readyz")[0] == 200
