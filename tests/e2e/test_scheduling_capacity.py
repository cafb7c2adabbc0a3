"""Capacity is shared with kube-scheduler: the pods it places (and the pods it deletes) change
what kubesched sees; a pod that fits nowhere is reported like kube-scheduler reports it and
is placed as soon as room appears (a node added, a pod deleted), long before the 5-minute
flush of the unschedulable pool."""

from __future__ import annotations

import time
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    ApiClient,
    condition,
    is_bound,
    is_unschedulable,
    node_name,
    wait_for,
)
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.parity import pod_events, traceback_free, wait_outcome

SCHEDULER = "capacity-scheduler"
DEFAULT = "default-scheduler"
REQUEUE_SECONDS = 6.0  # node add -> bound: the queue's backoff is at most a few seconds here


def default_pod(namespace: str, name: str, node: str, cpu: str) -> dict[str, Any]:
    """A pod for kube-scheduler, steered to `node` by its hostname label."""
    return (
        make_pod()
        .name(name)
        .namespace(namespace)
        .scheduler(DEFAULT)
        .req(cpu=cpu)
        .node_selector(**{"kubernetes.io/hostname": node})
        .obj()
    )


def our_pod(namespace: str, name: str, cpu: str = "1") -> dict[str, Any]:
    return make_pod().name(name).namespace(namespace).scheduler(SCHEDULER).req(cpu=cpu).obj()


def get(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return api.get("Pod", name, namespace=namespace)


def test_pods_of_kube_scheduler_use_capacity_kubesched_sees(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_node().name("cap-a").capacity(cpu="2").obj())
    api.create(make_node().name("cap-b").capacity(cpu="2").obj())
    # kube-scheduler fills cap-a and half of cap-b, while kubesched is running.
    for name, node in (("kube-a1", "cap-a"), ("kube-a2", "cap-a"), ("kube-b1", "cap-b")):
        api.create(default_pod(namespace, name, node, cpu="1"))
    for name in ("kube-a1", "kube-a2", "kube-b1"):
        wait_for(lambda name=name: get(api, namespace, name), until=is_bound, timeout=15)

    ours = ["ours-1", "ours-2", "ours-3"]
    for name in ours:
        api.create(our_pod(namespace, name))
    outcomes = {name: wait_outcome(api, namespace, name, nodes=2) for name in ours}
    placed = [name for name, o in outcomes.items() if o.bound]
    assert len(placed) == 1, {name: o.describe() for name, o in outcomes.items()}
    assert outcomes[placed[0]].node == "cap-b", "the only room left is on cap-b"
    waiting = [name for name in ours if name not in placed]
    for name in waiting:
        outcome = outcomes[name]
        assert outcome.reason == "Unschedulable"
        assert outcome.message == "0/2 nodes are available: 2 Insufficient cpu."
        assert is_unschedulable(outcome.pod)
        new, core = pod_events(api, namespace, outcome.pod, "FailedScheduling")
        assert len(new) == 1, f"one FailedScheduling event for {name}: {new}"
        event = new[0]
        assert event.note == outcome.full_message
        assert (event.type, event.action) == ("Warning", "Scheduling")
        assert event.reporting_controller == SCHEDULER
        assert event.regarding_kind == "Pod"
        assert event.regarding_namespace == namespace
        assert [e.reporting_controller for e in core] == [SCHEDULER]
        assert core[0].note == outcome.full_message

    # kube-scheduler's pod leaves: its room goes to one of ours (a pod delete requeues).
    api.delete("Pod", "kube-a1", namespace=namespace, grace_period=0)
    wait_for(
        lambda: [n for n in waiting if is_bound(get(api, namespace, n))],
        until=lambda bound: len(bound) == 1,
        timeout=REQUEUE_SECONDS,
        message="one waiting pod takes the room kube-scheduler's pod left on cap-a",
    )
    moved = next(n for n in waiting if is_bound(get(api, namespace, n)))
    assert node_name(get(api, namespace, moved)) == "cap-a"
    last = next(n for n in waiting if n != moved)

    # A node that fits is added: the last pod is placed there within seconds.
    started = time.monotonic()
    api.create(make_node().name("cap-c").capacity(cpu="4").obj())
    pod = wait_for(
        lambda: get(api, namespace, last),
        until=is_bound,
        timeout=REQUEUE_SECONDS,
        message=f"{last} is placed on the new node without waiting for the 5-minute flush",
    )
    elapsed = time.monotonic() - started
    assert node_name(pod) == "cap-c"
    assert elapsed < REQUEUE_SECONDS
    scheduled = condition(pod, "PodScheduled")
    # kubesched only writes PodScheduled=False; the API server sets True on binding.
    assert scheduled is not None
    assert scheduled["status"] == "True", scheduled
    assert traceback_free(proc.log())


def test_too_many_pods(kubesched: StartKubesched, api: ApiClient, namespace: str) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_node().name("tiny").capacity(pods="2").obj())
    api.create(default_pod(namespace, "kube-1", "tiny", cpu="100m"))
    wait_for(lambda: get(api, namespace, "kube-1"), until=is_bound, timeout=15)
    api.create(our_pod(namespace, "ours-1", cpu="100m"))
    first = wait_outcome(api, namespace, "ours-1", nodes=1)
    assert first.node == "tiny", first.describe()
    api.create(our_pod(namespace, "ours-2", cpu="100m"))
    second = wait_outcome(api, namespace, "ours-2", nodes=1)
    assert not second.bound, second.describe()
    assert second.reason == "Unschedulable"
    assert second.message == "0/1 nodes are available: 1 Too many pods."
    new, _core = pod_events(api, namespace, second.pod, "FailedScheduling")
    assert [e.note for e in new] == [second.full_message]
    assert traceback_free(proc.log())


def test_no_nodes_at_all(kubesched: StartKubesched, api: ApiClient, namespace: str) -> None:
    """With no node in the cluster, both schedulers say so the same way."""
    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_pod().name("kube").namespace(namespace).scheduler(DEFAULT).obj())
    api.create(our_pod(namespace, "ours", cpu="100m"))
    kube = wait_outcome(api, namespace, "kube")
    ours = wait_outcome(api, namespace, "ours")
    assert not kube.bound
    assert not ours.bound
    assert (ours.reason, ours.message) == (kube.reason, kube.message), (
        f"kube-scheduler: {kube.describe()}\nkubesched:      {ours.describe()}"
    )
    # The first node to arrive takes the pod.
    api.create(make_node().name("first-node").obj())
    wait_for(lambda: get(api, namespace, "ours"), until=is_bound, timeout=REQUEUE_SECONDS)
