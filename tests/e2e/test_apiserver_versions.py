"""What kubesched does on an API server that lacks part of what it reads, checked at start-up
(`kubesched.server.apicheck`), on this module's own control plane: kube-apiserver v1.37.2
with `--runtime-config=resource.k8s.io/v1/devicetaintrules=false`, which serves DRA as
Kubernetes 1.34 to 1.36 do (DeviceTaintRules reached resource.k8s.io/v1 in 1.37).

- kubesched runs, says once that DeviceTaintRules are not read, and schedules;
- a plugin that reads a custom resource whose CRD is not installed is refused at once with
  one line naming the plugin, the resource and the fix (not after 120 s of unsynced caches).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.own_cluster import admin_client, own_cluster, unready_kube_scheduler_log

APISERVER_ARGS = ("--runtime-config=resource.k8s.io/v1/devicetaintrules=false",)
SCHEDULER = "versions-scheduler"

WIDGET_PLUGIN = """
from kubesched.framework import ResourceSpec

WIDGETS = ResourceSpec("widgets.example.com", "v1", "widgets")


class WidgetRule:
    name = "WidgetRule"
    resources = (WIDGETS,)

    def __init__(self, *, args, handle):
        self._widgets = handle.lister(WIDGETS)

    def filter(self, state, pod, node_info):
        return None


def register(registry):
    registry.register_class(WidgetRule)
"""


@pytest.fixture(scope="module")
def local_cluster(request: pytest.FixtureRequest) -> Iterator[LocalCluster]:
    """This module's control plane, without DeviceTaintRules (no kube-scheduler)."""
    with own_cluster(request, LocalCluster(apiserver_args=APISERVER_ARGS)) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    return admin_client(local_cluster)


def test_kube_scheduler_never_syncs_without_device_taint_rules(
    local_cluster: LocalCluster,
) -> None:
    """The oracle: kube-scheduler v1.37.2 (DRADeviceTaintRules on) waits for DeviceTaintRules
    forever and never takes its Lease."""
    log = unready_kube_scheduler_log(local_cluster)
    assert "failed to list *v1.DeviceTaintRule" in log
    assert "failed to list *v1.ResourceSlice" not in log
    assert "successfully acquired lease" not in log


def test_without_device_taint_rules_kubesched_schedules(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    resources = local_cluster.kubectl("api-resources", "--api-group=resource.k8s.io").stdout
    assert "resourceslices" in resources
    assert "devicetaintrules" not in resources
    api.create(make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="110").obj())
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
            "does not serve devicetaintrules.resource.k8s.io/v1 (Kubernetes 1.37+): "
            "DeviceTaintRules are not read; device taints come from the ResourceSlices alone"
        )
        assert log.count(notice) == 1, log
        assert "DynamicResources is disabled" not in log
        assert "'DynamicResources'" in log  # still in the profile
        pod = make_pod().name("p").namespace(namespace).req(cpu="100m").scheduler(SCHEDULER)
        api.create(pod.obj(), namespace=namespace)
        bound = wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound)
        assert bound["spec"]["nodeName"] == "n1"
        assert "Traceback" not in proc.log()
    finally:
        assert proc.stop() == 0, proc.tail()


def test_plugin_reading_an_uninstalled_crd_is_refused(
    local_cluster: LocalCluster, tmp_path: Path
) -> None:
    (tmp_path / "widget_rule.py").write_text(textwrap.dedent(WIDGET_PLUGIN))
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(local_cluster.kubeconfig_path)},
        "leaderElection": {"leaderElect": False},
        "profiles": [
            {
                "schedulerName": SCHEDULER,
                "plugins": {"filter": {"enabled": [{"name": "WidgetRule"}]}},
            }
        ],
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kubesched",
            f"--config={tmp_path / 'config.yaml'}",
            "--plugin-module=widget_rule",
            "--secure-port=0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert time.monotonic() - started < 30, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("kubesched: ")]
    expected = (
        f"kubesched: the API server at {local_cluster.server} (v1.37.2) does not serve "
        f"widgets.widgets.example.com/v1, read by WidgetRule (profile {SCHEDULER}): install its "
        "CustomResourceDefinition or enable that API (kube-apiserver --runtime-config), or "
        "disable the plugin in the profile"
    )
    assert errors == [expected], output
