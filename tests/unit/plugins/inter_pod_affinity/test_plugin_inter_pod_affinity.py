from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubesched.framework import Code, CycleState
from kubesched.model import Pod
from kubesched.plugins import InterPodAffinity
from kubesched.plugins.helper.args import ArgsError
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin
from kubesched.testing.builders import NodeBuilder, PodBuilder

ZONE = "zone"
HOST = "kubernetes.io/hostname"
AFFINITY = "node(s) didn't match pod affinity rules"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def term(app: str, key: str = ZONE, **extra: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key, **extra}


def required(kind: str, *terms: dict[str, Any]) -> dict[str, Any]:
    return {kind: {REQUIRED: list(terms)}}


def preferred(kind: str, *weighted: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    return {kind: {PREFERRED: [{"weight": w, "podAffinityTerm": t} for w, t in weighted]}}


def pod(app: str = "", *, name: str = "p", namespace: str = "default") -> PodBuilder:
    builder = make_pod().name(name).namespace(namespace)
    return builder.label("app", app) if app else builder


def node(name: str, zone: str | None = None) -> NodeBuilder:
    builder = make_node().name(name)
    return builder.label(ZONE, zone) if zone else builder


NODES = [node("a1", "a"), node("a2", "a"), node("b1", "b"), node("c1", "c")]


@dataclass
class Cluster:
    pods: list[Pod] = field(default_factory=list)
    nodes: list[NodeBuilder] = field(default_factory=lambda: NODES)
    namespaces: dict[str, dict[str, str]] | None = None

    def handle(self) -> FakeHandle:
        """`namespaces` None: every namespace has only its name label."""
        return FakeHandle(
            nodes=[n.model() for n in self.nodes], pods=self.pods, namespaces=self.namespaces
        )


def on(where: str, app: str, *, name: str = "", namespace: str = "default") -> Pod:
    return pod(app, name=name or f"{app}-{where}", namespace=namespace).node(where).model()


def fits(incoming: Pod, cluster: Cluster) -> dict[str, str]:
    handle = cluster.handle()
    plugin = InterPodAffinity(args={}, handle=handle)
    statuses = run_filter_plugin(plugin, incoming, handle.list_node_infos())
    return {name: "" if s.is_success() else s.message for name, s in statuses.items()}


@dataclass(frozen=True)
class FilterCase:
    id: str
    pod: Callable[[], Pod]
    cluster: Callable[[], Cluster]
    fits: set[str]
    message: str = ""
    """The message of every rejected node."""


ALL = {"a1", "a2", "b1", "c1"}
FILTER_CASES = [
    FilterCase(
        "affinity-to-a-zone-with-a-matching-pod",
        lambda: pod("web").affinity(required("podAffinity", term("db"))).model(),
        lambda: Cluster([on("b1", "db")]),
        {"b1"},
        AFFINITY,
    ),
    FilterCase(
        "affinity-on-hostname",
        lambda: pod("web").affinity(required("podAffinity", term("db", HOST))).model(),
        lambda: Cluster([on("a2", "db")]),
        {"a2"},
        AFFINITY,
    ),
    FilterCase(
        "affinity-nothing-matches-and-not-itself",
        lambda: pod("web").affinity(required("podAffinity", term("db"))).model(),
        lambda: Cluster([on("b1", "cache")]),
        set(),
        AFFINITY,
    ),
    FilterCase(
        "first-pod-of-a-group-may-go-anywhere-with-the-key",
        lambda: pod("web").affinity(required("podAffinity", term("web"))).model(),
        lambda: Cluster([on("b1", "cache")], nodes=[*NODES, node("bare")]),
        ALL,
        AFFINITY,  # bare: no zone label
    ),
    FilterCase(
        "second-pod-of-a-group-joins-the-first",
        lambda: pod("web").affinity(required("podAffinity", term("web"))).model(),
        lambda: Cluster([on("c1", "web")]),
        {"c1"},
        AFFINITY,
    ),
    FilterCase(
        "all-terms-must-match-one-pod",
        lambda: pod("web").affinity(required("podAffinity", term("db"), term("db", HOST))).model(),
        lambda: Cluster([on("a1", "db")]),
        {"a1"},
        AFFINITY,
    ),
    FilterCase(
        "anti-affinity-on-hostname",
        lambda: pod("web").affinity(required("podAntiAffinity", term("web", HOST))).model(),
        lambda: Cluster([on("a1", "web"), on("b1", "web")]),
        {"a2", "c1"},
        ANTI,
    ),
    FilterCase(
        "anti-affinity-on-zone",
        lambda: pod("web").affinity(required("podAntiAffinity", term("web"))).model(),
        lambda: Cluster([on("a1", "web")]),
        {"b1", "c1"},
        ANTI,
    ),
    FilterCase(
        "anti-affinity-other-namespace-does-not-count",
        lambda: pod("web").affinity(required("podAntiAffinity", term("web"))).model(),
        lambda: Cluster([on("a1", "web", namespace="other")]),
        ALL,
    ),
    FilterCase(
        "anti-affinity-listed-namespaces",
        lambda: (
            pod("web")
            .affinity(required("podAntiAffinity", term("web", namespaces=["other"])))
            .model()
        ),
        lambda: Cluster([on("a1", "web", namespace="other"), on("b1", "web")]),
        {"b1", "c1"},
        ANTI,
    ),
    FilterCase(
        "anti-affinity-empty-namespace-selector-means-all",
        lambda: (
            pod("web")
            .affinity(required("podAntiAffinity", term("web", namespaceSelector={})))
            .model()
        ),
        lambda: Cluster([on("a1", "web", namespace="other"), on("b1", "web")]),
        {"c1"},
        ANTI,
    ),
    FilterCase(
        "namespace-selector-by-name-label",
        lambda: (
            pod("web")
            .affinity(
                required(
                    "podAntiAffinity",
                    term(
                        "web",
                        namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": "other"}},
                    ),
                )
            )
            .model()
        ),
        lambda: Cluster(
            [on("a1", "web", namespace="other"), on("b1", "web")],
            namespaces={"other": {}, "default": {}},
        ),
        {"b1", "c1"},
        ANTI,
    ),
    FilterCase(
        # upstream turns the incoming pod's selector into the namespaces its lister lists:
        # a pod in a namespace not listed is out of scope, even for a selector that
        # matches no labels
        "namespace-selector-picks-listed-namespaces-only",
        lambda: (
            pod("web")
            .affinity(
                required(
                    "podAntiAffinity",
                    term(
                        "web",
                        namespaceSelector={
                            "matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]
                        },
                    ),
                )
            )
            .model()
        ),
        lambda: Cluster(
            [on("a1", "web", namespace="gone"), on("b1", "web", namespace="third")],
            namespaces={"third": {}, "default": {}},
        ),
        {"a1", "a2", "c1"},
        ANTI,
    ),
    FilterCase(
        "namespace-selector-with-a-namespace-lister",
        lambda: (
            pod("web")
            .affinity(
                required(
                    "podAntiAffinity", term("web", namespaceSelector={"matchLabels": {"team": "x"}})
                )
            )
            .model()
        ),
        lambda: Cluster(
            [on("a1", "web", namespace="other"), on("b1", "web", namespace="third")],
            namespaces={"other": {"team": "x"}, "third": {"team": "y"}},
        ),
        {"b1", "c1"},
        ANTI,
    ),
    FilterCase(
        "existing-pods-anti-affinity-is-symmetric",
        lambda: pod("web").model(),
        lambda: Cluster(
            [
                pod("guard", name="g")
                .node("a1")
                .affinity(required("podAntiAffinity", term("web")))
                .model()
            ]
        ),
        {"b1", "c1"},
        EXISTING,
    ),
    FilterCase(
        "existing-pods-anti-affinity-other-labels",
        lambda: pod("db").model(),
        lambda: Cluster(
            [
                pod("guard", name="g")
                .node("a1")
                .affinity(required("podAntiAffinity", term("web")))
                .model()
            ]
        ),
        ALL,
    ),
    FilterCase(
        "existing-pods-anti-affinity-covers-their-namespace-only",
        lambda: pod("web", namespace="other").model(),
        lambda: Cluster(
            [
                pod("guard", name="g")
                .node("a1")
                .affinity(required("podAntiAffinity", term("web")))
                .model()
            ]
        ),
        ALL,
    ),
    FilterCase(
        "match-label-keys-select-the-same-revision",
        lambda: (
            pod("web")
            .label("rev", "2")
            .affinity(required("podAntiAffinity", term("web", HOST, matchLabelKeys=["rev"])))
            .model()
        ),
        lambda: Cluster(
            [
                pod("web", name="old").label("rev", "1").node("a1").model(),
                pod("web", name="new").label("rev", "2").node("b1").model(),
            ]
        ),
        {"a1", "a2", "c1"},
        ANTI,
    ),
    FilterCase(
        "mismatch-label-keys-select-other-tenants",
        lambda: (
            pod("web")
            .label("tenant", "t1")
            .affinity(required("podAntiAffinity", term("web", mismatchLabelKeys=["tenant"])))
            .model()
        ),
        lambda: Cluster(
            [
                pod("web", name="mine").label("tenant", "t1").node("a1").model(),
                pod("web", name="theirs").label("tenant", "t2").node("b1").model(),
            ]
        ),
        {"a1", "a2", "c1"},
        ANTI,
    ),
]


@pytest.mark.parametrize("case", FILTER_CASES, ids=[c.id for c in FILTER_CASES])
def test_filter(case: FilterCase) -> None:
    got = fits(case.pod(), case.cluster())
    assert {name for name, message in got.items() if not message} == case.fits
    assert {message for message in got.values() if message} <= {case.message}


def test_filter_codes() -> None:
    handle = Cluster(
        [
            on("a1", "db"),
            on("b1", "web"),
            pod("guard", name="g")
            .node("c1")
            .affinity(required("podAntiAffinity", term("web")))
            .model(),
        ]
    ).handle()
    plugin = InterPodAffinity(args={}, handle=handle)
    incoming = pod("web").affinity(
        {**required("podAffinity", term("db", HOST)), **required("podAntiAffinity", term("web"))}
    )
    statuses = run_filter_plugin(plugin, incoming.model(), handle.list_node_infos())
    assert statuses["a1"].is_success()
    assert (statuses["a2"].code, statuses["a2"].message) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        AFFINITY,
    )
    plain = pod("web").affinity(required("podAntiAffinity", term("web"))).model()
    statuses = run_filter_plugin(plugin, plain, handle.list_node_infos())
    assert (statuses["b1"].code, statuses["b1"].message) == (Code.UNSCHEDULABLE, ANTI)
    assert (statuses["c1"].code, statuses["c1"].message) == (Code.UNSCHEDULABLE, EXISTING)


def test_pod_without_terms_skips_unless_existing_pods_object() -> None:
    handle = Cluster([on("a1", "web")]).handle()
    plugin = InterPodAffinity(args={}, handle=handle)
    status = plugin.pre_filter(CycleState(), pod("web").model(), handle.list_node_infos())
    assert status is not None
    assert status.code is Code.SKIP


def test_invalid_selector_is_unresolvable() -> None:
    bad = {
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Near"}]},
        "topologyKey": ZONE,
    }
    handle = Cluster().handle()
    plugin = InterPodAffinity(args={}, handle=handle)
    status = plugin.pre_filter(
        CycleState(),
        pod("web").affinity(required("podAffinity", bad)).model(),
        handle.list_node_infos(),
    )
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message.startswith("parsing pod: ")


def test_add_and_remove_pod_update_the_counts() -> None:
    handle = Cluster([on("a1", "web")]).handle()
    plugin = InterPodAffinity(args={}, handle=handle)
    incoming = pod("web").affinity(required("podAntiAffinity", term("web"))).model()
    state = CycleState()
    assert plugin.pre_filter(state, incoming, handle.list_node_infos()) is None
    b1 = handle.get_node_info("b1")
    assert b1 is not None
    copy = state.clone()
    other = on("b1", "web", name="other")
    plugin.add_pod(copy, incoming, other, b1)
    status = plugin.filter(copy, incoming, b1)
    assert status is not None
    assert status.message == ANTI
    assert plugin.filter(state, incoming, b1) is None
    plugin.remove_pod(copy, incoming, other, b1)
    assert plugin.filter(copy, incoming, b1) is None


# -- scoring --------------------------------------------------------------------------------


def scores(incoming: Pod, cluster: Cluster, args: dict[str, Any] | None = None) -> dict[str, int]:
    handle = cluster.handle()
    plugin = InterPodAffinity(args=args or {}, handle=handle)
    return run_score_plugin(plugin, incoming, handle.list_node_infos())


DBS = [on("a1", "db", name="db1"), on("a2", "db", name="db2"), on("b1", "db", name="db3")]


@pytest.mark.parametrize(
    ("incoming", "cluster", "expected"),
    [
        pytest.param(
            # zone a: 2 db pods x 5, zone b: 1 x 5
            pod("web").affinity(preferred("podAffinity", (5, term("db")))).model(),
            Cluster(DBS),
            {"a1": 100, "a2": 100, "b1": 50, "c1": 0},
            id="preferred-affinity",
        ),
        pytest.param(
            pod("web").affinity(preferred("podAntiAffinity", (5, term("db")))).model(),
            Cluster(DBS),
            {"a1": 0, "a2": 0, "b1": 50, "c1": 100},
            id="preferred-anti-affinity",
        ),
        pytest.param(
            # a: 2*2 - 2*10 = -16, b: 2 - 10 = -8, a1 (host): +3 for web on a1
            pod("web")
            .affinity(
                {
                    **preferred("podAffinity", (2, term("db")), (3, term("web", HOST))),
                    **preferred("podAntiAffinity", (10, term("db"))),
                }
            )
            .model(),
            Cluster([*DBS, on("a1", "web")]),
            {"a1": 18, "a2": 0, "b1": 50, "c1": 100},
            id="preferred-weights-add-up",
        ),
        pytest.param(
            # an existing pod's required affinity selects the incoming pod: its zone gets
            # hardPodAffinityWeight (1)
            pod("web").model(),
            Cluster(
                [
                    pod("db", name="d")
                    .node("b1")
                    .affinity(required("podAffinity", term("web")))
                    .model()
                ]
            ),
            {"a1": 0, "a2": 0, "b1": 100, "c1": 0},
            id="symmetric-required-affinity",
        ),
        pytest.param(
            pod("web").model(),
            Cluster(
                [
                    pod("db", name="d")
                    .node("b1")
                    .affinity(preferred("podAntiAffinity", (7, term("web"))))
                    .model()
                ]
            ),
            {"a1": 100, "a2": 100, "b1": 0, "c1": 100},
            id="symmetric-preferred-anti-affinity",
        ),
        pytest.param(pod("web").model(), Cluster(DBS), {}, id="nothing-to-score"),
    ],
)
def test_score(incoming: Pod, cluster: Cluster, expected: dict[str, int]) -> None:
    assert scores(incoming, cluster) == expected


def test_hard_pod_affinity_weight() -> None:
    existing = [
        pod("db", name="d1").node("b1").affinity(required("podAffinity", term("web"))).model(),
        pod("db", name="d2")
        .node("c1")
        .affinity(preferred("podAffinity", (3, term("web"))))
        .model(),
    ]
    incoming = pod("web").model()
    # weight 1: b = 1, c = 3; weight 6: b = 6, c = 3
    assert scores(incoming, Cluster(existing)) == {"a1": 0, "a2": 0, "b1": 33, "c1": 100}
    assert scores(incoming, Cluster(existing), {"hardPodAffinityWeight": 6}) == {
        "a1": 0,
        "a2": 0,
        "b1": 100,
        "c1": 50,
    }
    assert scores(incoming, Cluster(existing[:1]), {"hardPodAffinityWeight": 0}) == {}


def test_ignore_preferred_terms_of_existing_pods() -> None:
    existing = [
        pod("db", name="d").node("b1").affinity(preferred("podAffinity", (3, term("web")))).model()
    ]
    args = {"ignorePreferredTermsOfExistingPods": True}
    assert scores(pod("web").model(), Cluster(existing), args) == {}
    with_terms = pod("web").affinity(preferred("podAffinity", (1, term("db", HOST)))).model()
    assert scores(with_terms, Cluster(existing), args) == {"a1": 0, "a2": 0, "b1": 100, "c1": 0}


@pytest.mark.parametrize(
    "args",
    [
        {"hardPodAffinityWeight": 101},
        {"hardPodAffinityWeight": -1},
        {"hardPodAffinityWeight": "1"},
        {"ignorePreferredTermsOfExistingPods": "yes"},
        {"other": True},
    ],
)
def test_invalid_args(args: dict[str, Any]) -> None:
    with pytest.raises(ArgsError):
        InterPodAffinity(args=args, handle=FakeHandle())
