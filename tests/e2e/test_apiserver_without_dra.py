"""An API server that does not serve `resource.k8s.io/v1` (Kubernetes before 1.34, or switched
off): kube-scheduler v1.37.2 schedules nothing there, kubesched schedules every pod it can and
says once what it cannot do.

This module runs its own control plane: kube-apiserver v1.37.2 with
`--runtime-config=resource.k8s.io/v1=false`. Its Node authorizer watches ResourceSlices and
keeps /readyz failing ("informer-sync") while they are not served, so the authorizer is RBAC
alone (no kubelet runs here; nothing needs the Node authorizer).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.own_cluster import admin_client, own_cluster, unready_kube_scheduler_log

APISERVER_ARGS = ("--runtime-config=resource.k8s.io/v1=false", "--authorization-mode=RBAC")
SCHEDULER = "no-dra-scheduler"


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's control plane, without resource.k8s.io/v1 (no kube-scheduler)."""
    with own_cluster(request, LocalCluster(apiserver_args=APISERVER_ARGS)) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    return admin_client(local_cluster)


def _pod(name: str, namespace: str) -> dict[str, Any]:
    builder = make_pod().name(name).namespace(namespace).req(cpu="100m").scheduler(SCHEDULER)
    return builder.obj()


def test_the_api_server_serves_no_resource_group(local_cluster: LocalCluster) -> None:
    versions = local_cluster.kubectl("api-versions").stdout.split()
    assert "v1" in versions
    assert not [v for v in versions if v.startswith("resource.k8s.io/")], versions


def test_kube_scheduler_never_syncs_its_caches(local_cluster: LocalCluster) -> None:
    """The oracle: kube-scheduler v1.37.2 keeps failing to list its DRA informers and never
    takes its Lease (so never schedules a pod), whatever its profile enables."""
    log = unready_kube_scheduler_log(local_cluster)
    assert "failed to list *v1.ResourceSlice" in log
    assert "successfully acquired lease" not in log


def test_kubesched_disables_dynamic_resources_and_schedules(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    api.create(make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj())
    claimed = _pod("claimed", namespace)
    claimed["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    api.create(claimed, namespace=namespace)
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        workdir=tmp_path,
    )
    try:
        proc.wait_ready()
        log = proc.log()
        notice = (
            "does not serve resource.k8s.io/v1 (Kubernetes 1.34+): DynamicResources is "
            f"disabled for profile {SCHEDULER}; pods that reference ResourceClaims stay Pending"
        )
        assert notice in log, log
        assert log.count(notice) == 1, log
        api.create(_pod("plain", namespace), namespace=namespace)
        plain = wait_for(lambda: api.get("Pod", "plain", namespace=namespace), until=is_bound)
        assert plain["spec"]["nodeName"] == "n1"
        proc.wait_log(f'pod="{namespace}/claimed"')
        time.sleep(2)  # a few more seconds: the pod with a claim is never placed
        assert not api.get("Pod", "claimed", namespace=namespace)["spec"].get("nodeName")
        assert "Traceback" not in proc.log()
        assert proc.running()
    finally:
        assert proc.stop() == 0, proc.tail()


def test_doctor_says_what_kubesched_cannot_do_here(local_cluster: LocalCluster) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubesched",
            "doctor",
            f"--scheduler-name={SCHEDULER}",
            f"--kubeconfig={local_cluster.kubeconfig_path}",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["api-server"]["status"] == "ok", checks
    assert "(kubesched supports Kubernetes 1.34 to 1.40" in checks["api-server"]["detail"]
    served = checks["served-apis"]
    assert served["status"] == "warn", served
    assert "does not serve resource.k8s.io/v1 (Kubernetes 1.34+)" in served["detail"]
    assert "resourceclaims.resource.k8s.io/v1" in served["data"]["missing"]
