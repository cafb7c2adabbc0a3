"""The memo of raw scores and Filter results: plugins that sign the pod have their results
reused per node, beside a plugin that does not sign (it runs on every node every time); the
key is the running plugins' signatures together."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.model import Pod
from kubesched.runtime import FitError, Framework, schedule_pod
from kubesched.runtime.framework import PluginLists
from kubesched.runtime.kept_scores import NodeMemoScores
from kubesched.runtime.memo import sign
from kubesched.runtime.scoring import run_score
from kubesched.testing import FakeHandle, make_node, make_pod


class Counting:
    def __init__(self, name: str, *, memoizable: bool, offset: int) -> None:
        self.name = name
        self.memoizable = memoizable
        self.offset = offset
        self.calls = 0

    def score(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        self.calls += 1
        return self.offset + len(node_info.name)


def test_signed_plugins_are_reused_beside_one_that_is_not() -> None:
    nodes = [NodeInfo(make_node().name(name).model()) for name in ("a", "bb", "ccc")]
    cheap = Counting("Cheap", memoizable=True, offset=1)
    fresh = Counting("Fresh", memoizable=False, offset=10)
    pod = make_pod().model()
    weights = {"Cheap": 2, "Fresh": 1}
    results = [
        run_score(
            state=CycleState(),
            pod=pod,
            nodes=nodes,
            plugins=[cheap, fresh],
            weights=weights,
            kept=(frozenset({"Cheap"}), NodeMemoScores(7, nodes)),
        )
        for _ in range(3)
    ]
    assert cheap.calls == 3  # once per node
    assert fresh.calls == 9  # every node, every cycle
    for result in results:
        assert result.totals == [2 * 2 + 11, 2 * 3 + 12, 2 * 4 + 13]
        assert [ps.plugin for ps in result.plugins] == ["Cheap", "Fresh"]


class SignedFilter:
    """Filters by a label of the pod, and signs with that label (an out-of-tree plugin that
    reads pod labels can join the memo)."""

    name = "LabelFilter"

    def __init__(self) -> None:
        self.calls = 0

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...] | None:
        team = pod.labels.get("team")
        return None if team == "unsignable" else (team,)

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls += 1
        if pod.labels.get("team") == node_info.node.labels.get("team"):
            return None
        return Status(Code.UNSCHEDULABLE, "other team")


def framework_on(handle: FakeHandle, plugin: SignedFilter) -> Framework:
    return Framework(
        profile_name="p",
        plugins=PluginLists(filter=[plugin]),
        score_weights={},
        percentage_of_nodes_to_score=None,
        handle=handle,
    )


def framework(plugin: SignedFilter) -> tuple[Framework, list[NodeInfo]]:
    names = [("a", "red"), ("b", "blue")]
    handle = FakeHandle(nodes=[make_node().name(n).label("team", t).model() for n, t in names])
    return framework_on(handle, plugin), list(handle.list_node_infos())


def place(fw: Framework, nodes: list[NodeInfo], team: str) -> str:
    pod = make_pod().label("team", team).model()
    return schedule_pod(fw, CycleState(), pod, nodes).suggested_host


def test_filter_results_are_reused_per_signature_and_not_without_one() -> None:
    plugin = SignedFilter()
    fw, nodes = framework(plugin)
    assert [place(fw, nodes, "red") for _ in range(3)] == ["a", "a", "a"]
    assert plugin.calls == 2  # both nodes once, then from the memo
    assert place(fw, nodes, "blue") == "b"  # another signature: computed again
    assert plugin.calls in {3, 4}
    before = plugin.calls
    for _ in range(2):
        with pytest.raises(FitError):
            place(fw, nodes, "unsignable")
    assert plugin.calls == before + 4  # no signature, no memo: both nodes every cycle


def test_a_plugin_that_raises_while_signing_does_not_sign() -> None:
    class Broken(SignedFilter):
        def sign_pod(self, pod: Pod) -> tuple[Hashable, ...] | None:
            raise RuntimeError("no")

    assert sign(Broken(), make_pod().model()) is None
    legacy = type("Legacy", (), {"memoizable": True, "name": "Legacy"})()
    assert sign(legacy, make_pod().model()) is not None


class EmptyNodeFilter(SignedFilter):
    """Lets a pod only onto a node without pods (the nominated ones counted)."""

    name = "EmptyNode"

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls += 1
        return Status(Code.UNSCHEDULABLE, "taken") if node_info.pods else None


def test_filtering_with_nominated_pods_is_memoized_until_the_nominations_change() -> None:
    plugin = EmptyNodeFilter()
    handle = FakeHandle(nodes=[make_node().name(n).model() for n in ("a", "b")])
    fw = framework_on(handle, plugin)
    nodes = list(handle.list_node_infos())
    handle.nominate(make_pod().name("preemptor").priority(10).model(), "a")
    assert [place(fw, nodes, "red") for _ in range(3)] == ["b", "b", "b"]
    assert plugin.calls == 2  # a with its nominated pod, b plainly; then from the memos
    handle.nominate(make_pod().name("second").priority(10).model(), "a")
    assert place(fw, nodes, "red") == "b"
    assert plugin.calls == 3  # a's nominations changed: a filtered again, b from its memo
    before = plugin.calls
    assert [place(fw, nodes, "unsignable") for _ in range(2)] == ["b", "b"]
    assert plugin.calls == before + 4  # no signature: both nodes every cycle
