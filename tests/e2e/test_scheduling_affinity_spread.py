"""Topology spread and inter-pod (anti-)affinity against the real kube-scheduler.

The same Deployment-like workload is placed twice, on identical fresh clusters of 7 nodes
(zones a, b, c with two nodes each, plus `x1` without a zone): first by kube-scheduler,
then, after everything of the first run is deleted, by kubesched. Each group of replicas
has constraints that leave some replicas unschedulable. Both schedulers must satisfy the
same constraints (skew bounds, no anti-affinity violation, the preferred zone for the first
replica), bind the same number of replicas per group, and report the others with the same
`0/7 nodes are available: ...` message (the preemption verdict after it aside).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubesched.testing import make_node, make_pod
from kubesched.testing.builders import PodBuilder
from tests.e2e.harness import ApiClient, create_namespace, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.parity import Outcome, traceback_free, wait_outcome

SCHEDULER = "spread-scheduler"
DEFAULT = "default-scheduler"
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
NODES = {"a1": "a", "a2": "a", "b1": "b", "b2": "b", "c1": "c", "c2": "c", "x1": None}
NODE_COUNT = len(NODES)

# kube-scheduler's reason texts (v1.37)
AFFINITY = "node(s) didn't match Pod's node affinity/selector"
SPREAD = "node(s) didn't match pod topology spread constraints"
SPREAD_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules"


def term(app: str, key: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}


def web(p: PodBuilder) -> PodBuilder:
    """Zone spread (maxSkew 1), one per host, near the cache if possible."""
    return p.spread_constraint(1, ZONE, match_labels={"app": "web"}).affinity(
        {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [term("web", HOST)]
            },
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": term("cache", ZONE)}
                ]
            },
        }
    )


def api_pod(p: PodBuilder) -> PodBuilder:
    """Zones a and b only, but zone c still counts as a domain (nodeAffinityPolicy Ignore)."""
    return p.required_node_affinity(ZONE, "In", ["a", "b"]).spread_constraint(
        1, ZONE, match_labels={"app": "api"}, nodeAffinityPolicy="Ignore"
    )


def db(p: PodBuilder) -> PodBuilder:
    """minDomains 4 > 3 zones: the global minimum stays 0, so one replica per zone."""
    return p.spread_constraint(1, ZONE, match_labels={"app": "db"}, minDomains=4)


def batch(p: PodBuilder) -> PodBuilder:
    return p


def batch_in_c(p: PodBuilder) -> PodBuilder:
    return p.node_selector(**{ZONE: "c"})


@dataclass(frozen=True)
class Group:
    app: str
    spec: Callable[[PodBuilder], PodBuilder]
    replicas: int
    bound: int
    message: str = ""
    """The FailedScheduling message of the replicas that do not fit."""
    label: str = ""
    """The pods' `app` label (default: `app`)."""


GROUPS = [
    Group(
        "web",
        web,
        replicas=7,
        bound=6,
        message=f"0/7 nodes are available: 1 {SPREAD_LABEL}, 6 {ANTI}.",
    ),
    Group(
        "api",
        api_pod,
        replicas=3,
        bound=2,
        message=f"0/7 nodes are available: 3 {AFFINITY}, 4 {SPREAD}.",
    ),
    Group(
        "db",
        db,
        replicas=4,
        bound=3,
        message=f"0/7 nodes are available: 1 {SPREAD_LABEL}, 6 {SPREAD}.",
    ),
    Group("batch", batch, replicas=3, bound=3),
    Group(
        "batch-c",
        batch_in_c,
        replicas=1,
        bound=0,
        message=f"0/7 nodes are available: 2 {EXISTING}, 5 {AFFINITY}.",
        label="batch",
    ),
]


@dataclass
class Run:
    """What one scheduler did with the workload: outcomes per group, node -> zone."""

    who: str
    outcomes: dict[str, list[Outcome]]
    zones: dict[str, str | None]

    def placed(self, group: str) -> list[str]:
        return [o.node for o in self.outcomes[group] if o.bound]


def pod_spec(namespace: str, scheduler: str, group: Group, index: int) -> dict[str, Any]:
    builder = make_pod().name(f"{group.app}-{index}").namespace(namespace).scheduler(scheduler)
    return group.spec(builder.label("app", group.label or group.app)).obj()


def create_cluster(api: ApiClient, namespace: str, prefix: str) -> dict[str, str | None]:
    """The 7 nodes, the cache pod on b1 and the guard pod (anti-affinity to batch) on c1."""
    zones = {}
    for short, zone in NODES.items():
        builder = make_node().name(f"{prefix}-{short}")
        if zone:
            builder.label(ZONE, zone)
        api.create(builder.obj())
        zones[f"{prefix}-{short}"] = zone
    api.create(
        make_pod()
        .name("cache")
        .namespace(namespace)
        .label("app", "cache")
        .node(f"{prefix}-b1")
        .obj()
    )
    guard = make_pod().name("guard").namespace(namespace).label("app", "guard").node(f"{prefix}-c1")
    guard.affinity(
        {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [term("batch", ZONE)]
            }
        }
    )
    api.create(guard.obj())
    return zones


def run_workload(api: ApiClient, namespace: str, scheduler: str, prefix: str) -> Run:
    zones = create_cluster(api, namespace, prefix)
    outcomes: dict[str, list[Outcome]] = {}
    for group in GROUPS:
        first = pod_spec(namespace, scheduler, group, 0)
        api.create(first)  # the first replica alone: where the preferences lead it
        settled = [wait_outcome(api, namespace, first["metadata"]["name"], nodes=NODE_COUNT)]
        rest = [pod_spec(namespace, scheduler, group, i) for i in range(1, group.replicas)]
        for pod in rest:  # the others at once, like a Deployment scaling up
            api.create(pod)
        settled += [
            wait_outcome(api, namespace, pod["metadata"]["name"], nodes=NODE_COUNT) for pod in rest
        ]
        outcomes[group.app] = settled
    return Run(who=scheduler, outcomes=outcomes, zones=zones)


def remove_cluster(api: ApiClient, namespace: str) -> None:
    api.delete_all("Pod", namespace=namespace, grace_period=0)
    api.delete_all("Node", grace_period=None)
    wait_for(
        lambda: api.list("Node") + api.list("Pod", namespace=namespace),
        until=lambda left: not left,
        timeout=20,
        message="the first run's nodes and pods are gone",
    )


def skew(run: Run, group: str, zones: set[str]) -> int:
    counts = Counter(run.zones[node] for node in run.placed(group))
    return max(counts[z] for z in zones) - min(counts[z] for z in zones)


def counts_and_messages(run: Run) -> list[str]:
    """Replicas bound and FailedScheduling messages that differ from the table."""
    problems = []
    for group in GROUPS:
        outcomes = run.outcomes[group.app]
        if sum(o.bound for o in outcomes) != group.bound:
            described = [o.describe() for o in outcomes]
            problems.append(f"{group.app}: expected {group.bound} bound, got {described}")
        problems.extend(
            f"{group.app}: unexpected message {o.message!r}"
            for o in outcomes
            if not o.bound and o.message != group.message
        )
    return problems


def placement_problems(run: Run) -> list[str]:
    """Placements that break the workload's constraints."""
    problems = []
    web = run.placed("web")
    if len(set(web)) != len(web):
        problems.append(f"web: two replicas on one node (required anti-affinity): {web}")
    if skew(run, "web", {"a", "b", "c"}) > 1:
        problems.append(f"web: zone skew above 1: {web}")
    first = run.outcomes["web"][0]
    if not first.bound or run.zones[first.node] != "b":
        problems.append(f"web: the first replica is not in the cache's zone b: {first.describe()}")
    expected = {"api": {"a": 1, "b": 1}, "db": {"a": 1, "b": 1, "c": 1}}
    for group, per_zone in expected.items():
        got = Counter(run.zones[n] for n in run.placed(group))
        if got != Counter(per_zone):
            problems.append(f"{group}: expected replicas per zone {per_zone}, got {dict(got)}")
    in_c = [n for n in run.placed("batch") if run.zones[n] == "c"]
    if in_c:
        problems.append(f"batch: placed in zone c against the guard's anti-affinity: {in_c}")
    return problems


def violations(run: Run) -> list[str]:
    """How `run` differs from the table (empty: not at all)."""
    return counts_and_messages(run) + placement_problems(run)


def test_same_constraints_as_kube_scheduler(
    api: ApiClient, new_namespace: Callable[..., str], kubesched: StartKubesched
) -> None:
    kube_ns = new_namespace("spread-kube")
    kube = run_workload(api, kube_ns, DEFAULT, "k")
    remove_cluster(api, kube_ns)
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    ours = run_workload(api, new_namespace("spread-ours"), SCHEDULER, "s")

    table_vs_kube = violations(kube)
    assert not table_vs_kube, f"the table disagrees with kube-scheduler: {table_vs_kube}"
    problems = violations(ours)
    for group in GROUPS:
        kube_messages = Counter(o.message for o in kube.outcomes[group.app] if not o.bound)
        our_messages = Counter(o.message for o in ours.outcomes[group.app] if not o.bound)
        if kube_messages != our_messages:
            problems.append(
                f"{group.app}: FailedScheduling differs:\n  kube-scheduler: {dict(kube_messages)}"
                f"\n  kubesched:      {dict(our_messages)}"
            )
    assert not problems, "kubesched differs from kube-scheduler:\n" + "\n".join(problems)
    assert traceback_free(proc.log()), "kubesched logged a traceback"


# ---- namespaceSelector: namespaces picked by their labels ----------------------------------


def anti_affinity_in(team: dict[str, Any]) -> dict[str, Any]:
    """Required anti-affinity to `app=web` pods per host, in the namespaces `team` selects."""
    selected = {**term("web", HOST), "namespaceSelector": team}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [selected]}}


def run_namespace_selector(
    api: ApiClient, new_namespace: Callable[..., str], scheduler: str, prefix: str
) -> tuple[list[str], dict[str, Outcome]]:
    """Nodes 1 and 2; a web pod in a team=a namespace on 1, one in a team=b namespace on 2.
    `picky-a` avoids web pods of team a only (it fits on 2); `picky-ab` avoids both teams'
    (it fits nowhere). Returns the namespaces made and the outcomes."""
    team_a = create_namespace(api, hint=f"{prefix}-team-a", labels={"team": "a"})
    team_b = create_namespace(api, hint=f"{prefix}-team-b", labels={"team": "b"})
    own = new_namespace(f"{prefix}-picky")
    for short in ("1", "2"):
        api.create(make_node().name(f"{prefix}-{short}").obj())
    for namespace, short in ((team_a, "1"), (team_b, "2")):
        web_pod = make_pod().name("web").namespace(namespace).label("app", "web")
        api.create(web_pod.node(f"{prefix}-{short}").obj())
    selectors: dict[str, dict[str, Any]] = {
        "picky-a": {"matchLabels": {"team": "a"}},
        "picky-ab": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["a", "b"]}]},
    }
    outcomes = {}
    for name, selector in selectors.items():
        pod = make_pod().name(name).namespace(own).scheduler(scheduler).label("app", "web")
        api.create(pod.affinity(anti_affinity_in(selector)).obj())
        outcomes[name] = wait_outcome(api, own, name, nodes=2)
    return [team_a, team_b, own], outcomes


def test_namespace_selector_reads_namespace_labels_like_kube_scheduler(
    api: ApiClient, new_namespace: Callable[..., str], kubesched: Any
) -> None:
    made, kube = run_namespace_selector(api, new_namespace, DEFAULT, "k")
    for namespace in made:
        api.delete_all("Pod", namespace=namespace, grace_period=0)
    remove_cluster(api, made[-1])
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    _, ours = run_namespace_selector(api, new_namespace, SCHEDULER, "s")

    assert kube["picky-a"].node == "k-2", kube["picky-a"].describe()
    assert not kube["picky-ab"].bound
    assert kube["picky-ab"].message == f"0/2 nodes are available: 2 {ANTI}."
    assert ours["picky-a"].node == "s-2", ours["picky-a"].describe()
    assert not ours["picky-ab"].bound, ours["picky-ab"].describe()
    assert ours["picky-ab"].message == kube["picky-ab"].message
    assert traceback_free(proc.log()), "kubesched logged a traceback"
