"""Smoke test of the kubesched process fixture: it starts, becomes ready, places a pod."""

from __future__ import annotations

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.fixtures import StartKubesched


def test_kubesched_places_its_pod(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("smoke-node").obj())
    proc = kubesched("--scheduler-name=smoke-scheduler", "--leader-elect=false")
    pod = make_pod().name("p").namespace(namespace).scheduler("smoke-scheduler").obj()
    api.create(pod)
    bound = wait_for(
        lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p is bound"
    )
    assert bound["spec"]["nodeName"] == "smoke-node"
    assert proc.get("/healthz")[0] == 200
    assert "scheduler_schedule_attempts_total" in proc.get("/metrics")[1]
