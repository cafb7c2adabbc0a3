"""The local control plane itself: kube-scheduler places default pods, ignores others,
and kubectl and service-account tokens work."""

from __future__ import annotations

import base64
import json

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    ApiClient,
    assert_stays,
    is_bound,
    is_pending_unbound,
    node_name,
    wait_for,
)


def test_default_scheduler_binds_a_pod_without_scheduler_name(
    api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("e2e-node-a").obj())
    api.create(make_pod().name("web").namespace(namespace).req(cpu="100m", memory="64Mi").obj())

    pod = wait_for(
        lambda: api.get("Pod", "web", namespace=namespace),
        until=is_bound,
        message="kube-scheduler binds the pod",
    )

    assert node_name(pod) == "e2e-node-a"
    assert pod["spec"]["schedulerName"] == "default-scheduler"
    scheduled = wait_for(
        lambda: api.events(namespace, regarding="web", reason="Scheduled"),
        message="a Scheduled event for the pod",
    )
    assert scheduled[0].reporting_controller == "default-scheduler"
    assert scheduled[0].note == f"Successfully assigned {namespace}/web to e2e-node-a"
    core = api.core_events(namespace, regarding="web", reason="Scheduled")
    assert core[0].reporting_controller == "default-scheduler"


def test_pod_for_another_scheduler_stays_pending_without_events(
    api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("e2e-node-b").obj())
    api.create(make_pod().name("custom").namespace(namespace).scheduler("my-scheduler").obj())

    assert_stays(
        lambda: api.get("Pod", "custom", namespace=namespace),
        holds=is_pending_unbound,
        duration=4.0,
        message="a my-scheduler pod stays Pending while no my-scheduler runs",
    )

    reasons = [event.reason for event in api.events(namespace, regarding="custom")]
    assert "Scheduled" not in reasons
    assert "FailedScheduling" not in reasons


def test_kubectl_with_the_admin_kubeconfig(local_cluster: LocalCluster, api: ApiClient) -> None:
    api.create(make_node().name("e2e-node-c").obj())

    result = local_cluster.kubectl("get", "nodes", "-o", "json")

    names = [item["metadata"]["name"] for item in json.loads(result.stdout)["items"]]
    assert names == ["e2e-node-c"]
    version = local_cluster.kubectl("version", "-o", "json")
    assert json.loads(version.stdout)["serverVersion"]["gitVersion"] == "v1.37.2"


def test_kubectl_create_token_for_a_service_account(
    local_cluster: LocalCluster, namespace: str
) -> None:
    local_cluster.kubectl("create", "serviceaccount", "robot", "-n", namespace)

    token = local_cluster.kubectl("create", "token", "robot", "-n", namespace).stdout.strip()

    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["sub"] == f"system:serviceaccount:{namespace}:robot"
    assert claims["iss"] == "https://kubernetes.default.svc.cluster.local"
    whoami = local_cluster.kubectl("auth", "whoami", "--token", token, "-o", "json")
    assert (
        json.loads(whoami.stdout)["status"]["userInfo"]["username"]
        == f"system:serviceaccount:{namespace}:robot"
    )


def test_default_scheduler_holds_the_default_lease(api: ApiClient) -> None:
    lease = api.get("Lease", "kube-scheduler", namespace="kube-system")

    assert lease["spec"]["holderIdentity"]
    assert lease["spec"]["leaseDurationSeconds"] == 15
