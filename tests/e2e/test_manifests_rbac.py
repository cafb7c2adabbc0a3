"""`kubesched manifests` on the real control plane: the output applies, its RBAC is
sufficient (kubesched with the generated ServiceAccount's token acquires its Lease and
schedules) and least privilege (that token is denied kube-scheduler's Lease and creating
pods; it may delete pods and read PodDisruptionBudgets only because DefaultPreemption, a
default plugin, evicts victims). And the RBAC of the guide on leader-election conflicts really
cannot create the Lease the first time.

Cluster-scoped objects (ClusterRoles, ClusterRoleBindings) are named per test and deleted by
the tests; kubesched's namespace is labelled so that the harness removes it.
"""

from __future__ import annotations

import secrets
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import TEST_LABEL, ApiClient, ApiError, is_bound, is_unschedulable, wait_for

CLUSTER_SCOPED = ("ClusterRole", "ClusterRoleBinding")


@dataclass(frozen=True)
class Deployed:
    """`kubesched manifests` output applied with kubectl."""

    namespace: str
    scheduler: str
    text: str
    objects: list[dict[str, Any]]
    applied: subprocess.CompletedProcess[str]
    cluster: LocalCluster


def manifests(*flags: str) -> str:
    """Run the real command line `kubesched manifests FLAGS` and return its YAML."""
    result = subprocess.run(
        [sys.executable, "-m", "kubesched", "manifests", *flags],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def forget(api: ApiClient, objects: list[dict[str, Any]]) -> None:
    """Delete the cluster-scoped objects; hand the namespaces to the harness' clean-up."""
    for obj in objects:
        kind, name = obj["kind"], obj["metadata"]["name"]
        if kind in CLUSTER_SCOPED:
            api.delete(kind, name)
        elif kind == "Namespace" and api.get_or_none("Namespace", name) is not None:
            api.patch("Namespace", name, {"metadata": {"labels": {TEST_LABEL: "true"}}})


@pytest.fixture
def deployed(local_cluster: LocalCluster, api: ApiClient) -> Iterator[Deployed]:
    unique = secrets.token_hex(3)
    namespace, scheduler = f"kubesched-e2e-{unique}", f"manifests-{unique}"
    text = manifests(f"--namespace={namespace}", f"--scheduler-name={scheduler}")
    objects = list(yaml.safe_load_all(text))
    try:
        applied = local_cluster.kubectl("apply", "-f", "-", stdin=text, check=False)
        yield Deployed(namespace, scheduler, text, objects, applied, local_cluster)
    finally:
        forget(api, objects)


def token_for(cluster: LocalCluster, service_account: str, namespace: str) -> str:
    """A real service-account token from the TokenRequest API."""
    result = cluster.kubectl("create", "token", service_account, "-n", namespace)
    return result.stdout.strip()


def write_kubeconfig(cluster: LocalCluster, token: str, path: Path) -> Path:
    spec = KubeconfigSpec(
        server=cluster.server, ca_file=cluster.ca_file, token=token, user="service-account"
    )
    path.write_text(kubeconfig(spec))
    path.chmod(0o600)
    return path


def can_i(cluster: LocalCluster, kubeconfig_path: Path, *args: str) -> bool:
    """`kubectl auth can-i ARGS` as the kubeconfig's identity (SelfSubjectAccessReview)."""
    assert cluster.binaries is not None
    result = subprocess.run(
        [str(cluster.binaries.kubectl), f"--kubeconfig={kubeconfig_path}", "auth", "can-i", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    answer = result.stdout.strip()
    assert answer in ("yes", "no"), result.stderr
    return answer == "yes"


@dataclass(frozen=True)
class Identity:
    """The generated ServiceAccount's token, a kubeconfig holding it, and the applied
    config (from the ConfigMap) pointed at that kubeconfig."""

    token: str
    kubeconfig: Path
    config: Path


@pytest.fixture
def identity(
    deployed: Deployed, local_cluster: LocalCluster, api: ApiClient, tmp_path: Path
) -> Identity:
    assert deployed.applied.returncode == 0, deployed.applied.stderr
    ns, scheduler = deployed.namespace, deployed.scheduler
    token = token_for(local_cluster, scheduler, ns)
    sa_kubeconfig = write_kubeconfig(local_cluster, token, tmp_path / "sa.kubeconfig")
    config = yaml.safe_load(
        api.get("ConfigMap", f"{scheduler}-config", namespace=ns)["data"]["config.yaml"]
    )
    config["clientConnection"]["kubeconfig"] = str(sa_kubeconfig)
    config_path = tmp_path / "config.yaml"
    config_path.write_text(yaml.safe_dump(config))
    return Identity(token=token, kubeconfig=sa_kubeconfig, config=config_path)


def get_metrics(port: int, token: str) -> tuple[int, str]:
    """GET /metrics on kubesched's secure port with a bearer token."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # kubesched's self-signed serving certificate
    request = urllib.request.Request(f"https://127.0.0.1:{port}/metrics")
    request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_generated_manifests_apply_cleanly(deployed: Deployed, local_cluster: LocalCluster) -> None:
    assert deployed.applied.returncode == 0, deployed.applied.stderr
    for obj in deployed.objects:
        assert f"{obj['metadata']['name']} created" in deployed.applied.stdout
    again = local_cluster.kubectl("apply", "-f", "-", stdin=deployed.text)
    # Re-applying changes nothing. kubectl reports a PodDisruptionBudget as "configured" on
    # every apply: its selector's patch strategy is `replace`, so the patch always carries it
    # (the object is unchanged: same generation).
    changed = [line for line in again.stdout.splitlines() if line.endswith(" configured")]
    assert all(line.startswith("poddisruptionbudget.policy/") for line in changed), again.stdout
    pdb = [obj for obj in deployed.objects if obj["kind"] == "PodDisruptionBudget"]
    for obj in pdb:
        meta = obj["metadata"]
        generation = local_cluster.kubectl(
            "get",
            "pdb",
            meta["name"],
            "-n",
            meta["namespace"],
            "-o=jsonpath={.metadata.generation}",
        )
        assert generation.stdout == "1"


def test_generated_rbac_suffices(
    deployed: Deployed, identity: Identity, api: ApiClient, kubesched: Any, namespace: str
) -> None:
    ns, scheduler = deployed.namespace, deployed.scheduler
    proc = kubesched(f"--config={identity.config}", extra_env={"POD_NAMESPACE": ns})
    # The fixture's admin --kubeconfig is ignored: the config file's one (the token) is used.
    assert "flag --kubeconfig is ignored because --config is given" in proc.log()
    lease = wait_for(
        lambda: api.get("Lease", scheduler, namespace=ns),
        until=lambda lease: lease["spec"].get("holderIdentity"),
        message=f"kubesched holds its Lease {ns}/{scheduler}",
    )
    assert lease["spec"]["leaseDurationSeconds"] == 15

    api.create(make_node().name("rbac-node").capacity(cpu="2", memory="4Gi", pods="10").obj())
    api.create(make_pod().name("fits").namespace(namespace).scheduler(scheduler).obj())
    api.create(
        make_pod().name("too-big").namespace(namespace).scheduler(scheduler).req(cpu="64").obj()
    )
    bound = wait_for(
        lambda: api.get("Pod", "fits", namespace=namespace), until=is_bound, message="fits bound"
    )
    assert bound["spec"]["nodeName"] == "rbac-node"
    # PodScheduled=False needs pods/status; the events need events create/patch.
    wait_for(
        lambda: api.get("Pod", "too-big", namespace=namespace),
        until=is_unschedulable,
        message="too-big is reported unschedulable",
    )
    wait_for(
        lambda: api.events(namespace, regarding="fits", reason="Scheduled"),
        message="a Scheduled event for fits",
    )
    wait_for(
        lambda: api.events(namespace, regarding="too-big", reason="FailedScheduling"),
        message="a FailedScheduling event for too-big",
    )
    # Delegated auth of /metrics (TokenReview + SubjectAccessReview through
    # system:auth-delegator) works with the generated identity: an admin caller is served.
    status, body = get_metrics(proc.port, deployed.cluster.admin_token)
    assert status == 200, body
    assert "scheduler_schedule_attempts_total" in body
    assert "forbidden" not in proc.log().lower(), proc.tail()


def test_generated_rbac_is_least_privilege(
    deployed: Deployed,
    identity: Identity,
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
) -> None:
    ns, scheduler = deployed.namespace, deployed.scheduler
    sa_kubeconfig, token = identity.kubeconfig, identity.token

    allowed = [
        ("create", "leases", "-n", ns),
        ("get", f"leases/{scheduler}", "-n", ns),
        ("update", f"leases/{scheduler}", "-n", ns),
        ("list", "pods", "-A"),
        ("watch", "nodes"),
        ("list", "namespaces"),
        ("watch", "namespaces"),
        # Default topology spreading reads the selectors of Services and controllers.
        ("list", "services", "-A"),
        ("watch", "replicationcontrollers", "-A"),
        ("list", "replicasets.apps", "-A"),
        ("watch", "statefulsets.apps", "-A"),
        ("create", "pods", "--subresource=binding", "-n", namespace),
        ("patch", "pods", "--subresource=status", "-n", namespace),
        ("create", "events.events.k8s.io", "-n", namespace),
        ("create", "tokenreviews.authentication.k8s.io"),
        ("create", "subjectaccessreviews.authorization.k8s.io"),
        # DefaultPreemption (on by default) evicts victims and reads PodDisruptionBudgets.
        ("delete", "pods", "-n", namespace),
        ("list", "poddisruptionbudgets.policy", "-A"),
        ("watch", "poddisruptionbudgets.policy", "-A"),
    ]
    denied = [
        ("update", "leases/kube-scheduler", "-n", "kube-system"),
        ("get", "leases/kube-scheduler", "-n", "kube-system"),
        ("update", "leases/someone-else", "-n", ns),
        ("delete", f"leases/{scheduler}", "-n", ns),
        ("create", "leases", "-n", "kube-system"),
        ("create", "pods", "-n", namespace),
        ("delete", "poddisruptionbudgets.policy", "-n", namespace),
        ("get", "secrets", "-n", ns),
        ("list", "configmaps", "-n", ns),
        ("create", "services", "-n", namespace),
        ("update", "replicasets.apps", "-n", namespace),
        ("patch", "nodes"),
        ("*", "*"),
    ]
    assert [args for args in allowed if not can_i(local_cluster, sa_kubeconfig, *args)] == []
    assert [args for args in denied if can_i(local_cluster, sa_kubeconfig, *args)] == []

    # Real requests with the token, not only reviews.
    as_scheduler = ApiClient(
        server=local_cluster.server, token=token, ca_file=local_cluster.ca_file
    )
    default_lease = api.get("Lease", "kube-scheduler", namespace="kube-system")
    with pytest.raises(ApiError) as update:
        as_scheduler.request(
            "PUT",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler",
            body=default_lease,
        )
    assert update.value.status == 403
    with pytest.raises(ApiError) as create:
        as_scheduler.create(make_pod().name("intruder").namespace(namespace).obj())
    assert create.value.status == 403
    assert api.get_or_none("Pod", "intruder", namespace=namespace) is None


def test_generated_pod_template_passes_pod_security_restricted(
    deployed: Deployed, local_cluster: LocalCluster, api: ApiClient, new_namespace: Any
) -> None:
    restricted = new_namespace("restricted")
    api.patch(
        "Namespace",
        restricted,
        {"metadata": {"labels": {"pod-security.kubernetes.io/enforce": "restricted"}}},
    )
    # The check is live: a pod without the restricted settings is refused there.
    plain = make_pod().name("plain").namespace(restricted).obj()
    refused = local_cluster.kubectl(
        "create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(plain), check=False
    )
    assert refused.returncode != 0
    assert "violates PodSecurity" in refused.stderr, refused.stderr
    template = next(o for o in deployed.objects if o["kind"] == "Deployment")["spec"]["template"]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "template", "namespace": restricted, **template["metadata"]},
        "spec": {**template["spec"], "serviceAccountName": "default"},
    }
    result = local_cluster.kubectl(
        "create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(pod), check=False
    )
    assert result.returncode == 0, result.stderr
    assert "violate" not in result.stderr, result.stderr


# The leader-election conflict guide's RBAC, verbatim but for unique names: `leases`
# get/create/update restricted to `resourceNames: [my-custom-scheduler]`.
LEADER_ELECTION_GUIDE_RBAC = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: custom-scheduler-sa
  namespace: {namespace}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {role}
rules:
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "create", "update"]
  resourceNames: ["my-custom-scheduler"]
- apiGroups: [""]
  resources: ["pods", "nodes", "services", "endpoints"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["pods/binding", "pods/status"]
  verbs: ["create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {role}-binding
subjects:
- kind: ServiceAccount
  name: custom-scheduler-sa
  namespace: {namespace}
roleRef:
  kind: ClusterRole
  name: {role}
  apiGroup: rbac.authorization.k8s.io
"""


def test_leader_election_guide_rbac_cannot_create_the_lease_the_first_time(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    role = f"custom-scheduler-{secrets.token_hex(3)}"
    text = LEADER_ELECTION_GUIDE_RBAC.format(namespace=namespace, role=role)
    try:
        local_cluster.kubectl("apply", "-f", "-", stdin=text)
        token = token_for(local_cluster, "custom-scheduler-sa", namespace)
        sa_kubeconfig = write_kubeconfig(local_cluster, token, tmp_path / "doc.kubeconfig")
        as_doc = ApiClient(server=local_cluster.server, token=token, ca_file=local_cluster.ca_file)
        leases = f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "my-custom-scheduler", "namespace": namespace},
            "spec": {"holderIdentity": "doc", "leaseDurationSeconds": 15},
        }

        # get by name is allowed (404: the Lease does not exist yet) ...
        with pytest.raises(ApiError) as missing:
            as_doc.request("GET", f"{leases}/my-custom-scheduler")
        assert missing.value.status == 404
        # ... but create is denied: a create request has no name for resourceNames to match.
        with pytest.raises(ApiError) as create:
            as_doc.request("POST", leases, body=lease)
        assert create.value.status == 403
        assert 'cannot create resource "leases"' in str(create.value)
        assert not can_i(local_cluster, sa_kubeconfig, "create", "leases", "-n", namespace)
        assert can_i(
            local_cluster, sa_kubeconfig, "update", "leases/my-custom-scheduler", "-n", namespace
        )

        # Once someone else created it, the same rule can renew it: only the first time fails.
        created = api.create(lease)
        created["spec"]["holderIdentity"] = "doc-renewed"
        renewed = as_doc.request("PUT", f"{leases}/my-custom-scheduler", body=created)
        assert renewed["spec"]["holderIdentity"] == "doc-renewed"
    finally:
        api.delete("ClusterRoleBinding", f"{role}-binding")
        api.delete("ClusterRole", role)
