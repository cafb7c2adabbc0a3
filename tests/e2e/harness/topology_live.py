"""One scheduler's run of a topology-gang scenario on the live control plane
(tests/e2e/test_topology_differential.py).

    prepare(api, scenario, namespace)          # its nodes and pre-bound pods, once a seed
    outcomes = LiveSide(api, "tas-oracle", scenario, namespace).run()
    clear_pods(api, namespace)                 # the next scheduler sees the same cluster

The gangs are submitted one at a time: the members, then their PodGroup; the next gang waits
until this one settled (the PodGroup's `PodGroupInitiallyScheduled` True and at least
`minCount` members bound, or that condition False and none bound, or False and `minCount`
bound with members left over: the race docs/development.md describes; every member not
bound with its PodScheduled=False message and a FailedScheduling event), so each gang meets
the cluster its predecessors left, in the same order on both schedulers. A gang bound with
members left over settles once it has looked the same for `QUIET_SECONDS`: the cycle for
those members, which follows at once, is in (its texts, its condition write)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from kubesched.testing import make_node, make_pod
from tests.e2e.harness.api import ApiClient, Event
from tests.e2e.harness.topology_scenario import Gang, Scenario
from tests.e2e.harness.waiting import node_name, unschedulable_message, wait_for

PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"
GANG_LABEL = "e2e.kubesched.io/gang"
SETTLE_SECONDS = 40.0
QUIET_SECONDS = 1.0
PARTIAL_CYCLE = "first placement status: pod group is unschedulable"
"""How a FailedScheduling note ends when the cycle held too few of the gang's members
(`GangOutcome.partial_first_cycle`)."""


@dataclass(frozen=True)
class GangOutcome:
    """What one scheduler did with one gang once it settled."""

    name: str
    nodes: tuple[str, ...]
    """Each member's node ("" when unbound), in member order."""
    condition: tuple[str, str, str] | None
    """PodGroupInitiallyScheduled: status, reason, message."""
    reasons: tuple[str, ...]
    """The unbound members' PodScheduled=False message and last FailedScheduling note,
    sorted (of a bound gang: the members left over beyond `minCount`)."""
    partial_first_cycle: bool = False
    """A member's FailedScheduling note says `first placement status: pod group is
    unschedulable` with no reason: the scheduler's first cycle for the gang held only some of
    its members. kube-scheduler v1.37.2 does this now and then: its AddPodGroup moves the
    waiting members into the queue one at a time, and the scheduling loop may pop the group
    after the first. The retry holds them all, the member tried before first (the queue
    orders a gang's members by attempts), so they meet the nodes in another order."""

    @property
    def leftover(self) -> bool:
        """Bound, with members left unbound (beyond `minCount`)."""
        return any(self.nodes) and not all(self.nodes)


def prepare(api: ApiClient, scenario: Scenario, namespace: str) -> None:
    """Create the scenario's nodes and its pre-bound pods (in `namespace`)."""
    for node in scenario.nodes:
        built = make_node().name(node.name)
        for key, value in node.labels:
            built = built.label(key, value)
        api.create(built.capacity_named({**node.allocatable.as_list(), "pods": "20"}).obj())
    for pod in scenario.prebound:
        body = make_pod().name(pod.name).req_named(pod.request.as_list()).obj()
        body["spec"]["nodeName"] = pod.node
        api.create(body, namespace=namespace)


def see_nodes(api: ApiClient, scheduler: str, namespace: str, count: int) -> None:
    """`scheduler`'s informers have the `count` nodes (and the pods created before)."""
    probe = make_pod().name(f"probe-{scheduler}").scheduler(scheduler).req(cpu="1000")
    api.create(probe.obj(), namespace=namespace)
    wait_for(
        lambda: unschedulable_message(api.get("Pod", f"probe-{scheduler}", namespace=namespace)),
        until=lambda why: why.startswith(f"0/{count} nodes"),
        message=f"{scheduler} sees {count} nodes",
    )
    api.delete("Pod", f"probe-{scheduler}", namespace=namespace, grace_period=0)


def clear_pods(api: ApiClient, namespace: str) -> None:
    """Delete every pod of `namespace` at once and wait until they are gone."""
    api.delete_all("Pod", namespace=namespace, grace_period=0)
    wait_for(lambda: api.list("Pod", namespace=namespace), until=lambda pods: not pods)


class LiveSide:
    """Submits a scenario's gangs for `scheduler` in `namespace` and records each outcome."""

    def __init__(self, api: ApiClient, scheduler: str, scenario: Scenario, namespace: str):
        self.api, self.scheduler, self.scenario, self.ns = api, scheduler, scenario, namespace

    def run(self) -> list[GangOutcome]:
        """Every gang's outcome, in order; each once it settled."""
        outcomes = []
        for gang in self.scenario.gangs:
            self._submit(gang)
            outcomes.append(self._settled(gang))
        return outcomes

    def final_nodes(self) -> dict[str, tuple[str, ...]]:
        """Each gang's members' nodes at the end of the run (a late bind shows here)."""
        return {gang.name: self._nodes(gang) for gang in self.scenario.gangs}

    def _submit(self, gang: Gang) -> None:
        """The members first, then their PodGroup: the group's first cycle has them all
        (members created one by one after it would let a cycle start with `minCount`)."""
        for index, request in enumerate(gang.members):
            pod = make_pod().name(f"{gang.name}-{index}").scheduler(self.scheduler)
            pod = pod.pod_group(gang.name).label(GANG_LABEL, gang.name)
            self.api.create(pod.req_named(request.as_list()).obj(), namespace=self.ns)
        spec = {
            "schedulingPolicy": {"gang": {"minCount": gang.min_count}},
            "schedulingConstraints": {"topology": [{"key": gang.key}]},
        }
        body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": spec}
        body["metadata"] = {"name": gang.name}
        created = self.api.request("POST", PG_PATH.format(ns=self.ns), body=body)
        if created["spec"].get("schedulingConstraints") != spec["schedulingConstraints"]:
            raise AssertionError(f"kube-apiserver dropped the topology constraint: {created}")

    def _pods(self, gang: Gang) -> list[dict[str, Any]]:
        selector = f"{GANG_LABEL}={gang.name}"
        pods = self.api.list("Pod", namespace=self.ns, label_selector=selector)
        return sorted(pods, key=lambda pod: int(pod["metadata"]["name"].rsplit("-", 1)[1]))

    def _nodes(self, gang: Gang) -> tuple[str, ...]:
        return tuple(node_name(pod) for pod in self._pods(gang))

    def _condition(self, gang: Gang) -> tuple[str, str, str] | None:
        path = PG_PATH.format(ns=self.ns) + f"/{gang.name}"
        status = self.api.request("GET", path).get("status") or {}
        for cond in status.get("conditions") or ():
            if cond["type"] == "PodGroupInitiallyScheduled":
                return cond["status"], cond.get("reason", ""), cond.get("message", "")
        return None

    def _snapshot(self, gang: Gang) -> GangOutcome | str:
        """The gang's outcome if it settled, else what it looks like now."""
        pods = self._pods(gang)
        nodes = tuple(node_name(pod) for pod in pods)
        condition = self._condition(gang)
        bound = sum(1 for name in nodes if name)
        now = f"{len(pods)} members, {bound} bound, condition {condition}"
        if len(pods) != len(gang.members) or condition is None:
            return now
        if condition[0] == "True" and bound < gang.min_count:
            return now
        if condition[0] == "False" and 0 < bound < gang.min_count:
            return now
        if condition[0] == "False" and bound == len(pods):
            return now
        failures = self.api.events(self.ns, reason="FailedScheduling")
        names = {pod["metadata"]["name"] for pod in pods}
        partial = any(
            e.regarding_name in names and e.note.endswith(PARTIAL_CYCLE) for e in failures
        )
        reasons = []
        for pod in pods:
            if node_name(pod):
                continue
            message = unschedulable_message(pod)
            name = pod["metadata"]["name"]
            events = [event for event in failures if event.regarding_name == name]
            if not message or not events:
                return f"{now}; {name} says {message!r}, {len(events)} FailedScheduling events"
            reasons.append(f"{message} | event: {_latest(events).note}")
        return GangOutcome(gang.name, nodes, condition, tuple(sorted(reasons)), partial)

    def _settled(self, gang: Gang) -> GangOutcome:
        """The gang's outcome once settled (and, with members left over, quiet)."""
        outcome = self._settling(gang)
        while outcome.leftover:
            time.sleep(QUIET_SECONDS)
            again = self._settling(gang)
            if again == outcome:
                break
            outcome = again
        return outcome

    def _settling(self, gang: Gang) -> GangOutcome:
        outcome = wait_for(
            lambda: self._snapshot(gang),
            until=lambda found: isinstance(found, GangOutcome),
            timeout=SETTLE_SECONDS,
            interval=0.3,
            message=f"{self.scheduler} settles {gang.name} of seed {self.scenario.seed}",
        )
        assert isinstance(outcome, GangOutcome)
        return outcome


def _latest(events: list[Event]) -> Event:
    """The event observed last (a repeated text updates its first event's series)."""

    def seen(event: Event) -> str:
        series = event.raw.get("series") or {}
        return str(series.get("lastObservedTime") or event.raw.get("eventTime") or "")

    return max(reversed(events), key=seen)  # the newest of equal times
