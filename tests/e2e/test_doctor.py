"""`kubesched doctor` and `kubesched leases` end to end, on the real control plane.

The RBAC of the guide on leader-election conflicts (leases get/create/update restricted to
`resourceNames: [my-custom-scheduler]`) cannot create the Lease: doctor, reviewing that
service account, says so and why; with the RBAC `kubesched manifests` generates (`create` without
resourceNames), a kubesched running with the service account's own token takes its Lease
and doctor reports every check ok.
Doctor also finds pods that wait for a scheduler nobody runs, stale Leases, and a kubesched
configured with kube-scheduler's Lease.

ClusterRoles and ClusterRoleBindings are cluster-scoped: each test deletes its own.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_pod
from tests.e2e.harness import TEST_LABEL, ApiClient, ApiError, wait_for
from tests.e2e.harness.kubesched import start_kubesched

CLI_TIMEOUT_SECONDS = 90.0
LEASE_GROUP = "coordination.k8s.io"


# -- helpers ------------------------------------------------------------------------------
@dataclass
class Cli:
    """Runs `python -m kubesched COMMAND ... --kubeconfig=<admin>`."""

    cluster: LocalCluster

    def run(self, *args: str, kubeconfig: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
        argv = [
            sys.executable,
            "-m",
            "kubesched",
            *args,
            f"--kubeconfig={kubeconfig or self.cluster.kubeconfig_path}",
        ]
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=CLI_TIMEOUT_SECONDS, env=env, check=False
        )

    def doctor(self, *args: str) -> tuple[int, dict[str, dict[str, Any]], str]:
        """(exit code, check name -> result, stderr) of `doctor ... -o json`."""
        done = self.run("doctor", *args, "-o", "json")
        assert done.stdout, done.stderr
        checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
        return done.returncode, checks, done.stderr


@pytest.fixture
def cli(local_cluster: LocalCluster) -> Cli:
    return Cli(local_cluster)


@dataclass
class ClusterObjects:
    """Cluster-scoped objects a test creates; deleted after it."""

    api: ApiClient
    created: list[tuple[str, str]] = field(default_factory=list)

    def create(self, obj: dict[str, Any]) -> None:
        self.api.create(obj)
        self.created.append((obj["kind"], obj["metadata"]["name"]))

    def cleanup(self) -> None:
        for kind, name in reversed(self.created):
            self.api.delete(kind, name)


@pytest.fixture
def cluster_objects(api: ApiClient) -> Iterator[ClusterObjects]:
    objects = ClusterObjects(api)
    yield objects
    objects.cleanup()


def rule(
    groups: list[str], resources: list[str], verbs: list[str], names: list[str] | None = None
) -> dict[str, Any]:
    found: dict[str, Any] = {"apiGroups": groups, "resources": resources, "verbs": verbs}
    if names:
        found["resourceNames"] = names
    return found


RBAC = "rbac.authorization.k8s.io/v1"


def bind_cluster_role(
    objects: ClusterObjects, *, name: str, rules: list[dict[str, Any]], namespace: str, sa: str
) -> None:
    objects.create(
        {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules}
    )
    objects.create(
        {
            "apiVersion": RBAC,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": namespace}],
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": name,
            },
        }
    )


def create_service_account(api: ApiClient, namespace: str, name: str) -> str:
    """Create the ServiceAccount and return a real token for it (TokenRequest)."""
    api.create(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}},
        namespace=namespace,
    )
    answer = api.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
        body={
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {"expirationSeconds": 3600},
        },
    )
    token: str = answer["status"]["token"]
    return token


def token_kubeconfig(cluster: LocalCluster, token: str, path: Path) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {
                    "server": cluster.server,
                    "certificate-authority": str(cluster.ca_file),
                },
            }
        ],
        "users": [{"name": "sa", "user": {"token": token}}],
        "contexts": [{"name": "sa", "context": {"cluster": "local", "user": "sa"}}],
        "current-context": "sa",
    }
    path.write_text(yaml.safe_dump(config))
    path.chmod(0o600)
    return path


def leader_election_guide_rules(lease_name: str) -> list[dict[str, Any]]:
    """The ClusterRole of the guide on leader-election conflicts, verbatim."""
    return [
        rule([LEASE_GROUP], ["leases"], ["get", "create", "update"], [lease_name]),
        rule([""], ["pods", "nodes", "services", "endpoints"], ["get", "list", "watch"]),
        rule([""], ["pods/binding", "pods/status"], ["create", "update"]),
    ]


def kubesched_lease(
    namespace: str,
    name: str,
    *,
    names: str,
    holder: str,
    renewed: datetime,
    duration_seconds: int = 15,
    transitions: int = 2,
) -> dict[str, Any]:
    """A Lease as a kubesched replica writes it (label and scheduler-names annotation)."""
    stamp = renewed.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kubesched.io/lease": "scheduler"},
            "annotations": {"kubesched.io/scheduler-names": names},
        },
        "spec": {
            "holderIdentity": holder,
            "leaseDurationSeconds": duration_seconds,
            "acquireTime": stamp,
            "renewTime": stamp,
            "leaseTransitions": transitions,
        },
    }


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(3)}"


def lease_holder(api: ApiClient, namespace: str, name: str) -> str:
    found = api.get_or_none("Lease", name, namespace=namespace)
    return str((found or {}).get("spec", {}).get("holderIdentity") or "")


# -- the leader-election conflict guide's RBAC pitfall ---------------------------------------
def test_leader_election_guide_rbac_cannot_create_the_lease(
    cli: Cli,
    api: ApiClient,
    local_cluster: LocalCluster,
    namespace: str,
    cluster_objects: ClusterObjects,
) -> None:
    token = create_service_account(api, namespace, "custom-scheduler-sa")
    bind_cluster_role(
        cluster_objects,
        name=unique("custom-scheduler"),
        rules=leader_election_guide_rules("my-custom-scheduler"),
        namespace=namespace,
        sa="custom-scheduler-sa",
    )
    code, checks, _ = cli.doctor(
        "--leader-elect=true",
        "--leader-election-resource-name=my-custom-scheduler",
        f"--leader-election-resource-namespace={namespace}",
        "--scheduler-name=my-custom-scheduler",
        f"--service-account={namespace}/custom-scheduler-sa",
    )
    assert code == 1
    permissions = checks["permissions"]
    assert permissions["status"] == "fail"
    assert permissions["data"]["pitfall"] is True
    assert (
        permissions["data"]["subject"] == f"system:serviceaccount:{namespace}:custom-scheduler-sa"
    )
    assert f"cannot create the Lease {namespace}/my-custom-scheduler" in permissions["detail"]
    assert "resourceNames cannot restrict create" in permissions["detail"]
    assert "verbs [create]" in permissions["fix"]
    assert "separate rule without resourceNames" in permissions["fix"]
    # The API server agrees: that token cannot create the Lease, but may renew it by name.
    as_sa = ApiClient(server=local_cluster.server, token=token, ca_file=local_cluster.ca_file)
    lease = kubesched_lease(
        namespace,
        "my-custom-scheduler",
        names="my-custom-scheduler",
        holder="x",
        renewed=datetime.now(UTC),
    )
    with pytest.raises(ApiError) as denied:
        as_sa.create(lease)
    assert denied.value.status == 403
    api.create(lease)
    current = as_sa.get("Lease", "my-custom-scheduler", namespace=namespace)
    as_sa.request(
        "PUT",
        as_sa.path("Lease", namespace=namespace, name="my-custom-scheduler"),
        body=current,
    )


def test_the_human_report_explains_the_pitfall(
    cli: Cli, api: ApiClient, namespace: str, cluster_objects: ClusterObjects
) -> None:
    create_service_account(api, namespace, "custom-scheduler-sa")
    bind_cluster_role(
        cluster_objects,
        name=unique("custom-scheduler"),
        rules=leader_election_guide_rules("my-custom-scheduler"),
        namespace=namespace,
        sa="custom-scheduler-sa",
    )
    done = cli.run(
        "doctor",
        "--scheduler-name=my-custom-scheduler",
        f"--lock-object-namespace={namespace}",
        "--lock-object-name=my-custom-scheduler",
        f"--service-account={namespace}/custom-scheduler-sa",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("FAIL    permissions"))
    assert "resourceNames" in row
    assert "fix: add a separate rule without resourceNames" in done.stdout
    assert "--lock-object-name is deprecated" in done.stderr  # the alias notice


@pytest.fixture
def generated(api: ApiClient, cli: Cli) -> Iterator[tuple[str, str]]:
    """`kubesched manifests` applied with kubectl: (namespace, scheduler name)."""
    ns, scheduler = unique("doctor-gen"), unique("generated")
    text = cli.run("manifests", f"--namespace={ns}", f"--scheduler-name={scheduler}").stdout
    objects = [obj for obj in yaml.safe_load_all(text) if obj]
    try:
        cli.cluster.kubectl("apply", "-f", "-", stdin=text)
        yield ns, scheduler
    finally:
        for obj in objects:
            kind, name = obj["kind"], obj["metadata"]["name"]
            if kind in ("ClusterRole", "ClusterRoleBinding"):
                api.delete(kind, name)
        if api.get_or_none("Namespace", ns) is not None:  # the harness removes it
            api.patch("Namespace", ns, {"metadata": {"labels": {TEST_LABEL: "true"}}})


def test_generated_rbac_passes_every_check(
    cli: Cli, api: ApiClient, generated: tuple[str, str], tmp_path: Path
) -> None:
    ns, scheduler = generated
    token = cli.cluster.kubectl("create", "token", scheduler, "-n", ns).stdout.strip()
    flags = (f"--scheduler-name={scheduler}", f"--leader-elect-resource-namespace={ns}")
    # Before any replica runs: the permissions are complete, the Lease does not exist yet.
    code, checks, _ = cli.doctor(*flags, f"--service-account={ns}/{scheduler}")
    assert checks["permissions"]["status"] == "ok", checks["permissions"]
    assert checks["permissions"]["data"]["denied"] == []
    assert checks["lease-holder"]["data"]["state"] == "missing"
    assert code == 0
    # kubesched with the service account's own token creates its Lease on the first try.
    proc = start_kubesched(
        token_kubeconfig(cli.cluster, token, tmp_path / "sa.kubeconfig"),
        *flags,
        workdir=tmp_path,
        name="kubesched-sa",
    )
    try:
        proc.wait_ready()
        wait_for(lambda: lease_holder(api, ns, scheduler), message="the Lease is held")
        code, checks, stderr = cli.doctor(*flags, f"--service-account={ns}/{scheduler}")
    finally:
        proc.stop()
    assert {name: c["status"] for name, c in checks.items()} == {
        "api-server": "ok",
        "served-apis": "ok",
        "lease-collision": "ok",
        "lease-holder": "ok",
        "permissions": "ok",
        "pending-pods": "ok",
        "default-scheduler": "ok",
    }, json.dumps(checks, indent=1) + stderr
    assert code == 0
    assert checks["lease-holder"]["data"]["state"] == "live"
    assert checks["api-server"]["data"]["version"].startswith("v1.")


# -- pending pods, stale Leases, collisions ----------------------------------------------------
def test_pod_for_an_unknown_scheduler_is_pending_with_no_scheduler(
    cli: Cli, api: ApiClient, namespace: str
) -> None:
    unknown = unique("no-such-scheduler")
    api.create(make_pod().name("lost").namespace(namespace).scheduler(unknown).obj())
    code, checks, _ = cli.doctor("--scheduler-name=doctor-e2e")
    assert code == 1
    pending = checks["pending-pods"]
    assert pending["status"] == "fail"
    assert pending["data"]["withoutScheduler"][unknown] == [f"{namespace}/lost"]
    assert "default-scheduler" in pending["data"]["served"]  # kube-scheduler is live
    assert f"{unknown} (1: {namespace}/lost)" in pending["detail"]
    assert f"--scheduler-name={unknown}" in pending["fix"]
    table = cli.run("doctor", "--scheduler-name=doctor-e2e").stdout
    assert "FAIL    pending-pods" in table
    assert f"{namespace}/lost" in table


def test_a_stale_lease_is_reported_stale(cli: Cli, api: ApiClient, namespace: str) -> None:
    renewed = datetime.now(UTC) - timedelta(minutes=5)
    api.create(
        kubesched_lease(
            namespace, "stale-scheduler", names="stale-scheduler", holder="gone_1", renewed=renewed
        )
    )
    code, checks, _ = cli.doctor(
        "--scheduler-name=stale-scheduler", f"--leader-elect-resource-namespace={namespace}"
    )
    holder = checks["lease-holder"]
    assert holder["status"] == "warn"
    assert holder["data"]["state"] == "stale"
    assert holder["data"]["holder"] == "gone_1"
    assert holder["data"]["renewedSecondsAgo"] >= 300
    assert f"{namespace}/stale-scheduler is stale" in holder["detail"]
    assert code == 0  # a stale Lease alone is a warning: a new replica takes it over
    listed = json.loads(cli.run("leases", "-n", namespace, "-o", "json").stdout)["leases"]
    assert [(row["name"], row["state"], row["holder"]) for row in listed] == [
        ("stale-scheduler", "stale", "gone_1")
    ]
    table = cli.run("leases", "-n", namespace).stdout.splitlines()
    assert table[0].split()[0] == "LEASE"
    assert table[1].startswith(f"{namespace}/stale-scheduler")
    assert table[1].split()[-1] == "stale"


@pytest.mark.parametrize(
    "lease_flags",
    [
        (
            "--leader-elect-resource-namespace=kube-system",
            "--leader-elect-resource-name=kube-scheduler",
        ),
        ("--lock-object-namespace=kube-system", "--lock-object-name=kube-scheduler"),
    ],
    ids=["leader-elect", "lock-object"],
)
def test_kubesched_on_kube_schedulers_lease_is_a_collision(
    cli: Cli, lease_flags: tuple[str, ...]
) -> None:
    code, checks, _ = cli.doctor("--scheduler-name=my-custom-scheduler", *lease_flags)
    assert code == 1
    collision = checks["lease-collision"]
    assert collision["status"] == "fail"
    assert "kube-system/kube-scheduler belongs to the default scheduler" in collision["detail"]
    assert "attempting to acquire leader lease kube-system/kube-scheduler" in collision["detail"]
    assert "--leader-elect-resource-name=my-custom-scheduler" in collision["fix"]


def test_leases_lists_live_schedulers_and_doctor_sees_a_shared_lease(
    cli: Cli, kubesched: Callable[..., Any], api: ApiClient, namespace: str
) -> None:
    kubesched("--scheduler-name=leases-e2e", f"--leader-elect-resource-namespace={namespace}")
    holder = wait_for(lambda: lease_holder(api, namespace, "leases-e2e"), message="Lease held")
    rows = {
        f"{row['namespace']}/{row['name']}": row
        for row in json.loads(cli.run("leases", "-o", "json").stdout)["leases"]
    }
    ours = rows[f"{namespace}/leases-e2e"]
    assert (ours["holder"], ours["state"], ours["schedulerNames"]) == (
        holder,
        "live",
        ["leases-e2e"],
    )
    assert ours["kubesched"] is True
    assert 0 < ours["expiresInSeconds"] <= 15
    default = rows["kube-system/kube-scheduler"]
    assert (default["state"], default["schedulerNames"], default["kubesched"]) == (
        "live",
        ["default-scheduler"],
        False,
    )
    # Another deployment configured with the same Lease would never schedule.
    code, checks, _ = cli.doctor(
        "--scheduler-name=other-scheduler",
        f"--leader-elect-resource-namespace={namespace}",
        "--leader-elect-resource-name=leases-e2e",
    )
    assert code == 1
    assert checks["lease-collision"]["status"] == "fail"
    assert "two deployments share one Lease" in checks["lease-collision"]["detail"]
    # A second scheduler serving the same name under its own Lease would double-schedule.
    code, checks, _ = cli.doctor(
        "--scheduler-name=leases-e2e", f"--leader-elect-resource-name={unique('x')}"
    )
    assert code == 1
    assert "another live scheduler already serves leases-e2e" in checks["lease-collision"]["detail"]
