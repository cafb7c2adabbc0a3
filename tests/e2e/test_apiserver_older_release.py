"""kubesched against an older release: kube-apiserver v1.36.1 (built once from the Go module
proxy, `harness.older_apiserver`), with everything else of the local cluster at v1.37.2.

Kubernetes 1.36 serves `resource.k8s.io/v1` but not its DeviceTaintRules (they reached v1 in
1.37): kubesched says so once and schedules; kube-scheduler v1.37.2, one minor version newer
than this API server (outside its skew policy), waits for its DeviceTaintRule informer
forever and never takes its Lease. `doctor` names the version and what is not served.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.older_apiserver import older_binaries, older_module
from tests.e2e.harness.own_cluster import admin_client, own_cluster, unready_kube_scheduler_log

SCHEDULER = "older-release-scheduler"


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's control plane with the older kube-apiserver (no kube-scheduler)."""
    with own_cluster(request, LocalCluster(binaries=older_binaries())) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    return admin_client(local_cluster)


def test_the_api_server_is_the_older_release(api: ApiClient) -> None:
    version = api.request("GET", "/version")
    assert version["gitVersion"] == older_module().version == "v1.36.1"


def test_kube_scheduler_does_not_run_on_an_older_api_server(local_cluster: LocalCluster) -> None:
    log = unready_kube_scheduler_log(local_cluster)
    assert "failed to list *v1.DeviceTaintRule" in log
    assert "successfully acquired lease" not in log


def test_kubesched_schedules_and_says_what_it_cannot_do(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    api.create(make_node().name("n1").capacity(cpu="4", memory="8Gi").obj())
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        workdir=tmp_path,
    )
    try:
        proc.wait_ready()
        log = proc.log()
        assert 'version="v1.36.1"' in log, log
        notice = (
            "this API server (v1.36.1) does not serve devicetaintrules.resource.k8s.io/v1 "
            "(Kubernetes 1.37+): DeviceTaintRules are not read"
        )
        assert log.count(notice) == 1, log
        pod = make_pod().name("p").namespace(namespace).req(cpu="100m").scheduler(SCHEDULER)
        api.create(pod.obj(), namespace=namespace)
        bound = wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound)
        assert bound["spec"]["nodeName"] == "n1"
        assert "Traceback" not in proc.log()
    finally:
        assert proc.stop() == 0, proc.tail()


def test_doctor_names_the_version(local_cluster: LocalCluster) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    argv = [sys.executable, "-m", "kubesched", "doctor", f"--scheduler-name={SCHEDULER}"]
    argv += [f"--kubeconfig={local_cluster.kubeconfig_path}", "-o", "json"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["api-server"]["status"] == "ok"
    assert (
        "Kubernetes v1.36.1 (kubesched supports Kubernetes 1.34 to 1.40"
        in (checks["api-server"]["detail"])
    )
    assert checks["served-apis"]["status"] == "warn"
    assert checks["served-apis"]["data"]["missing"] == ["devicetaintrules.resource.k8s.io/v1"]
