"""`kubesched dev-cluster up --feature-gates=...` as docs/topology.md writes it (and the README
lists it): the page's two commands run as written by a shell, then each component shows it
took the gates — kube-apiserver keeps a PodGroup's topology constraint, kube-scheduler places
a gang in the one rack that holds it all — and a gate without the gates it depends on, or a
misspelt one, stops `up` with one line naming the fix. The dev cluster lives in a throwaway
cache folder (the binaries are linked in), so a dev cluster of the user is never touched; the
worker's own control plane is not started."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import ensure_binaries
from kubesched.localcluster.gates import TOPOLOGY_GATES
from kubesched.localcluster.paths import CACHE_ENV
from tests.e2e.harness import wait_for
from tests.e2e.test_dev_cluster_dra import dev_cluster, get, kubectl

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "topology.md"
UP = f"kubesched dev-cluster up --feature-gates={TOPOLOGY_GATES}"
ENV = 'eval "$(kubesched dev-cluster env)"'
RACKS = """apiVersion: v1
kind: Node
metadata: {name: a-1, labels: {topology.kubernetes.io/rack: rack-a}}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: b-1, labels: {topology.kubernetes.io/rack: rack-b}}
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: trio, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 3}}
  schedulingConstraints:
    topology: [{key: topology.kubernetes.io/rack}]
"""
"""rack-a holds two members of 2 CPUs, rack-b all three: with the gate, kube-scheduler
places the whole gang on b-1."""


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """This module runs its own dev cluster, not the worker's control plane."""


@pytest.fixture
def dev_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A user's shell: a fresh kubesched cache, the binaries linked in, the venv on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, binary in ensure_binaries().as_dict().items():
        (bin_dir / name).symlink_to(binary)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env: dict[str, str] = {
        **os.environ,
        CACHE_ENV: str(tmp_path / "cache"),
        "KUBESCHED_K8S_BIN": str(bin_dir),
        "PATH": path,
    }
    env.pop("KUBECONFIG", None)
    try:
        yield env
    finally:
        dev_cluster(env, "down")


def _member(name: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
        "spec: {schedulingGroup: {podGroupName: trio}, containers: "
        "[{name: c, image: x, resources: {requests: {cpu: '2'}}}]}\n"
    )


def test_the_pages_dev_cluster_gives_every_component_the_gates(dev_env: dict[str, str]) -> None:
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)
    assert f"{UP}\n{ENV}\n" in blocks, "docs/topology.md's dev-cluster block"
    assert f".venv/bin/{UP} " in (ROOT / "README.md").read_text()

    shell = subprocess.run(
        ["/bin/sh", "-c", f'{UP}\n{ENV}\necho "KUBECONFIG=$KUBECONFIG"'],
        env=dev_env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )

    assert shell.returncode == 0, shell.stderr
    assert f"run kubesched with --feature-gates={TOPOLOGY_GATES} too" in shell.stderr
    kubeconfig = shell.stdout.strip().splitlines()[-1].removeprefix("KUBECONFIG=")
    env = {**dev_env, "KUBECONFIG": kubeconfig}
    status = dev_cluster(env, "status")
    assert status.returncode == 0, status.stdout
    assert f"gates       {TOPOLOGY_GATES}  (" in status.stdout
    kubectl(env, "apply", "-f", "-", stdin=RACKS)
    group = get(env, "podgroup", "trio", "-n", "default")
    assert group["spec"]["schedulingConstraints"] == {
        "topology": [{"key": "topology.kubernetes.io/rack"}]
    }, "kube-apiserver dropped the constraint: TopologyAwareWorkloadScheduling is off"
    kubectl(env, "create", "-f", "-", stdin="---\n".join(_member(f"m{i}") for i in range(3)))
    pods = wait_for(
        lambda: get(env, "pods", "-n", "default")["items"],
        until=lambda items: len(items) == 3 and all(p["spec"].get("nodeName") for p in items),
        message="the gang bound by kube-scheduler",
        timeout=60,
    )
    # Without the gate kube-scheduler spreads them: b-1 first, then a-1 (less allocated).
    assert {p["spec"]["nodeName"] for p in pods} == {"b-1"}, "the gang is within rack-b"


BAD_GATES = {
    "TopologyAwareWorkloadScheduling=true": (
        "TopologyAwareWorkloadScheduling is enabled, but depends on features that are "
        "disabled: [GenericWorkload]; add GenericWorkload=true"
    ),
    "GenericWorkload=true,TopologyAwareScheduling=true": (
        "unrecognized feature gate: TopologyAwareScheduling; did you mean "
        "TopologyAwareWorkloadScheduling?"
    ),
}
"""A gate without the one it depends on, a misspelt one -> kube-apiserver's verdict and fix."""


def test_a_bad_gate_stops_up_with_one_line_naming_the_fix(dev_env: dict[str, str]) -> None:
    for gates, fix in BAD_GATES.items():
        up = dev_cluster(dev_env, "up", f"--feature-gates={gates}")

        assert up.returncode == 1
        assert up.stderr.strip() == (
            f"kubesched dev-cluster: error: --feature-gates={gates}: kube-apiserver refuses "
            f"it: {fix}"
        )
    assert dev_cluster(dev_env, "status").returncode == 1  # nothing was left running
