"""docs/replay.md's "Shadow a live scheduler" beside kube-scheduler v1.37.2: kubesched run
--shadow-scheduler-name=default-scheduler agrees with kube-scheduler with the default profile,
disagrees exactly where a plugin makes it, and writes nothing.

This module runs its own control plane (kube-apiserver with an audit log of every request of
the shadow's identity, and the real kube-scheduler serving `default-scheduler`). The shadow
runs as a ServiceAccount bound to the page's read-only ClusterRole and `system:auth-delegator`
only. Pods are created one after the other, each once kube-scheduler bound the one before, so
that every decision of kube-scheduler is deterministic but for its ties, which kubesched sees.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from kubesched.scheduler.shadow_report import disagreements_from_log
from kubesched.server.shadow_setup import ELECTION_OFF
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, is_unschedulable, wait_for
from tests.e2e.harness.audit import audit_flags
from tests.e2e.harness.kubesched import KubeschedProcess
from tests.e2e.harness.own_cluster import admin_client, own_cluster

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "replay.md"
PREFER_LABEL = ROOT / "examples" / "prefer_label"
PREFERRED_LABEL = ("node-role.example.com/batch", "true")  # examples/prefer_label/profile.yaml
SIZES = ((4, 8), (8, 16), (12, 24), (16, 32))
"""(CPUs, GiB) of the four nodes; the last one carries PREFERRED_LABEL in the plugin run."""
PODS = 20
IDENTITY_NAMESPACE = "kubesched-shadow-identity"
ACCOUNT = "kubesched-shadow"
USER = f"system:serviceaccount:{IDENTITY_NAMESPACE}:{ACCOUNT}"
READS = {"get", "list", "watch"}
REVIEWS = {"tokenreviews", "subjectaccessreviews"}
RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [{"level": "Metadata", "users": [USER]}, {"level": "None"}],
}


def guide() -> tuple[list[list[str]], dict[str, Any]]:
    """The section's commands (its `shell` block, split) and its RBAC (the `yaml` block)."""
    text = GUIDE.read_text().split("## Shadow a live scheduler", 1)[1]
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, flags=re.DOTALL)
    [commands] = [body for language, body in blocks if language == "shell"]
    [role] = [body for language, body in blocks if language == "yaml"]
    return [shlex.split(line) for line in commands.splitlines() if line.strip()], yaml.safe_load(
        role
    )


COMMANDS, ROLE = guide()


@pytest.fixture(scope="module")
def audit_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit") / "audit.log"


@pytest.fixture(scope="module")
def local_cluster(
    request: pytest.FixtureRequest, audit_log: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalCluster]:
    """This module's own control plane: the audit log, and kube-scheduler."""
    flags = audit_flags(AUDIT_POLICY, folder=tmp_path_factory.mktemp("audit-policy"), log=audit_log)
    cluster = LocalCluster(apiserver_args=flags)
    with own_cluster(request, cluster, then=lambda c: c.start_default_scheduler()) as started:
        yield started


@pytest.fixture(scope="module")
def api(local_cluster: LocalCluster) -> ApiClient:
    return admin_client(local_cluster)


@pytest.fixture(scope="module")
def shadow_kubeconfig(
    local_cluster: LocalCluster, api: ApiClient, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A kubeconfig of the shadow's own ServiceAccount, bound to the page's ClusterRole and
    `system:auth-delegator`, nothing else."""
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": IDENTITY_NAMESPACE}})
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": ACCOUNT}}
    api.create(account, namespace=IDENTITY_NAMESPACE)
    api.request("POST", f"{RBAC}/clusterroles", body=ROLE)
    for role in (ROLE["metadata"]["name"], "system:auth-delegator"):
        api.request("POST", f"{RBAC}/clusterrolebindings", body=_binding(role))
    answer = api.request(
        "POST",
        f"/api/v1/namespaces/{IDENTITY_NAMESPACE}/serviceaccounts/{ACCOUNT}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
    )
    spec = KubeconfigSpec(
        server=local_cluster.server,
        ca_file=local_cluster.ca_file,
        token=answer["status"]["token"],
        user=ACCOUNT,
    )
    path = tmp_path_factory.mktemp("shadow") / "shadow.kubeconfig"
    path.write_text(kubeconfig(spec))
    path.chmod(0o600)
    return path


def _binding(role: str) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": f"{ACCOUNT}-{role.replace(':', '-')}"},
        "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": IDENTITY_NAMESPACE}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
    }


def run_args(command: list[str], *, config: Path | None = None) -> list[str]:
    """A `kubesched run ...` line's flags (the harness adds --kubeconfig and the port; the
    log goes to the process's log file, as `2> kubesched.log` sends it); `config` in place
    of its `profile.yaml`."""
    assert command[:2] == ["kubesched", "run"], command
    flags = [arg for arg in command[2:] if arg not in ("2>", "kubesched.log")]
    return [f"--config={config}" if arg == "--config=profile.yaml" else arg for arg in flags]


def example_profile(kubeconfig_path: Path, folder: Path) -> Path:
    """examples/prefer_label/profile.yaml, connecting with `kubeconfig_path` (with --config,
    kube-scheduler's rule ignores --kubeconfig: the file's clientConnection says it)."""
    document = yaml.safe_load((PREFER_LABEL / "profile.yaml").read_text())
    document["clientConnection"] = {"kubeconfig": str(kubeconfig_path)}
    path = folder / "profile.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


def create_nodes(api: ApiClient, *, preferred: bool) -> str:
    """The four nodes; the name of the biggest, labelled PREFERRED_LABEL when `preferred`."""
    names = []
    for cpus, gib in SIZES:
        node = make_node().name(f"shadow-{cpus}cpu").capacity(cpu=str(cpus), memory=f"{gib}Gi")
        if preferred and (cpus, gib) == SIZES[-1]:
            node = node.label(*PREFERRED_LABEL)
        api.create(node.obj())
        names.append(f"shadow-{cpus}cpu")
    return names[-1]


def place_pods(api: ApiClient, namespace: str, seed: int) -> dict[str, dict[str, Any]]:
    """PODS pods for default-scheduler, each created once the one before is bound: name ->
    the pod as kube-scheduler left it."""
    rng = random.Random(seed)
    placed = {}
    for index in range(PODS):
        name = f"p-{index:02d}"
        cpu, memory = rng.choice((100, 300, 500, 900)), rng.choice((128, 512, 1024, 2048))
        pod = make_pod().name(name).namespace(namespace).scheduler("default-scheduler")
        api.create(pod.req(cpu=f"{cpu}m", memory=f"{memory}Mi").obj())
        placed[name] = wait_for(
            lambda name=name: api.get("Pod", name, namespace=namespace),
            until=is_bound,
            timeout=30,
            message=f"kube-scheduler binds {name}",
        )
    return placed


def decision_counts(proc: KubeschedProcess) -> dict[str, int]:
    status, text = proc.get("/metrics")
    assert status == 200, text
    pattern = r'kubesched_shadow_decisions_total\{agreement="([^"]+)",profile="[^"]+"\} (\S+)'
    return {agreement: int(float(value)) for agreement, value in re.findall(pattern, text)}


def wait_compared(proc: KubeschedProcess, pods: int = PODS) -> dict[str, int]:
    return wait_for(
        lambda: decision_counts(proc),
        until=lambda counts: sum(counts.values()) >= pods,
        timeout=30,
        message=f"the shadow compares all {pods} pods",
    )


def create_too_big(api: ApiClient, namespace: str) -> None:
    """A pod no node can hold: kube-scheduler marks it PodScheduled=False (Unschedulable)."""
    pod = make_pod().name("too-big").namespace(namespace).scheduler("default-scheduler")
    api.create(pod.req(cpu="64").obj())
    wait_for(
        lambda: api.get("Pod", "too-big", namespace=namespace),
        until=is_unschedulable,
        timeout=30,
        message="kube-scheduler finds no node for too-big",
    )


def run_report(proc: KubeschedProcess, cluster: LocalCluster) -> str:
    """The page's `kubesched shadow report` line, pointed at this shadow and its log."""
    [report] = [c for c in COMMANDS if c[:3] == ["kubesched", "shadow", "report"]]
    argv = [
        arg.replace("https://127.0.0.1:10259", f"https://127.0.0.1:{proc.port}").replace(
            "--log=kubesched.log", f"--log={proc.log_path}"
        )
        for arg in report[1:]
    ]
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig_path)}
    done = subprocess.run(
        [sys.executable, "-m", "kubesched", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def assert_wrote_nothing(
    api: ApiClient, namespace: str, placed: dict[str, dict[str, Any]], audit_log: Path
) -> None:
    """No pod changed after kube-scheduler bound it, no Event is kubesched's, and the audit
    log holds no request of the shadow's identity but reads and the two reviews."""
    for name, pod in placed.items():
        now = api.get("Pod", name, namespace=namespace)
        assert now["metadata"]["resourceVersion"] == pod["metadata"]["resourceVersion"], name
        managers = {entry["manager"] for entry in now["metadata"].get("managedFields", ())}
        assert not any("kubesched" in manager for manager in managers), managers
    reporters = {event.reporting_controller for event in api.events(namespace)}
    reporters |= {event.reporting_controller for event in api.core_events(namespace)}
    assert reporters == {"default-scheduler"}, reporters
    requests = [json.loads(line) for line in audit_log.read_text().splitlines() if line]
    mine = [r for r in requests if r["user"]["username"] == USER]
    assert any(r["verb"] == "watch" and r["objectRef"].get("resource") == "pods" for r in mine)
    writes = [
        f"{r['verb']} {r['requestURI']}"
        for r in mine
        if r["verb"] not in READS
        and not (r["verb"] == "create" and r.get("objectRef", {}).get("resource") in REVIEWS)
    ]
    assert writes == []


@dataclass(frozen=True)
class Bench:
    """What each test uses: the admin client, its namespace, the cluster, the shadow's
    kubeconfig and the audit log, and the kubesched fixture's starter."""

    api: ApiClient
    namespace: str
    cluster: LocalCluster
    kubeconfig: Path
    audit_log: Path
    start: Any


@pytest.fixture
def bench(  # noqa: PLR0917 - pytest hands fixtures over by name
    kubesched: Any,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    shadow_kubeconfig: Path,
    audit_log: Path,
) -> Bench:
    return Bench(api, namespace, local_cluster, shadow_kubeconfig, audit_log, kubesched)


def test_default_profile_agrees_and_writes_nothing(bench: Bench) -> None:
    api, namespace = bench.api, bench.namespace
    create_nodes(api, preferred=False)
    proc = bench.start(*run_args(COMMANDS[0]), name="shadow", kubeconfig=bench.kubeconfig)
    assert proc.log().count(ELECTION_OFF) == 1
    placed = place_pods(api, namespace, seed=44)
    create_too_big(api, namespace)
    counts = wait_compared(proc, PODS + 1)
    agreeing = counts.get("same-node", 0) + counts.get("tie", 0)
    print(f"default profile: {counts}")
    assert counts.get("both-unschedulable") == 1, counts
    assert sum(counts.values()) == PODS + 1
    assert agreeing >= 0.99 * PODS, (counts, proc.log())
    report = run_report(proc, bench.cluster)
    assert f"{PODS + 1} decisions compared, {agreeing + 1} agree" in report
    assert_wrote_nothing(api, namespace, placed, bench.audit_log)


def test_a_plugin_disagrees_exactly_where_it_changes_the_choice(bench: Bench) -> None:
    api, namespace = bench.api, bench.namespace
    preferred = create_nodes(api, preferred=True)
    config = example_profile(bench.kubeconfig, bench.kubeconfig.parent)
    proc = bench.start(
        *run_args(COMMANDS[1], config=config),
        name="shadow-plugin",
        kubeconfig=bench.kubeconfig,
        extra_env={"PYTHONPATH": str(PREFER_LABEL)},
    )
    placed = place_pods(api, namespace, seed=45)
    counts = wait_compared(proc)
    elsewhere = {
        f"{namespace}/{name}"
        for name, pod in placed.items()
        if pod["spec"]["nodeName"] != preferred
    }
    print(f"PreferNodeLabel: {counts}; {len(elsewhere)} pods kube-scheduler put elsewhere")
    assert elsewhere, "kube-scheduler spreads the pods: some land off the preferred node"
    assert counts.get("different", 0) == len(elsewhere)
    assert counts.get("same-node", 0) == PODS - len(elsewhere)
    logged = disagreements_from_log(proc.log())
    assert {entry["pod"] for entry in logged} == elsewhere
    assert all(entry["kubeschedNode"] == preferred for entry in logged)
    report = run_report(proc, bench.cluster)
    assert f"disagreements in {proc.log_path}: {len(elsewhere)}" in report
    assert_wrote_nothing(api, namespace, placed, bench.audit_log)
