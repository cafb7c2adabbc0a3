"""docs/replay.md on the real control plane: record while kube-scheduler v1.37.2 places a
seeded workload, then replay the trace with the default profile and two configurations.

The page's commands run as written (its `sh` block, in a folder holding its YAML blocks, with
the cluster's admin kubeconfig as KUBECONFIG): `kubesched record` in the background while
the test makes six nodes of distinct sizes in three zones and 36 pods (every sixth spreading
over zones, some preferring `disk=ssd` nodes), each created once the one before is bound;
Ctrl-C (SIGINT) ends the recording cleanly; then both replays. The recording runs as a
ServiceAccount bound to the page's ClusterRole alone, so that read-only role is enough.
With kube-scheduler's default profile, at least 99 % of the pods go to kube-scheduler's
node, or to a node whose score tied with the replay's choice (`tie`: the replay counts the
nodes tied at the top).
"""

from __future__ import annotations

import functools
import json
import math
import re
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.recording import AGREEING, CLI_TIMEOUT_SECONDS, cli_env, record_around

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "replay.md"
SIZES = ((3, 7), (5, 11), (7, 13), (11, 17), (13, 23), (17, 29))
"""(CPUs, GiB) of the nodes: all different, so most scores differ."""
PODS = 36
RBAC = "/apis/rbac.authorization.k8s.io/v1"
RECORDER = "trace-recorder"


def _guide() -> tuple[list[str], dict[str, str]]:
    """The page's commands (its first `sh` block: record, replay; the later ones are run by
    the tests `tests/unit/replay/test_docs.py` names) and its files (`yaml` blocks naming a
    file)."""
    blocks = re.findall(r"```(\w+)\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)
    commands = next(body for language, body in blocks if language == "sh")
    files = {}
    for language, body in blocks:
        first = body.splitlines()[0]
        if language == "yaml" and first.startswith("# ") and first.endswith(".yaml"):
            files[first[2:]] = body
    return [line for line in commands.splitlines() if line.strip()], files


@contextmanager
def _recording_identity(
    cluster: LocalCluster, api: ApiClient, namespace: str, role: dict[str, Any], path: Path
) -> Iterator[Path]:
    """A kubeconfig of a new ServiceAccount bound to the page's ClusterRole, and nothing
    else: recording must work with that read-only role."""
    name = role["metadata"]["name"]
    api.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": RECORDER}},
        namespace=namespace,
    )
    api.request("POST", f"{RBAC}/clusterroles", body=role)
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "subjects": [{"kind": "ServiceAccount", "name": RECORDER, "namespace": namespace}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
    }
    try:
        api.request("POST", f"{RBAC}/clusterrolebindings", body=binding)
        answer = api.request(
            "POST",
            f"/api/v1/namespaces/{namespace}/serviceaccounts/{RECORDER}/token",
            body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
        )
        spec = KubeconfigSpec(
            server=cluster.server,
            ca_file=cluster.ca_file,
            token=answer["status"]["token"],
            user=RECORDER,
        )
        path.write_text(kubeconfig(spec))
        path.chmod(0o600)
        yield path
    finally:
        for kind in ("clusterrolebindings", "clusterroles"):
            api.request("DELETE", f"{RBAC}/{kind}/{name}")


def _make_workload(api: ApiClient, namespace: str) -> None:
    for i, (cpu, memory) in enumerate(SIZES):
        node = make_node().name(f"rr-n{i + 1}").capacity(cpu=str(cpu), memory=f"{memory}Gi")
        node = node.label("topology.kubernetes.io/zone", f"zone-{'abc'[i % 3]}")
        api.create((node.label("disk", "ssd") if i % 2 == 0 else node).obj())
    for i in range(PODS):
        pod = make_pod().name(f"rr-p{i}").namespace(namespace)
        pod = pod.req(cpu=f"{150 + 37 * (i % 11)}m", memory=f"{200 + 61 * (i % 7)}Mi")
        if i % 6 == 0:
            pod = pod.label("app", "spread").spread_constraint(
                1, "topology.kubernetes.io/zone", match_labels={"app": "spread"}
            )
        if i % 7 == 3:
            pod = pod.preferred_node_affinity(50, "disk", "In", ["ssd"])
        api.create(pod.obj(), namespace=namespace)
        wait_for(
            lambda i=i: api.get("Pod", f"rr-p{i}", namespace=namespace),
            until=is_bound,
            message=f"kube-scheduler binds rr-p{i}",
        )


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        shlex.split(command),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _table_count(table: str, label: str) -> int:
    """The first configuration's number in the row named `label`."""
    [cells] = [
        cells for line in table.splitlines() if (cells := re.split(r"\s{2,}", line))[0] == label
    ]
    return int(cells[1])


def test_record_then_replay_agrees_with_kube_scheduler(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    commands, files = _guide()
    assert [c.split()[:2] for c in commands] == [["kubesched", "record"]] + [
        ["kubesched", "replay"]
    ] * 2
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    role = yaml.safe_load(files["record-rbac.yaml"])
    reader = tmp_path / "recorder.kubeconfig"
    with _recording_identity(local_cluster, api, namespace, role, reader):
        work = functools.partial(_make_workload, api, namespace)
        stderr = record_around(commands[0], tmp_path, cli_env(reader), work)
    assert "ended by signal" in stderr, stderr
    assert "forbidden" not in stderr, stderr  # the page's role covers every kind
    env = cli_env(local_cluster.kubeconfig_path)

    default_table = _run(commands[1], tmp_path, env)
    agreeing = sum(_table_count(default_table, f"vs trace: {kind}") for kind in AGREEING)
    assert _table_count(default_table, "pods") == PODS, default_table
    assert agreeing >= math.ceil(0.99 * PODS), default_table

    _run(commands[2], tmp_path, env)
    report = json.loads((tmp_path / "report.json").read_text())
    least, most = report["configs"]
    assert (least["config"], most["config"]) == ("least-allocated.yaml", "most-allocated.yaml")
    assert least["scheduled"] == most["scheduled"] == PODS
    assert sum(least["agreement"][kind] for kind in AGREEING) >= math.ceil(0.99 * PODS), least
    # Packing leaves whole nodes free that spreading fills.
    assert most["empty_nodes"] > least["empty_nodes"]
