"""`kubesched dev-cluster up --scheduler-plugins` as the README writes it: scheduler-plugins'
CRDs, controller and scheduler (profile `scheduler-plugins-scheduler`) beside the rest; a
PodGroup of two is placed by its scheduler, its controller writes the group's phase, `status`
lists both processes and `down` stops them. The dev cluster lives in a throwaway cache folder
(the binaries are linked in), so a dev cluster of the user is never touched; the worker's own
control plane is not started."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import ensure_binaries
from kubesched.localcluster.binaries import ensure_scheduler_plugins
from kubesched.localcluster.paths import CACHE_ENV
from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from tests.e2e.harness import wait_for
from tests.e2e.test_dev_cluster_dra import dev_cluster, get, kubectl

USES_SCHEDULER_PLUGINS = True
"""tests/e2e/conftest.py builds scheduler-plugins' binaries at collection, outside timeouts."""
README = Path(__file__).resolve().parents[2] / "README.md"
UP = "kubesched dev-cluster up --scheduler-plugins"
SCHEDULER = "scheduler-plugins-scheduler"
GROUP = """apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pair, namespace: default}
spec: {minMember: 2}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "10"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "10"}
  conditions: [{type: Ready, status: "True"}]
"""


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """This module runs its own dev cluster, not the worker's control plane."""


@pytest.fixture
def dev_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a user's shell whose kubesched cache is a fresh folder; every binary,
    scheduler-plugins' two included, linked from the real cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    plugins = ensure_scheduler_plugins()
    linked = {
        **ensure_binaries().as_dict(),
        SCHEDULER: plugins.scheduler,
        "scheduler-plugins-controller": plugins.controller,
    }
    for name, path in linked.items():
        (bin_dir / name).symlink_to(path)
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache"), "KUBESCHED_K8S_BIN": str(bin_dir)}
    try:
        yield env
    finally:
        dev_cluster(env, "down")


def _member(name: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, labels: "
        f"{{{POD_GROUP_LABEL}: pair}}}}\nspec: {{schedulerName: {SCHEDULER}, containers: "
        "[{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n"
    )


def test_dev_cluster_up_runs_scheduler_plugins_as_the_readme_says(
    dev_env: dict[str, str],
) -> None:
    assert f".venv/bin/{UP} " in README.read_text()

    up = dev_cluster(dev_env, *UP.split()[2:])

    assert up.returncode == 0, up.stderr
    assert f"pods with schedulerName {SCHEDULER} go to its scheduler" in up.stderr
    env = {**dev_env, "KUBECONFIG": up.stdout.strip().removeprefix("export KUBECONFIG=")}
    status = dev_cluster(env, "status")
    assert status.returncode == 0, status.stdout
    assert {"scheduler-plugins-controller", SCHEDULER} <= {
        line.split()[0] for line in status.stdout.splitlines()
    }
    kubectl(env, "apply", "-f", "-", stdin=GROUP)
    kubectl(env, "create", "-f", "-", stdin=_member("m0") + "---\n" + _member("m1"))
    pods = wait_for(
        lambda: get(env, "pods", "-n", "default")["items"],
        until=lambda items: len(items) == 2 and all(p["spec"].get("nodeName") for p in items),
        message="both members bound by scheduler-plugins' scheduler",
    )
    assert {p["spec"]["nodeName"] for p in pods} == {"n1"}
    wait_for(
        lambda: get(env, "podgroup", "pair", "-n", "default").get("status", {}).get("phase"),
        until=lambda phase: phase == "Scheduling",
        message="its controller moved the group to Scheduling",
    )

    down = dev_cluster(env, "down")
    assert down.returncode == 0, down.stderr
    assert "scheduler-plugins-scheduler, scheduler-plugins-controller" in down.stderr
