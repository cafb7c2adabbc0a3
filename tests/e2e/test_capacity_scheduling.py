"""CapacityScheduling side by side with scheduler-plugins' own build (v0.35.4-devel): the
demo of its README, decided by each scheduler on the same cluster, on CPUs as the README
runs it and on an extended resource (`nvidia.com/gpu`, 4 GPUs, quotas of min 2 / max 3).

Two namespaces with ElasticQuotas of min 4 / max 6 CPUs on two nodes of 4 CPUs (8 in all):
`quota1` creates four pods of 2 CPUs; three bind (it borrows 2 CPUs of `quota2`'s
guarantee) and the fourth is refused (`... ElasticQuota <ns> is more than Max`). Then
`quota2` creates two pods: the first binds on the free room, the second is refused at
PreFilter (`... total ElasticQuota used is more than min`) and preempts one of `quota1`'s
pods, then binds on that node.

Quotas count across the whole cluster (the sum of every quota's `min`), so the two copies
run one after the other, scheduler-plugins' first: each in fresh namespaces on its own two
nodes (pods select them by label), the first copy's quotas deleted before the second
starts. Both schedulers see all four nodes. Compared: what binds in each namespace, the
victim (one `quota1` pod, with a `Preempted` event, the preemptor bound to its node), and
the PodScheduled=False messages (namespaces, node and scheduler names normalized). Which of
two equally ranked `quota1` pods is the victim is not compared: scheduler-plugins picks among
equals in map order.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, node_name, unschedulable_message, wait_for
from tests.e2e.harness.capacity_sides import both_schedulers

SP, KS = "sp-capacity", "ks-capacity"
SIDE_LABEL = "parity.kubesched.io/side"
EQ_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/elasticquotas"
PLUGINS = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
}
"""scheduler-plugins' manifests/capacityscheduling/scheduler-config.yaml."""


@pytest.fixture(scope="module")
def schedulers(
    local_cluster: LocalCluster, api: ApiClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """scheduler-plugins' scheduler and kubesched, each with the example profile."""
    workdir = tmp_path_factory.mktemp("capacity")
    with both_schedulers(local_cluster, api, workdir, plugins=PLUGINS, theirs=SP, ours=KS):
        yield


@dataclass(frozen=True)
class Pool:
    """What the teams share: one resource, its amount per node, each quota's bounds and what
    each pod requests."""

    resource: str
    per_node: str
    min: str
    max: str
    per_pod: str


CPUS = Pool("cpu", per_node="4", min="4", max="6", per_pod="2")
"""The README's demo: 8 CPUs, pods of 2 CPUs."""
GPUS = Pool("nvidia.com/gpu", per_node="2", min="2", max="3", per_pod="1")
"""The same on an extended resource: 4 GPUs, pods of one GPU."""


@dataclass
class Side:
    """One copy of the demo: its scheduler, its two namespaces and its two nodes."""

    scheduler: str
    api: ApiClient
    quota1: str
    quota2: str
    pool: Pool = CPUS
    quotas: list[str] = field(default_factory=list)

    @property
    def prefix(self) -> str:
        return self.scheduler[:2]

    def nodes(self) -> None:
        for name in ("n1", "n2"):
            node = make_node().name(f"{self.prefix}-{name}").label(SIDE_LABEL, self.prefix)
            amounts = {"cpu": "4", "pods": "20", self.pool.resource: self.pool.per_node}
            self.api.create(node.capacity_named(amounts).obj())

    def elastic_quota(self, namespace: str) -> None:
        body = {
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "ElasticQuota",
            "metadata": {"name": namespace},
            "spec": {
                "min": {self.pool.resource: self.pool.min},
                "max": {self.pool.resource: self.pool.max},
            },
        }
        self.api.request("POST", EQ_PATH.format(ns=namespace), body=body)
        self.quotas.append(namespace)

    def delete_quotas(self) -> None:
        for namespace in self.quotas:
            path = EQ_PATH.format(ns=namespace) + f"/{namespace}"
            self.api.request("DELETE", path)
        self.quotas.clear()

    def app(self, namespace: str, name: str, replicas: int, priority_class: str = "") -> None:
        """`replicas` pods (as the README's nginx Deployments), on this side's nodes."""
        for i in range(replicas):
            self.pod(namespace, f"{name}-{i}", priority_class=priority_class)

    def pod(
        self,
        namespace: str,
        name: str,
        *,
        priority_class: str = "",
        node: str = "",
        labels: dict[str, str] | None = None,
    ) -> None:
        """One pod of the pool's size on this side's nodes (on `node` of them when given)."""
        amount = {self.pool.resource: self.pool.per_pod}
        pod = make_pod().name(name).scheduler(self.scheduler).req_named(amount)
        pod = pod.node_selector(**{SIDE_LABEL: self.prefix})
        if node:
            pod = pod.node_selector(**{"kubernetes.io/hostname": f"{self.prefix}-{node}"})
        for key, value in (labels or {}).items():
            pod = pod.label(key, value)
        body = pod.obj()
        if priority_class:
            body["spec"]["priorityClassName"] = priority_class
        body["spec"]["containers"][0]["resources"]["limits"] = amount
        body["spec"]["terminationGracePeriodSeconds"] = 0  # no kubelet finishes a deletion
        self.api.create(body, namespace=namespace)

    def pods(self, namespace: str) -> list[dict[str, Any]]:
        return self.api.list("Pod", namespace=namespace)

    def bound(self, namespace: str) -> int:
        return sum(1 for pod in self.pods(namespace) if is_bound(pod))

    def waiting(self, namespace: str) -> dict[str, str]:
        """Each unbound pod's PodScheduled=False message, normalized ("" before any)."""
        pods = self.pods(namespace)
        return {
            p["metadata"]["name"]: self.normalize(unschedulable_message(p))
            for p in pods
            if not is_bound(p)
        }

    def normalize(self, text: str) -> str:
        text = text.replace(self.quota1, "QUOTA1").replace(self.quota2, "QUOTA2")
        return re.sub(r"\b(sp|ks)-(n\d)\b", r"X-\2", text)

    def preempted(self, namespace: str) -> list[tuple[str, str]]:
        """(preemptor UID, node) of each `Preempted` event of a pod of `namespace`."""
        found = []
        for event in self.api.events(namespace, reason="Preempted"):
            match = re.fullmatch(r"Preempted by pod (\S+) on node (\S+)", event.note)
            assert match, event.note
            found.append((match[1], match[2]))
        return found


@dataclass(frozen=True)
class Outcome:
    """What one scheduler made of the demo."""

    after_app1: tuple[int, dict[str, str]]
    bound: tuple[int, int]
    victims: int
    still_waiting: Counter[str]


def _quotas(side: Side) -> None:
    side.elastic_quota(side.quota1)
    side.elastic_quota(side.quota2)
    time.sleep(1)  # both schedulers' ElasticQuota informers see the new quotas


def _demo(side: Side) -> Outcome:
    _quotas(side)
    side.app(side.quota1, "app1", 4)
    wait_for(
        lambda: side.waiting(side.quota1),
        until=lambda waiting: side.bound(side.quota1) == 3 and all(waiting.values()),
        message=f"{side.scheduler}: three of app1 bound, one refused",
    )
    after_app1 = (side.bound(side.quota1), side.waiting(side.quota1))
    side.app(side.quota2, "app2", 2)
    wait_for(
        lambda: (side.bound(side.quota1), side.bound(side.quota2)),
        until=lambda counts: counts == (2, 2),
        message=f"{side.scheduler}: app2 reclaimed its guarantee from app1",
    )
    victims = side.preempted(side.quota1)
    for preemptor_uid, node in victims:
        [preemptor] = [p for p in side.pods(side.quota2) if p["metadata"]["uid"] == preemptor_uid]
        assert node_name(preemptor) == node, "the preemptor binds where its victim was"
    still = Counter(side.waiting(side.quota1).values())
    return Outcome(after_app1, (2, 2), len(victims), still)


@pytest.fixture(params=[CPUS, GPUS], ids=["cpu", "nvidia.com-gpu"])
def sides(
    schedulers: None,
    api: ApiClient,
    new_namespace: Callable[..., str],
    request: pytest.FixtureRequest,
) -> Iterator[tuple[Side, Side]]:
    del schedulers
    pool: Pool = request.param
    made = (
        Side(SP, api, new_namespace("sp-quota1"), new_namespace("sp-quota2"), pool),
        Side(KS, api, new_namespace("ks-quota1"), new_namespace("ks-quota2"), pool),
    )
    try:
        yield made
    finally:
        for side in made:  # the namespaces' clean-up leaves custom resources behind
            side.delete_quotas()


def test_quota2_reclaims_what_quota1_borrowed_as_scheduler_plugins_does(
    sides: tuple[Side, Side],
) -> None:
    sp, ks = sides
    sp.nodes()
    ks.nodes()
    expected = _demo(sp)
    sp.delete_quotas()
    got = _demo(ks)

    max_refusal = (
        "0/4 nodes are available: Pod QUOTA1/app1-3 is rejected in PreFilter because"
        " ElasticQuota QUOTA1 is more than Max. 0/4 nodes are available: "
        + ", ".join(
            f"1 No victims found on node {node} for preemptor pod app1-3"
            for node in ("X-n1", "X-n2", "X-n1", "X-n2")
        )
        + "."
    )
    assert expected.after_app1 == (3, {"app1-3": max_refusal})
    assert got == expected
    assert expected.victims == 1


@pytest.fixture
def priority_classes(api: ApiClient) -> Iterator[tuple[str, str]]:
    """(low, high) PriorityClass names of this test (cluster-scoped, so unique)."""
    suffix = secrets.token_hex(3)
    low, high = f"e2e-quota-low-{suffix}", f"e2e-quota-high-{suffix}"
    for name, value in ((low, 10), (high, 1000)):
        body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": value}
        api.create({**body, "metadata": {"name": name}})
    try:
        yield low, high
    finally:
        for name in (low, high):
            api.delete("PriorityClass", name)


def _over_min(side: Side, low: str, high: str) -> tuple[int, int, Counter[str]]:
    """quota1 borrows with three low-priority pods, then one of high priority comes: its
    quota is over min, so it evicts one of its own namespace's lower-priority pods."""
    _quotas(side)
    side.app(side.quota1, "low", 3, low)
    wait_for(lambda: side.bound(side.quota1), until=lambda n: n == 3, message="3 low bound")
    side.app(side.quota1, "high", 1, high)
    wait_for(
        lambda: {p["metadata"]["name"]: is_bound(p) for p in side.pods(side.quota1)},
        until=lambda bound: bound.get("high-0") and sum(bound.values()) == 3,
        message=f"{side.scheduler}: high-0 bound in place of a low pod",
    )
    victims = side.preempted(side.quota1)
    [high_pod] = [p for p in side.pods(side.quota1) if p["metadata"]["name"] == "high-0"]
    # Its quota, not a node, was full: it may bind on any node with room, not only the victim's.
    assert [uid for uid, _ in victims] == [high_pod["metadata"]["uid"]]
    notes = side.api.events(side.quota1, regarding="high-0", reason="FailedScheduling")
    return side.bound(side.quota1), len(victims), Counter(side.normalize(e.note) for e in notes)


@pytest.mark.parametrize("sides", [CPUS], ids=["cpu"], indirect=True)
def test_a_quota_over_its_min_preempts_only_its_own_lower_priority_pods(
    sides: tuple[Side, Side], priority_classes: tuple[str, str]
) -> None:
    sp, ks = sides
    sp.nodes()
    ks.nodes()
    expected = _over_min(sp, *priority_classes)
    sp.delete_quotas()
    got = _over_min(ks, *priority_classes)

    refusal = (
        "0/4 nodes are available: Pod QUOTA1/high-0 is rejected in PreFilter because"
        " ElasticQuota QUOTA1 is more than Max."
    )
    assert expected == (3, 1, Counter({refusal: 1}))
    assert got == expected


def _budget(side: Side) -> tuple[dict[str, bool], dict[str, bool], list[str], str]:
    """quota1's pods `a1`, `a2` (a PodDisruptionBudget protects them: no disruption allowed)
    fill node n1, `a3` half of n2, quota2's `b1` the rest; quota2's `b2` reclaims. Evicting
    one protected pod would do on n1, `a3` on n2: the budget decides for n2."""
    _quotas(side)
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "db"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "db"}}},
    }
    side.api.create(pdb, namespace=side.quota1)
    for name, node in (("a1", "n1"), ("a2", "n1")):
        side.pod(side.quota1, name, node=node, labels={"app": "db"})
    side.pod(side.quota1, "a3", node="n2")
    wait_for(lambda: side.bound(side.quota1), until=lambda n: n == 3, message="a1-a3 bound")
    side.pod(side.quota2, "b1", node="n2")
    wait_for(lambda: side.bound(side.quota2), until=lambda n: n == 1, message="b1 bound")
    side.pod(side.quota2, "b2")
    wait_for(lambda: side.bound(side.quota2), until=lambda n: n == 2, message="b2 reclaimed")
    victims = [e.regarding_name for e in side.api.events(side.quota1, reason="Preempted")]
    placed = {
        p["metadata"]["name"]: node_name(p).removeprefix(f"{side.prefix}-")
        for p in side.pods(side.quota2)
    }
    left = {p["metadata"]["name"]: is_bound(p) for p in side.pods(side.quota1)}
    return left, {name: node == "n2" for name, node in placed.items()}, victims, placed["b2"]


@pytest.mark.parametrize("sides", [CPUS], ids=["cpu"], indirect=True)
def test_reclaiming_spares_pods_a_disruption_budget_protects(sides: tuple[Side, Side]) -> None:
    sp, ks = sides
    sp.nodes()
    ks.nodes()
    expected = _budget(sp)
    sp.delete_quotas()
    got = _budget(ks)

    assert expected == ({"a1": True, "a2": True}, {"b1": True, "b2": True}, ["a3"], "n2")
    assert got == expected


def _bad_quota(api: ApiClient, namespace: str) -> dict[str, Any]:
    """An ElasticQuota whose `min` (4 CPUs) exceeds its `max` (1 CPU)."""
    body = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "metadata": {"name": "bad"},
        "spec": {"min": {"cpu": "4"}, "max": {"cpu": "1"}},
    }
    created: dict[str, Any] = api.request("POST", EQ_PATH.format(ns=namespace), body=body)
    return created


def test_a_bad_quota_gets_a_warning_event_and_its_deletion_frees_the_pods_it_refused(
    schedulers: None, api: ApiClient, new_namespace: Callable[..., str]
) -> None:
    """kubesched only: a quota whose min exceeds its max gets one MinExceedsMax Warning Event
    on itself (an edit keeping the problem adds none); a pod over its max waits, refused by
    it, and binds once the quota is deleted (its delete event requeues the pod), once."""
    del schedulers
    side = Side(KS, api, new_namespace("ks-bad-quota"), "no-quota2")
    namespace = side.quota1
    side.nodes()
    path = EQ_PATH.format(ns=namespace) + "/bad"
    quota = _bad_quota(api, namespace)
    try:
        [event] = wait_for(
            lambda: api.events(namespace, reason="MinExceedsMax"),
            message="the MinExceedsMax event on the quota",
        )
        relabel = {"metadata": {"labels": {"team": "a"}}}
        api.request("PATCH", path, body=relabel, content_type="application/merge-patch+json")
        side.pod(namespace, "big")
        wait_for(
            lambda: [unschedulable_message(pod) for pod in side.pods(namespace)],
            until=lambda found: f"ElasticQuota {namespace} is more than Max" in found[0],
            message="the pod refused by the quota",
        )
        api.request("DELETE", path)
        wait_for(lambda: side.bound(namespace), until=lambda n: n == 1, message="big bound")
    finally:
        if api.request("GET", EQ_PATH.format(ns=namespace))["items"]:
            api.request("DELETE", path)
    assert event.type == "Warning"
    assert event.reporting_controller == KS
    assert event.raw["regarding"] == {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "namespace": namespace,
        "name": "bad",
        "uid": quota["metadata"]["uid"],
    }
    assert event.note == (
        "ElasticQuota min exceeds its max in cpu: its pods are held to max; lower min or raise max"
    )
    assert len(api.events(namespace, reason="MinExceedsMax")) == 1
    assert "series" not in api.events(namespace, reason="MinExceedsMax")[0].raw
    assert len(api.events(namespace, regarding="big", reason="Scheduled")) == 1
