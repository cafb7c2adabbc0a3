"""The chart's lifecycle with helm against the local cluster: the config check before every
install and upgrade, one ConfigMap per config, `helm test`, and a Lease namespace that is the
chart's only when asked.

What runs for real: helm, the API server, kube-controller-manager (Deployments, ReplicaSets,
the Job controller), kube-scheduler placing the hooks' pods, and the hooks' containers: the
image `make image` builds (built or taken from its cache, as tests/e2e/test_image.py does),
unpacked and run by `harness.pod_runner`, the kubelet of one node, with the pod's arguments,
ConfigMap volume and environment. So when a hook's Job fails, it is because the image's
`kubesched --write-config-to` exited 1 on the config helm rendered. What does not run: the
Deployment's own pods (no kubelet starts them: they stay Pending on that node); for
`helm test`, kubesched runs as a local process with the installed config, arguments and
ServiceAccount token, as in tests/e2e/test_helm_chart_gang.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster, ensure_helm
from kubesched.testing import make_node
from kubesched_image.build import build
from kubesched_image.project import Project
from tests.e2e.chart_compare import CHART, as_installed, run
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.image import unpack_image
from tests.e2e.harness.pod_runner import PodRunner

RUNNER = "hook-runner"
RUNNER_LABEL = "kubesched.io/test-runner"
HOOK_COMPONENTS = {"config-check", "test"}
ON_RUNNER = "--set-string=nodeSelector.kubesched\\.io/test-runner=true"
TYPO = '--set-json=plugins={"filter": {"enabled": [{"name": "NodeResorcesFit"}]}}'
REFUSAL = 'FilterPlugin "NodeResorcesFit" does not exist'
COMPONENT = "app.kubernetes.io/component"


@pytest.fixture(scope="module")
def helm() -> Path:
    return ensure_helm()


@pytest.fixture(scope="module")
def runner(
    workload_cluster: LocalCluster, api: ApiClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PodRunner]:
    """The kubelet of node `RUNNER`, running the hooks' pods from the image."""
    root = tmp_path_factory.mktemp("hook-image")
    config = unpack_image(build(Project.default()).layout, root / "rootfs")

    def hook(pod: dict[str, Any]) -> bool:
        return pod["metadata"].get("labels", {}).get(COMPONENT) in HOOK_COMPONENTS

    kubelet = PodRunner(
        api, node=RUNNER, rootfs=root / "rootfs", image=config, workdir=root / "pods", runs=hook
    )
    with kubelet:
        yield kubelet
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def node(runner: PodRunner, api: ApiClient) -> str:
    """The runner's Node (the harness deletes every Node after each test)."""
    big = make_node().name(RUNNER).label(RUNNER_LABEL, "true")
    api.create(big.capacity(cpu="16", memory="32Gi", pods="110").obj())
    return RUNNER


class Release:
    """helm on one release of the chart in one namespace of the local cluster."""

    def __init__(self, helm: Path, cluster: LocalCluster, name: str, namespace: str) -> None:
        self.helm, self.name, self.namespace = helm, name, namespace
        self.flags = [f"--namespace={namespace}", f"--kubeconfig={cluster.kubeconfig_path}"]

    def __call__(
        self, verb: str, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        argv = [str(self.helm), verb, self.name, *args, *self.flags]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
        if check:
            assert done.returncode == 0, f"{' '.join(argv)}\n{done.stdout}\n{done.stderr}"
        return done

    def install(self, *sets: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self("install", str(CHART), ON_RUNNER, "--timeout=120s", *sets, check=check)

    def upgrade(self, *sets: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self("upgrade", str(CHART), ON_RUNNER, "--timeout=120s", *sets, check=check)


def _mounted(pod_spec: dict[str, Any]) -> str:
    (name,) = [v["configMap"]["name"] for v in pod_spec["volumes"] if v["name"] == "config"]
    return str(name)


def _config_maps(api: ApiClient, ns: str, release: str) -> dict[str, str]:
    """The release's ConfigMaps: name -> config.yaml."""
    found = api.list(
        "ConfigMap", namespace=ns, label_selector=f"app.kubernetes.io/instance={release}"
    )
    return {cm["metadata"]["name"]: cm["data"]["config.yaml"] for cm in found}


def test_a_bad_plugin_fails_helm_upgrade_and_the_replicas_keep_their_config(
    helm: Path,
    workload_cluster: LocalCluster,
    api: ApiClient,
    runner: PodRunner,
    *,
    node: str,
    namespace: str,
    tmp_path: Path,
) -> None:
    release = Release(helm, workload_cluster, "hooks", namespace)
    scheduler = ["--set=schedulerName=my-scheduler"]
    try:
        installed_out = release.install(*scheduler).stdout
        assert "STATUS: deployed" in installed_out
        assert f"helm test hooks -n {namespace}" in installed_out  # NOTES
        (checked,) = [r for r in runner.ran if r.namespace == namespace]
        assert checked.exit_code == 0, checked.output
        assert checked.argv[-1] == "--write-config-to=-"
        assert yaml.safe_load(checked.stdout)["profiles"][0]["schedulerName"] == "my-scheduler"
        assert (
            api.get_or_none("ConfigMap", "my-scheduler-config-check", namespace=namespace) is None
        )
        before = api.get("Deployment", "my-scheduler", namespace=namespace)
        installed = _mounted(before["spec"]["template"]["spec"])

        failed = release.upgrade(*scheduler, TYPO, check=False)

        assert failed.returncode != 0
        assert "UPGRADE FAILED: pre-upgrade hooks failed" in failed.stderr, failed.stderr
        assert "job my-scheduler-config-check failed: BackoffLimitExceeded" in failed.stderr
        rejected = runner.ran[-1]
        assert rejected.exit_code == 1
        assert REFUSAL in rejected.output
        job = api.get("Job", "my-scheduler-config-check", namespace=namespace)  # kept: its log
        assert job["status"].get("failed") == 1
        after = api.get("Deployment", "my-scheduler", namespace=namespace)
        assert after["metadata"]["generation"] == before["metadata"]["generation"]
        assert after["spec"] == before["spec"]
        assert "NodeResorcesFit" not in _config_maps(api, namespace, "hooks")[installed]
        # The same refusal from the config `helm template` renders, checked on this machine.
        assert REFUSAL in _checked_here(helm, namespace, *scheduler, TYPO, tmp_path=tmp_path)

        _each_config_its_config_map(release, api, namespace, installed, scheduler)
    finally:
        release("uninstall", "--wait", check=False)
    assert _config_maps(api, namespace, "hooks") == {}


def test_a_bad_plugin_fails_helm_install_before_anything_is_created(
    helm: Path,
    workload_cluster: LocalCluster,
    api: ApiClient,
    runner: PodRunner,
    *,
    node: str,
    namespace: str,
) -> None:
    release = Release(helm, workload_cluster, "typo", namespace)
    try:
        failed = release.install("--set=schedulerName=typo-sched", TYPO, check=False)

        assert failed.returncode != 0
        assert "INSTALLATION FAILED: failed pre-install" in failed.stderr, failed.stderr
        assert "job typo-sched-config-check failed: BackoffLimitExceeded" in failed.stderr
        (rejected,) = [r for r in runner.ran if r.namespace == namespace]
        assert rejected.exit_code == 1
        assert REFUSAL in rejected.stderr
        for kind in ("Deployment", "ServiceAccount", "Service"):
            assert api.get_or_none(kind, "typo-sched", namespace=namespace) is None, kind
        assert _config_maps(api, namespace, "typo") == {}
        assert api.get_or_none("ClusterRole", f"kubesched:{namespace}:typo-sched") is None
    finally:
        release("uninstall", check=False)


def _checked_here(helm: Path, namespace: str, *sets: str, tmp_path: Path) -> str:
    """kubesched --write-config-to on the config check's ConfigMap as helm renders it."""
    argv = [str(helm), "template", "hooks", str(CHART), f"--namespace={namespace}", *sets]
    rendered = run([*argv, "--show-only=templates/config-check.yaml"])
    (config_map,) = [d for d in yaml.safe_load_all(rendered) if d and d["kind"] == "ConfigMap"]
    path = tmp_path / "config.yaml"
    path.write_text(config_map["data"]["config.yaml"])
    done = subprocess.run(
        [sys.executable, "-m", "kubesched", f"--config={path}", "--write-config-to=-"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stdout
    return done.stderr


def _each_config_its_config_map(
    release: Release, api: ApiClient, ns: str, first: str, scheduler: list[str]
) -> None:
    """Two good upgrades that change the config: each makes a ConfigMap of its own; the one a
    ReplicaSet with replicas still mounts stays, and goes at the first upgrade after that
    ReplicaSet was scaled to zero."""
    release.upgrade(*scheduler, "--set=config.parallelism=8")
    second = _mounted(_deployment(api, ns)["spec"]["template"]["spec"])
    assert second != first
    kept = _config_maps(api, ns, "hooks")
    assert set(kept) == {first, second}
    assert "parallelism: 8" in kept[second]
    assert "parallelism" not in kept[first]
    replica_sets = wait_for(
        lambda: api.list("ReplicaSet", namespace=ns),
        until=lambda found: (
            len(found) == 2
            and all(
                rs["spec"]["replicas"] == 0
                for rs in found
                if _mounted(rs["spec"]["template"]["spec"]) == first
            )
        ),
        message="the rollout to the second config done: the first ReplicaSet scaled to zero",
    )
    assert {_mounted(rs["spec"]["template"]["spec"]) for rs in replica_sets} == {first, second}

    release.upgrade(*scheduler, "--set=config.parallelism=9")
    third = _mounted(_deployment(api, ns)["spec"]["template"]["spec"])
    assert set(_config_maps(api, ns, "hooks")) == {second, third}


def _deployment(api: ApiClient, ns: str) -> dict[str, Any]:
    return api.get("Deployment", "my-scheduler", namespace=ns)


def test_helm_test_passes_only_while_kubesched_schedules(
    helm: Path,
    workload_cluster: LocalCluster,
    api: ApiClient,
    runner: PodRunner,
    *,
    node: str,
    namespace: str,
    kubesched: Any,
    tmp_path: Path,
) -> None:
    release = Release(helm, workload_cluster, "tested", namespace)
    try:
        release.install("--set=schedulerName=helm-test-sched")
        args = as_installed(api, workload_cluster, namespace, "helm-test-sched", tmp_path)
        proc = kubesched(*args, extra_env={"POD_NAMESPACE": namespace})
        wait_for(
            lambda: api.get("Lease", "helm-test-sched", namespace=namespace),
            until=lambda lease: lease["spec"].get("holderIdentity"),
            message="kubesched leads",
        )

        passed = release("test", "--timeout=60s")

        assert "Phase:          Succeeded" in passed.stdout, passed.stdout
        (tested,) = [r for r in runner.ran if r.pod == "helm-test-sched-test-0"]
        assert tested.exit_code == 0
        assert tested.argv[-1] == "--version"
        (scheduled,) = api.events(namespace, regarding="helm-test-sched-test-0", reason="Scheduled")
        assert f"to {node}" in scheduled.note

        proc.stop()
        failed = release("test", "--timeout=10s", check=False)

        assert failed.returncode != 0
        pod = api.get("Pod", "helm-test-sched-test-0", namespace=namespace)
        assert not is_bound(pod)  # no scheduler serves helm-test-sched any more
    finally:
        release("uninstall", "--wait", check=False)


def test_the_lease_namespace_is_the_charts_only_when_asked(
    helm: Path,
    workload_cluster: LocalCluster,
    api: ApiClient,
    runner: PodRunner,
    *,
    node: str,
    namespace: str,
    new_namespace: Any,
) -> None:
    existing = new_namespace("team-leases")
    keep = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not-the-charts"}}
    api.create(keep, namespace=existing)
    shared = Release(helm, workload_cluster, "shared", namespace)
    try:
        shared.install(f"--set=leaderElection.resourceNamespace={existing}")
        assert api.get("Role", "kubesched-leader-election", namespace=existing)
    finally:
        shared("uninstall", "--wait")
    assert api.get("Namespace", existing)["status"]["phase"] == "Active"
    assert api.get_or_none("ConfigMap", "not-the-charts", namespace=existing)
    assert api.get_or_none("Role", "kubesched-leader-election", namespace=existing) is None

    created = f"{namespace}-lease"[:63]
    own = Release(helm, workload_cluster, "own", namespace)
    try:
        own.install(f"--set=leaderElection.resourceNamespace={created},namespace.create=true")
        assert api.get("Namespace", created)["metadata"]["annotations"] == {
            "helm.sh/resource-policy": "keep",
            "meta.helm.sh/release-name": "own",
            "meta.helm.sh/release-namespace": namespace,
        }
        own("uninstall", "--wait")
        assert api.get("Namespace", created)["status"]["phase"] == "Active"  # kept
    finally:
        own("uninstall", check=False)
        if api.get_or_none("Namespace", created):
            api.delete("Namespace", created)
