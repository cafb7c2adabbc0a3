"""Events go through their own API client: with a tight --kube-api-qps every bound pod
still gets its Scheduled event, and /metrics exports kubesched_events_dropped_total for
each reason (0 here) so an alert can watch it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for

SCHEDULER = "events-client-scheduler"
PODS = 30


def test_every_binding_gets_its_event_and_drops_are_exported(
    kubesched: Callable[..., Any], api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("n1").capacity(cpu="64", pods="110").obj())
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        "--kube-api-qps=5",
        "--kube-api-burst=5",
    )
    for i in range(PODS):
        api.create(make_pod().name(f"p{i}").namespace(namespace).scheduler(SCHEDULER).obj())
    wait_for(
        lambda: api.list("Pod", namespace=namespace),
        until=lambda pods: len([p for p in pods if is_bound(p)]) == PODS,
        timeout=60,
        message="all pods bound",
    )
    wait_for(
        lambda: [e for e in api.events(namespace) if e.reason == "Scheduled"],
        until=lambda events: len({e.regarding_name for e in events}) == PODS,
        timeout=60,
        message="a Scheduled event for every pod",
    )
    status, text = proc.get("/metrics")
    assert status == 200
    for reason in ("queue_full", "write_failed", "forbidden"):
        assert f'kubesched_events_dropped_total{{reason="{reason}"}} 0.0' in text
