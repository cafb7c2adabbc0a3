"""`kubesched dev-cluster up --dra` as the README writes it: the whole local cluster with the
example DRA driver; a pod whose claim comes from a template gets a GPU from kube-scheduler
and runs, the driver's process prepares the claim, `status` lists it and `down` stops it.
The dev cluster lives in a throwaway cache folder (the binaries are linked in), so a dev
cluster of the user is never touched; the worker's own control plane is not started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import ensure_binaries
from kubesched.localcluster.dra_objects import DRIVER, claim_template
from kubesched.localcluster.paths import CACHE_ENV
from tests.e2e.harness import wait_for

README = Path(__file__).resolve().parents[2] / "README.md"
UP = "kubesched dev-cluster up --dra"


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """This module runs its own dev cluster, not the worker's control plane."""


@pytest.fixture
def dev_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a user's shell whose kubesched cache is a fresh folder."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, path in ensure_binaries().as_dict().items():
        (bin_dir / name).symlink_to(path)
    env = {**os.environ, CACHE_ENV: str(tmp_path / "cache"), "KUBESCHED_K8S_BIN": str(bin_dir)}
    try:
        yield env
    finally:
        dev_cluster(env, "down")


def dev_cluster(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "kubesched", "dev-cluster", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180, check=False)


def kubectl(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    kubectl_path = Path(env["KUBESCHED_K8S_BIN"]) / "kubectl"
    done = subprocess.run(
        [str(kubectl_path), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def get(env: dict[str, str], *args: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(kubectl(env, "get", *args, "-o", "json"))
    return found


def test_dev_cluster_up_dra_runs_a_gpu_pod_as_the_readme_says(dev_env: dict[str, str]) -> None:
    assert f".venv/bin/{UP} " in README.read_text()

    up = dev_cluster(dev_env, *UP.split()[2:])

    assert up.returncode == 0, up.stderr
    assert "example DRA driver gpu.example.com on gpu-node-0, gpu-node-1" in up.stderr
    env = {**dev_env, "KUBECONFIG": up.stdout.strip().removeprefix("export KUBECONFIG=")}
    slices = get(env, "resourceslices")["items"]
    pools = sorted({s["spec"]["pool"]["name"] for s in slices})
    assert pools == ["gpu-node-0", "gpu-node-1"]
    gpu = f'device.attributes["{DRIVER}"].type == "gpu"'
    template = claim_template("default", "one-gpu", selectors=[gpu])
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "cuda", "namespace": "default"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
            "containers": [
                {"name": "main", "image": "cuda", "resources": {"claims": [{"name": "gpu"}]}}
            ],
        },
    }
    items = {"apiVersion": "v1", "kind": "List", "items": [template, pod]}
    kubectl(env, "create", "-f", "-", stdin=json.dumps(items))

    running = wait_for(
        lambda: get(env, "pod", "cuda"),
        until=lambda p: p["status"].get("phase") == "Running",
        message="the GPU pod Running",
    )

    assert running["spec"]["nodeName"] in {"gpu-node-0", "gpu-node-1"}
    claim_name = running["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim = wait_for(
        lambda: get(env, "resourceclaim", claim_name),
        until=lambda c: c["status"].get("devices"),
        message="the dra-driver process prepared the claim",
    )
    (result,) = claim["status"]["allocation"]["devices"]["results"]
    assert result["pool"] == running["spec"]["nodeName"]
    assert result["device"].startswith("gpu-")
    status = dev_cluster(env, "status")
    assert status.returncode == 0, status.stdout
    assert "dra-driver" in status.stdout

    down = dev_cluster(env, "down")

    assert down.returncode == 0
    assert "dra-driver" in down.stderr
