from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubesched.framework import (
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    SERVICES,
    STATEFUL_SETS,
    Code,
    CycleState,
    NodeInfo,
    ResourceSpec,
)
from kubesched.model import Pod
from kubesched.plugins import PodTopologySpread
from kubesched.plugins.helper.args import ArgsError
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin
from kubesched.testing.builders import NodeBuilder, PodBuilder

ZONE = "zone"
HOST = "kubernetes.io/hostname"
SKEW = "node(s) didn't match pod topology spread constraints"
MISSING = "node(s) didn't match pod topology spread constraints (missing required label)"
FOO = {"foo": ""}


def node(name: str, zone: str | None = None, **labels: str) -> NodeBuilder:
    builder = make_node().name(name)
    if zone is not None:
        builder.label(ZONE, zone)
    for key, value in labels.items():
        builder.label(key, value)
    return builder


def pod(*labels: str, name: str = "p", namespace: str = "default") -> PodBuilder:
    builder = make_pod().name(name).namespace(namespace)
    for key in labels:
        builder.label(key, "")
    return builder


def placed(on: str, count: int, *labels: str, namespace: str = "default") -> list[Pod]:
    return [
        pod(*labels, name=f"{on}-{i}", namespace=namespace).node(on).model() for i in range(count)
    ]


Workload = tuple[ResourceSpec, dict[str, Any]]
"""A Service or controller: its resource and JSON."""
_KINDS = {
    "Service": SERVICES,
    "ReplicationController": REPLICATION_CONTROLLERS,
    "ReplicaSet": REPLICA_SETS,
    "StatefulSet": STATEFUL_SETS,
}


@dataclass
class Cluster:
    nodes: list[NodeBuilder]
    pods: list[Pod] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)

    def handle(self) -> FakeHandle:
        return FakeHandle(
            nodes=[n.model() for n in self.nodes], pods=self.pods, objects=self.workloads
        )


def fits(incoming: Pod, cluster: Cluster, args: dict[str, Any] | None = None) -> dict[str, str]:
    """node -> "" when it fits, else the rejection message."""
    handle = cluster.handle()
    plugin = PodTopologySpread(args=args or {}, handle=handle)
    statuses = run_filter_plugin(plugin, incoming, handle.list_node_infos())
    return {name: "" if s.is_success() else s.message for name, s in statuses.items()}


# A zone-a (a1, a2), zone-b (b1), zone-c (c1) cluster.
THREE_ZONES = [node("a1", "a"), node("a2", "a"), node("b1", "b"), node("c1", "c")]


@dataclass(frozen=True)
class FilterCase:
    id: str
    pod: Callable[[], Pod]
    cluster: Callable[[], Cluster]
    fits: set[str]
    messages: dict[str, str] = field(default_factory=dict)


FILTER_CASES = [
    FilterCase(
        "no-pods-every-zone-fits",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(THREE_ZONES),
        {"a1", "a2", "b1", "c1"},
    ),
    FilterCase(
        # counts a=2 b=1 c=0: min 0, a would reach skew 3, b skew 2
        "skew-across-zones",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(
            THREE_ZONES, placed("a1", 1, "foo") + placed("a2", 1, "foo") + placed("b1", 1, "foo")
        ),
        {"c1"},
        {"a1": SKEW, "b1": SKEW},
    ),
    FilterCase(
        "max-skew-2-allows-one-more",
        lambda: pod("foo").spread_constraint(2, ZONE, match_labels=FOO).model(),
        lambda: Cluster(THREE_ZONES, placed("a1", 2, "foo") + placed("b1", 1, "foo")),
        {"b1", "c1"},
    ),
    FilterCase(
        "other-labels-and-namespaces-do-not-count",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(
            THREE_ZONES, placed("a1", 3, "bar") + placed("b1", 3, "foo", namespace="other")
        ),
        {"a1", "a2", "b1", "c1"},
    ),
    FilterCase(
        "pod-not-matching-its-own-selector-does-not-count-itself",
        lambda: pod("bar").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(THREE_ZONES, placed("a1", 1, "foo")),
        {"a1", "a2", "b1", "c1"},
    ),
    FilterCase(
        "node-without-the-topology-key",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster([node("a1", "a"), node("bare")]),
        {"a1"},
        {"bare": MISSING},
    ),
    FilterCase(
        # two domains (a, b) < minDomains 3: the global minimum is 0, so a zone that
        # already has a pod is full with maxSkew 1
        "min-domains-not-reached",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO, minDomains=3).model(),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b")], placed("a1", 1, "foo") + placed("b1", 1, "foo")
        ),
        set(),
        {"a1": SKEW, "b1": SKEW},
    ),
    FilterCase(
        "min-domains-reached",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO, minDomains=2).model(),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b")], placed("a1", 1, "foo") + placed("b1", 1, "foo")
        ),
        {"a1", "b1"},
    ),
    FilterCase(
        "hostname-spreading",
        lambda: pod("foo").spread_constraint(1, HOST, match_labels=FOO).model(),
        lambda: Cluster(
            THREE_ZONES, placed("a1", 1, "foo") + placed("a2", 1, "foo") + placed("b1", 1, "foo")
        ),
        {"c1"},
    ),
    FilterCase(
        "two-constraints-both-must-hold",
        lambda: (
            pod("foo")
            .spread_constraint(1, ZONE, match_labels=FOO)
            .spread_constraint(1, HOST, match_labels=FOO)
            .model()
        ),
        lambda: Cluster(THREE_ZONES, placed("a1", 1, "foo") + placed("b1", 1, "foo")),
        {"c1"},
    ),
    FilterCase(
        # zone c is out of the pod's node affinity: it does not count as the empty domain
        "node-affinity-policy-honor-excludes-domains",
        lambda: (
            pod("foo")
            .spread_constraint(1, ZONE, match_labels=FOO)
            .required_node_affinity(ZONE, "In", ["a", "b"])
            .model()
        ),
        lambda: Cluster(THREE_ZONES, placed("a1", 1, "foo")),
        {"b1", "c1"},
    ),
    FilterCase(
        "node-affinity-policy-ignore-counts-every-domain",
        lambda: (
            pod("foo")
            .spread_constraint(1, ZONE, match_labels=FOO, nodeAffinityPolicy="Ignore")
            .required_node_affinity(ZONE, "In", ["a", "b"])
            .model()
        ),
        lambda: Cluster(THREE_ZONES, placed("a1", 1, "foo") + placed("b1", 1, "foo")),
        {"c1"},
    ),
    FilterCase(
        "node-taints-policy-ignore-counts-tainted-domains",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b"), node("c1", "c").taint("k", "v")],
            placed("a1", 1, "foo") + placed("b1", 1, "foo"),
        ),
        {"c1"},
    ),
    FilterCase(
        "node-taints-policy-honor-skips-untolerated-domains",
        lambda: (
            pod("foo")
            .spread_constraint(1, ZONE, match_labels=FOO, nodeTaintsPolicy="Honor")
            .model()
        ),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b"), node("c1", "c").taint("k", "v")],
            placed("a1", 1, "foo") + placed("b1", 1, "foo"),
        ),
        {"a1", "b1", "c1"},
    ),
    FilterCase(
        "match-label-keys-narrow-the-selector",
        lambda: (
            pod("foo")
            .label("rev", "2")
            .spread_constraint(1, ZONE, match_labels=FOO, matchLabelKeys=["rev"])
            .model()
        ),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b")],
            [pod("foo", name=f"old-{i}").label("rev", "1").node("a1").model() for i in range(3)],
        ),
        {"a1", "b1"},
    ),
    FilterCase(
        "terminating-pods-do-not-count",
        lambda: pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model(),
        lambda: Cluster(
            [node("a1", "a"), node("b1", "b")],
            [_deleting(p) for p in placed("a1", 2, "foo")],
        ),
        {"a1", "b1"},
    ),
    FilterCase(
        "schedule-anyway-never-filters",
        lambda: pod("foo").spread_constraint(1, ZONE, "ScheduleAnyway", match_labels=FOO).model(),
        lambda: Cluster(THREE_ZONES, placed("a1", 5, "foo")),
        {"a1", "a2", "b1", "c1"},
    ),
]


def _deleting(p: Pod) -> Pod:
    p.deleting = True
    return p


@pytest.mark.parametrize("case", FILTER_CASES, ids=[c.id for c in FILTER_CASES])
def test_filter(case: FilterCase) -> None:
    got = fits(case.pod(), case.cluster())
    assert {name for name, message in got.items() if not message} == case.fits
    for name, message in case.messages.items():
        assert got[name] == message


def test_filter_codes() -> None:
    handle = Cluster(
        [node("a1", "a"), node("a2", "a"), node("bare")], placed("a1", 1, "foo")
    ).handle()
    plugin = PodTopologySpread(args={}, handle=handle)
    incoming = pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model()
    statuses = run_filter_plugin(plugin, incoming, handle.list_node_infos())
    assert statuses["bare"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    # one domain only: the minimum is zone a's own count, so it still fits
    assert statuses["a1"].is_success()


def test_pod_without_constraints_skips() -> None:
    handle = Cluster(THREE_ZONES).handle()
    plugin = PodTopologySpread(args={}, handle=handle)
    status = plugin.pre_filter(CycleState(), pod("foo").model(), handle.list_node_infos())
    assert status is not None
    assert status.code is Code.SKIP


def test_add_and_remove_pod_update_the_counts() -> None:
    handle = Cluster(THREE_ZONES, placed("a1", 1, "foo")).handle()
    plugin = PodTopologySpread(args={}, handle=handle)
    incoming = pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model()
    state = CycleState()
    assert plugin.pre_filter(state, incoming, handle.list_node_infos()) is None
    b1 = handle.get_node_info("b1")
    c1 = handle.get_node_info("c1")
    assert b1 is not None
    assert c1 is not None
    assert plugin.filter(state, incoming, b1) is None
    copy = state.clone()
    plugin.add_pod(copy, incoming, pod("foo", name="x").node("b1").model(), b1)
    status = plugin.filter(copy, incoming, b1)
    assert status is not None
    assert status.message == SKEW
    assert plugin.filter(state, incoming, b1) is None  # the original state is untouched
    assert plugin.filter(copy, incoming, c1) is None
    plugin.remove_pod(copy, incoming, pod("foo", name="x").node("b1").model(), b1)
    assert plugin.filter(copy, incoming, b1) is None


def test_add_pod_raising_the_global_minimum_lets_a_fuller_domain_in() -> None:
    """Zones a and b hold one matching pod, c none: b is too full (1 + 1 - 0 > 1) until a
    what-if pod on c raises the minimum to 1; removing it puts the minimum back."""
    pods = placed("a1", 1, "foo") + placed("b1", 1, "foo")
    handle = Cluster(THREE_ZONES, pods).handle()
    plugin = PodTopologySpread(args={}, handle=handle)
    incoming = pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model()
    state = CycleState()
    assert plugin.pre_filter(state, incoming, handle.list_node_infos()) is None
    b1 = handle.get_node_info("b1")
    c1 = handle.get_node_info("c1")
    assert b1 is not None
    assert c1 is not None
    assert plugin.filter(state, incoming, b1) is not None
    copy = state.clone()
    plugin.add_pod(copy, incoming, pod("foo", name="x").node("c1").model(), c1)
    assert plugin.filter(copy, incoming, b1) is None
    assert plugin.filter(state, incoming, b1) is not None  # the original state is untouched
    plugin.remove_pod(copy, incoming, pod("foo", name="x").node("c1").model(), c1)
    assert plugin.filter(copy, incoming, b1) is not None


# -- scoring --------------------------------------------------------------------------------


def scores(
    incoming: Pod,
    cluster: Cluster,
    feasible: set[str] | None = None,
    args: dict[str, Any] | None = None,
) -> dict[str, int]:
    handle = cluster.handle()
    plugin = PodTopologySpread(args=args or {}, handle=handle)
    nodes = [n for n in handle.list_node_infos() if feasible is None or n.name in feasible]
    return run_score_plugin(plugin, incoming, nodes)


def hosts(*names: str) -> list[NodeBuilder]:
    return [node(name) for name in names]


def soft(max_skew: int, key: str, selector: dict[str, str] = FOO) -> Pod:
    return (
        pod("foo", "bar")
        .spread_constraint(max_skew, key, "ScheduleAnyway", match_labels=selector)
        .model()
    )


@pytest.mark.parametrize(
    ("incoming", "cluster", "feasible", "expected"),
    [
        pytest.param(
            soft(1, HOST),
            Cluster(hosts("a", "b")),
            None,
            {"a": 100, "b": 100},
            id="no-pods",
        ),
        pytest.param(
            soft(1, HOST),
            Cluster(
                hosts("a", "b", "c", "d"),
                placed("a", 2, "foo") + placed("b", 1, "foo") + placed("d", 3, "foo"),
            ),
            None,
            {"a": 20, "b": 60, "c": 100, "d": 0},
            id="hostname-2-1-0-3",
        ),
        pytest.param(
            soft(2, HOST),
            Cluster(
                hosts("a", "b", "c", "d"),
                placed("a", 2, "foo") + placed("b", 1, "foo") + placed("d", 3, "foo"),
            ),
            None,
            {"a": 33, "b": 66, "c": 100, "d": 16},
            id="max-skew-2-waters-down",
        ),
        pytest.param(
            soft(1, HOST),
            Cluster(
                hosts("a", "b", "x", "y"),
                placed("a", 4, "foo")
                + placed("b", 2, "foo")
                + placed("x", 1, "foo")
                + placed("y", 3, "foo"),
            ),
            {"a", "b", "x"},
            {"a": 33, "b": 83, "x": 100},
            id="infeasible-node-not-scored",
        ),
        pytest.param(
            soft(1, ZONE),
            Cluster(
                [node("a", "z1"), node("b", "z1"), node("x", "z2"), node("y", "z2")],
                placed("a", 1, "foo")
                + placed("b", 1, "foo")
                + placed("x", 1, "foo")
                + placed("y", 2, "foo"),
            ),
            {"a", "b", "x"},
            # zone counts: z1 = 2, z2 = 3 (y counts although infeasible); raw 3, 3, 4
            {"a": 100, "b": 100, "x": 75},
            id="zone-counts-all-nodes",
        ),
        pytest.param(
            soft(1, ZONE),
            Cluster([node("a", "z1"), node("bare")], placed("a", 2, "foo")),
            None,
            {"a": 100, "bare": 0},
            id="node-without-key-is-ignored",
        ),
    ],
)
def test_score(
    incoming: Pod, cluster: Cluster, feasible: set[str] | None, expected: dict[str, int]
) -> None:
    assert scores(incoming, cluster, feasible) == expected


def test_two_constraints_with_different_selectors() -> None:
    #   zone1: a {foo}, b {foo, bar}     zone2: x {}, y {foo} {bar}
    existing = [
        pod("foo", name="pa").node("a").model(),
        pod("foo", "bar", name="pb").node("b").model(),
        pod("foo", name="py1").node("y").model(),
        pod("bar", name="py2").node("y").model(),
    ]
    cluster = Cluster(
        [node("a", "z1"), node("b", "z1"), node("x", "z2"), node("y", "z2")], existing
    )
    incoming = (
        pod("foo", "bar")
        .spread_constraint(1, ZONE, "ScheduleAnyway", match_labels=FOO)
        .spread_constraint(1, HOST, "ScheduleAnyway", match_labels={"bar": ""})
        .model()
    )
    assert scores(incoming, cluster) == {"a": 60, "b": 20, "x": 100, "y": 60}


def _workload(kind: str, name: str, selector: dict[str, Any]) -> Workload:
    obj = {"metadata": {"namespace": "default", "name": name}, "spec": {"selector": selector}}
    return _KINDS[kind], obj


WEB_RS = _workload("ReplicaSet", "web", {"matchLabels": {"app": "web"}})


def _web(name: str, on: str | None = None, *, owned: bool = True) -> Pod:
    builder = make_pod().name(name).uid(name).label("app", "web")
    builder = builder.owner("ReplicaSet", "web") if owned else builder
    return (builder.node(on) if on else builder).model()


def _spread_cluster(*workloads: Workload) -> Cluster:
    existing = [_web(f"a{i}", "a") for i in range(4)] + [_web(f"b{i}", "b") for i in range(3)]
    existing += [_web(f"c{i}", "c") for i in range(2)] + [_web("d0", "d", owned=False)]
    existing += placed("d", 5, "foo")  # not selected by anything
    return Cluster(hosts("a", "b", "c", "d"), existing, list(workloads))


def test_system_default_constraints_use_the_controllers_selector() -> None:
    """upstream `helper.DefaultSelector`: the ReplicaSet's selector, which also selects the
    orphan d0 carrying its labels."""
    cluster = _spread_cluster(WEB_RS)
    # no zones: hostname spreading alone (system defaults do not need every key)
    assert scores(_web("new"), cluster) == {"a": 44, "b": 66, "c": 77, "d": 100}
    assert scores(pod(name="orphan").model(), cluster) == {}  # nothing selects it
    assert scores(_web("new"), _spread_cluster()) == {}  # its ReplicaSet is not known


def test_system_default_constraints_use_services_selecting_the_pod() -> None:
    service = _workload("Service", "web", {"app": "web"})
    other = _workload("Service", "other", {"app": "db"})
    cluster = _spread_cluster(service, other)
    assert scores(_web("new", owned=False), cluster) == {"a": 44, "b": 66, "c": 77, "d": 100}


def test_default_selector_of_an_owner_with_another_api_version_is_the_services_only() -> None:
    obj = make_pod().name("new").label("app", "web").obj()
    obj["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "extensions/v1beta1",
            "kind": "ReplicaSet",
            "name": "web",
            "uid": "u",
            "controller": True,
        }
    ]
    assert scores(Pod.from_json(obj), _spread_cluster(WEB_RS)) == {}


def test_list_defaulting_uses_the_configured_constraints() -> None:
    args = {
        "defaultingType": "List",
        "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
        ],
    }
    existing = [
        pod(name=f"a{i}").label("app", "db").owner("StatefulSet", "db").node("a1").model()
        for i in range(2)
    ]
    db = _workload("StatefulSet", "db", {"matchLabels": {"app": "db"}})
    cluster = Cluster(THREE_ZONES, existing, [db])
    incoming = pod(name="db-2").label("app", "db").owner("StatefulSet", "db").model()
    assert {n for n, m in fits(incoming, cluster, args).items() if not m} == {"b1", "c1"}
    assert {n for n, m in fits(incoming, cluster).items() if not m} == {"a1", "a2", "b1", "c1"}


@pytest.mark.parametrize(
    "args",
    [
        {"defaultingType": "Sometimes"},
        {
            "defaultingType": "System",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 0, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "Maybe"}
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": ZONE,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {},
                }
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
            ],
        },
        {"unknown": 1},
    ],
)
def test_invalid_args(args: dict[str, Any]) -> None:
    with pytest.raises(ArgsError):
        PodTopologySpread(args=args, handle=FakeHandle())


def test_counts_are_reused_until_a_node_changes() -> None:
    handle = Cluster(THREE_ZONES, placed("a1", 1, "foo")).handle()
    plugin = PodTopologySpread(args={}, handle=handle)
    incoming = pod("foo").spread_constraint(1, ZONE, match_labels=FOO).model()
    nodes: list[NodeInfo] = list(handle.list_node_infos())
    assert {n for n, s in run_filter_plugin(plugin, incoming, nodes).items() if s.is_success()} == {
        "b1",
        "c1",
    }
    nodes[2].add_pod(pod("foo", name="new").node("b1").model())  # b1 changes in place
    assert {n for n, s in run_filter_plugin(plugin, incoming, nodes).items() if s.is_success()} == {
        "c1"
    }
