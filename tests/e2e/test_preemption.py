"""DefaultPreemption on the real control plane, with the real kube-scheduler running.

* A high-priority pod that does not fit preempts a lower-priority pod (placed by
  kube-scheduler): the victim gets the DisruptionTarget condition, is deleted (with its
  default grace period, so it lingers terminating: this cluster has no kubelet) and gets a
  `Preempted` event; the preemptor gets `status.nominatedNodeName`, waits while the victim
  terminates (the room is held for it) and is bound to that node once the victim is gone.
  The test plays the kubelet: it finishes the victim's termination (a grace-0 delete).
* `preemptionPolicy: Never` preempts nothing.
* A PDB-protected pod is not chosen while another candidate exists, even one of a
  higher priority.
* kube-scheduler, given the same cluster and pods, picks the same victim and nominated node
  and words its FailedScheduling and Preempted events the same way.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    ApiClient,
    Event,
    assert_stays,
    condition,
    is_bound,
    node_name,
    wait_for,
)

SCHEDULER = "preempting-scheduler"
DEFAULT = "default-scheduler"
LOW, MID, HIGH = 10, 20, 1000
TIMEOUT = 30.0


@dataclass(frozen=True)
class Classes:
    """PriorityClass names of this test (cluster-scoped, so unique per test)."""

    low: str
    mid: str
    high: str
    never: str


@pytest.fixture
def classes(api: ApiClient) -> Iterator[Classes]:
    suffix = secrets.token_hex(3)
    made = Classes(
        f"e2e-low-{suffix}", f"e2e-mid-{suffix}", f"e2e-high-{suffix}", f"e2e-never-{suffix}"
    )
    specs = [
        (made.low, LOW, None),
        (made.mid, MID, None),
        (made.high, HIGH, None),
        (made.never, HIGH, "Never"),
    ]
    for name, value, policy in specs:
        body: dict[str, Any] = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        if policy:
            body["preemptionPolicy"] = policy
        api.create(body)
    try:
        yield made
    finally:
        for name, _, _ in specs:
            api.delete("PriorityClass", name)


def pod_body(
    name: str,
    namespace: str,
    *,
    klass: str,
    cpu: str = "1",
    scheduler: str = DEFAULT,
    node: str = "",
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    builder = make_pod().name(name).namespace(namespace).scheduler(scheduler).req(cpu=cpu)
    if node:
        builder = builder.node(node)
    for key, value in (labels or {}).items():
        builder = builder.label(key, value)
    body = builder.obj()
    del body["metadata"]["uid"]
    body["spec"]["priorityClassName"] = klass
    return body


def get(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return api.get("Pod", name, namespace=namespace)


def terminating(pod: dict[str, Any]) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def finish_termination(api: ApiClient, namespace: str, name: str) -> None:
    """What the victim's kubelet does once its containers stopped: remove it for good."""
    api.delete("Pod", name, namespace=namespace, grace_period=0)
    wait_for(
        lambda: api.get_or_none("Pod", name, namespace=namespace),
        until=lambda pod: pod is None,
        message=f"{name} is gone",
    )


def events_of(api: ApiClient, namespace: str, name: str, reason: str) -> Callable[[], list[Event]]:
    return lambda: api.events(namespace, regarding=name, reason=reason)


def preempted_event(api: ApiClient, namespace: str, victim: str) -> Event:
    (event,) = wait_for(
        events_of(api, namespace, victim, "Preempted"), message=f"a Preempted event for {victim}"
    )
    return event


def failed_scheduling(api: ApiClient, namespace: str, name: str) -> list[str]:
    return [e.note for e in api.events(namespace, regarding=name, reason="FailedScheduling")]


def fill_with_kube_scheduler(
    api: ApiClient, namespace: str, classes: Classes, count: int
) -> list[str]:
    """`count` low-priority 1-cpu pods placed by the real kube-scheduler."""
    names = [f"filler-{i}" for i in range(count)]
    for name in names:
        api.create(pod_body(name, namespace, klass=classes.low))
    for name in names:
        wait_for(
            lambda name=name: get(api, namespace, name), until=is_bound, message=f"{name} bound"
        )
    return names


def test_high_priority_pod_preempts_and_is_bound_on_the_nominated_node(
    kubesched: Any, api: ApiClient, namespace: str, classes: Classes
) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    for name in ("node-a", "node-b"):
        api.create(make_node().name(name).capacity(cpu="2").obj())
    fillers = fill_with_kube_scheduler(api, namespace, classes, 4)  # both nodes are full

    vip = api.create(pod_body("vip", namespace, klass=classes.high, scheduler=SCHEDULER))
    uid = vip["metadata"]["uid"]
    nominated = wait_for(
        lambda: get(api, namespace, "vip"),
        until=lambda pod: pod["status"].get("nominatedNodeName"),
        message="vip is nominated",
    )["status"]["nominatedNodeName"]

    # Exactly one victim, on the nominated node: DisruptionTarget set, deletion started.
    def victims() -> list[dict[str, Any]]:
        return [pod for pod in api.list("Pod", namespace=namespace) if terminating(pod)]

    (victim,) = wait_for(victims, until=lambda found: len(found) == 1, message="one victim")
    assert victim["metadata"]["name"] in fillers
    assert node_name(victim) == nominated
    target = condition(victim, "DisruptionTarget")
    assert target is not None
    assert (target["status"], target["reason"]) == ("True", "PreemptionByScheduler")
    assert target["message"] == f"{SCHEDULER}: preempting to accommodate a higher priority pod"
    event = preempted_event(api, namespace, victim["metadata"]["name"])
    assert event.note == f"Preempted by pod {uid} on node {nominated}"
    assert (event.type, event.action) == ("Normal", "Preempting")
    assert event.reporting_controller == SCHEDULER
    assert event.raw["related"]["name"] == "vip"
    notes = wait_for(lambda: failed_scheduling(api, namespace, "vip"), message="FailedScheduling")
    assert notes[0] == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement"
        f" for pod on node {nominated}, preempting 1 victims"
    )

    # While the victim terminates, its room is held: the preemptor waits, nothing else goes.
    assert_stays(
        lambda: get(api, namespace, "vip"),
        holds=lambda pod: not is_bound(pod),
        duration=3,
        message="vip waits for its victim",
    )
    assert len(victims()) == 1, "nothing else was preempted meanwhile"

    finish_termination(api, namespace, victim["metadata"]["name"])
    bound = wait_for(lambda: get(api, namespace, "vip"), until=is_bound, message="vip bound")
    assert node_name(bound) == nominated
    others = {p["metadata"]["name"] for p in api.list("Pod", namespace=namespace)}
    assert others == {"vip", *fillers} - {victim["metadata"]["name"]}
    assert proc.running()


def test_preemption_policy_never_preempts_nothing(
    kubesched: Any, api: ApiClient, namespace: str, classes: Classes
) -> None:
    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_node().name("only").capacity(cpu="1").obj())
    (filler,) = fill_with_kube_scheduler(api, namespace, classes, 1)
    polite = api.create(pod_body("polite", namespace, klass=classes.never, scheduler=SCHEDULER))
    assert polite["spec"]["preemptionPolicy"] == "Never"
    notes = wait_for(
        lambda: failed_scheduling(api, namespace, "polite"), message="polite is unschedulable"
    )
    assert notes[0] == (
        "0/1 nodes are available: 1 Insufficient cpu."
        " preemption: not eligible due to preemptionPolicy=Never."
    )
    assert_stays(
        lambda: (get(api, namespace, filler), get(api, namespace, "polite")),
        holds=lambda pods: not terminating(pods[0]) and not is_bound(pods[1]),
        duration=3,
        message="the filler keeps running and polite keeps waiting",
    )
    assert not get(api, namespace, "polite")["status"].get("nominatedNodeName")
    assert api.events(namespace, reason="Preempted") == []


@dataclass(frozen=True)
class Outcome:
    victim: str
    nominated: str
    failed_scheduling: str
    preempted_note: str


def pdb_scenario(api: ApiClient, namespace: str, classes: Classes, scheduler: str) -> Outcome:
    """node-a's pod has the lowest priority but a PDB allowing no disruption; node-b's pod
    has a higher (still lower than the preemptor's) priority and no PDB."""
    for name in ("node-a", "node-b"):
        api.create(make_node().name(name).capacity(cpu="1").obj())
    api.create(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "guard", "namespace": namespace},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
        }
    )
    api.create(
        pod_body("guarded", namespace, klass=classes.low, node="node-a", labels={"app": "guarded"})
    )
    api.create(
        pod_body("free", namespace, klass=classes.mid, node="node-b", labels={"app": "free"})
    )
    vip = api.create(pod_body("vip", namespace, klass=classes.high, scheduler=scheduler))
    nominated = wait_for(
        lambda: get(api, namespace, "vip"),
        until=lambda pod: pod["status"].get("nominatedNodeName"),
        message=f"{scheduler} nominated vip",
    )["status"]["nominatedNodeName"]
    victim = wait_for(
        lambda: [
            p["metadata"]["name"] for p in api.list("Pod", namespace=namespace) if terminating(p)
        ],
        message="a victim",
    )
    assert len(victim) == 1, victim
    note = preempted_event(api, namespace, victim[0]).note
    notes = wait_for(lambda: failed_scheduling(api, namespace, "vip"), message="FailedScheduling")
    assert not terminating(get(api, namespace, "guarded"))
    finish_termination(api, namespace, victim[0])
    wait_for(lambda: get(api, namespace, "vip"), until=is_bound, message="vip bound")
    return Outcome(victim[0], nominated, notes[0], note.replace(vip["metadata"]["uid"], "<uid>"))


def test_pdb_protected_pod_is_avoided_while_another_candidate_exists(
    kubesched: Any, api: ApiClient, namespace: str, classes: Classes
) -> None:
    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    outcome = pdb_scenario(api, namespace, classes, SCHEDULER)
    assert (outcome.victim, outcome.nominated) == ("free", "node-b")
    assert outcome.preempted_note == "Preempted by pod <uid> on node node-b"


def test_kube_scheduler_makes_the_same_choice_and_says_it_the_same_way(
    kubesched: Any, api: ApiClient, new_namespace: Callable[..., str], classes: Classes
) -> None:
    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    first = new_namespace("ours")
    ours = pdb_scenario(api, first, classes, SCHEDULER)
    # A fresh, identical cluster for kube-scheduler: no pod or node of the first run left.
    api.delete_all("Pod", namespace=first, grace_period=0)
    wait_for(lambda: api.list("Pod", namespace=first) == [], message="first run's pods gone")
    api.delete_all("Node", grace_period=None)
    wait_for(lambda: api.list("Node") == [], message="first run's nodes gone")
    theirs = pdb_scenario(api, new_namespace("theirs"), classes, DEFAULT)
    assert ours == theirs
    assert re.fullmatch(
        r"0/2 nodes are available: 2 Insufficient cpu\. preemption: found a potential placement"
        r" for pod on node node-b, preempting 1 victims",
        ours.failed_scheduling,
    ), ours.failed_scheduling
