"""OpportunisticBatching: upstream's batch_test.go tables (TestBatchBasic, TestBatchRescore,
TestBatchRescoreChain) on kubesched's batch, the reasons it counts, its 500 ms window on a
fake clock, and the cycle that takes a hint instead of filtering and scoring every node."""

from __future__ import annotations

from collections.abc import Hashable, MutableSequence, Sequence
from dataclasses import dataclass, field

import pytest

from kubesched.framework import Code, CycleState, NodeInfo, StateKey, Status
from kubesched.model import Pod
from kubesched.runtime import Framework, schedule_pod
from kubesched.runtime.batch import (
    MAX_BATCH_AGE,
    OpportunisticBatch,
    ScoredNode,
    SortedScoredNodes,
)
from kubesched.runtime.framework import PluginLists
from kubesched.testing import FakeHandle, make_node, make_pod

BLOCKING, NON_BLOCKING = "b", "a"


class BatchTestPlugin:
    """Upstream's batchTest Filter: a node holds one pod whose UID starts with "b" at most."""

    name = "batchTest"

    def sign_pod(self, _pod: Pod) -> tuple[Hashable, ...]:
        return ()

    def filter(self, _state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        for uid in node_info.pods:
            if pod.uid[0] == BLOCKING and uid[0] == BLOCKING:
                return Status(Code.UNSCHEDULABLE, "unsched")
        return None


class ConfigurableFilter:
    name = "configurableFilter"

    def __init__(self, *, error: bool = False) -> None:
        self.error = error

    def sign_pod(self, _pod: Pod) -> tuple[Hashable, ...]:
        return ()

    def filter(self, _state: CycleState, _pod: Pod, _node: NodeInfo) -> Status | None:
        return Status(Code.ERROR, "injected filter error") if self.error else None


_SEEN: StateKey[frozenset[str]] = StateKey("configurableScore/preScoreSeenNodes")


@dataclass
class ConfigurableScore:
    """Scores every node `score`; NormalizeScore checks it sees as many nodes as PreScore."""

    value: int = 0
    pre_score_error: bool = False
    score_error: bool = False
    normalize_error: bool = False
    name: str = "configurableScore"

    def sign_pod(self, _pod: Pod) -> tuple[Hashable, ...]:
        return ()

    def pre_score(self, state: CycleState, _pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self.pre_score_error:
            return Status(Code.ERROR, "injected prescore error")
        state.write(_SEEN, frozenset(node.name for node in nodes))
        return None

    def score(self, _state: CycleState, _pod: Pod, _node: NodeInfo) -> int:
        if self.score_error:
            raise RuntimeError("injected score error")
        return self.value

    def normalize_score(
        self, state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        if self.normalize_error:
            return Status(Code.ERROR, "injected normalize error")
        seen = state.get(_SEEN)
        if seen is None or len(seen) != len(scores):
            return Status(Code.ERROR, "NormalizeScore: not the nodes PreScore saw")
        return None


@dataclass
class RecordedMetrics:
    attempts: list[str] = field(default_factory=list)
    flushes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    stores: int = 0
    rescores: int = 0

    def attempt(self, result: str) -> None:
        self.attempts.append(result)

    def flushed(self, reason: str) -> None:
        self.flushes.append(reason)

    def hint_duration(self, hinted: str, seconds: float) -> None:
        assert seconds >= 0
        self.hints.append(hinted)

    def store_duration(self, seconds: float) -> None:
        assert seconds >= 0
        self.stores += 1

    def rescored(self, seconds: float) -> None:
        assert seconds >= 0
        self.rescores += 1


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def new_framework(
    *, score: ConfigurableScore | None = None, filter_: ConfigurableFilter | None = None
) -> Framework:
    filters: list[object] = [BatchTestPlugin()]
    if filter_ is not None:
        filters.append(filter_)
    scores = [score] if score is not None else []
    return Framework(
        profile_name="batch",
        plugins=PluginLists(filter=filters, pre_score=scores, score=scores),  # type: ignore[arg-type]
        score_weights={pl.name: 1 for pl in scores},
        percentage_of_nodes_to_score=None,
        handle=FakeHandle(),
    )


def new_batch(
    fw: Framework, *, generic_workload: bool = False, clock: FakeClock | None = None
) -> tuple[OpportunisticBatch, RecordedMetrics]:
    metrics = RecordedMetrics()
    batch = OpportunisticBatch(
        fw, generic_workload=generic_workload, metrics=metrics, clock=clock or FakeClock()
    )
    return batch, metrics


def nodes(*names: str) -> SortedScoredNodes:
    """Upstream's testSortedScoredNodes: popped in the order given."""
    count = len(names)
    return SortedScoredNodes(ScoredNode(name, count - i, {}) for i, name in enumerate(names))


def pod(uid: str, *, nominated: str = "") -> Pod:
    builder = make_pod().name(f"pod-{uid}").uid(uid)
    if nominated:
        builder = builder.nominated_node(nominated)
    return builder.model()


def node_info(name: str, *pods: Pod) -> NodeInfo:
    info = NodeInfo(node=make_node().name(name).model())
    for placed in pods:
        info.add_pod(placed)
    return info


def remaining(batch: OpportunisticBatch) -> list[str] | None:
    state = batch._state  # upstream's test reads batch.state too
    if state is None or len(state.sorted_nodes) == 0:
        return None
    return state.sorted_nodes.names()


def signature_kept(batch: OpportunisticBatch) -> Hashable:
    state = batch._state
    assert state is not None
    return state.signature


@dataclass(frozen=True)
class BasicCase:
    name: str
    first_pod: str
    first_sig: str
    first_scheduled: bool
    first_chosen: str
    first_others: tuple[str, ...] | None
    second_pod: str
    second_sig: str
    second_chosen: str
    expected_hint: str
    expected_remaining: list[str] | None = None
    same_cycle: bool = False
    skip_pod: bool = False
    second_nominated: str = ""
    generic_workload: bool = False
    flushes: tuple[str, ...] = ()
    """Our addition: the reasons counted in `scheduler_batch_cache_flushed_total`."""
    attempts: tuple[str, ...] = ()
    """Our addition: the results counted in `scheduler_batch_attempts_total`."""


BASIC = [
    BasicCase(
        "a second pod with the same signature gets a hint",
        "b-1", "sig", True, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="n1",
        attempts=("no_hint", "hint_used"),
    ),
    BasicCase(
        "a second pod with a different signature doesn't get a hint",
        "a-1", "sig", True, "n3", ("n1",),
        "a-2", "sig2", "n1", expected_hint="",
        flushes=("pod_incompatible", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "pod doesn't get hint if previous pod didn't scheduled",
        "b-1", "sig", False, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="",
        flushes=("empty_list",),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "empty list",
        "b-1", "sig", True, "n3", (),
        "b-2", "sig", "n4", expected_hint="",
        flushes=("empty_list", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "nil list",
        "b-1", "sig", True, "n3", None,
        "b-2", "sig", "n4", expected_hint="",
        flushes=("empty_list", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "pod doesn't get hint because the previous pod is to a different profile",
        "b-1", "sig", True, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="", skip_pod=True,
        flushes=("pod_skipped", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "pod doesn't use batch from preceding pod when they are from the same cycle state,"
        " but GenericWorkload is disabled",
        "b-1", "sig", True, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="", same_cycle=True,
        flushes=("pod_skipped", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
    BasicCase(
        "pod uses batch from preceding pod when they are from the same cycle state and"
        " GenericWorkload is enabled",
        "b-1", "sig", True, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="n1", same_cycle=True, generic_workload=True,
        attempts=("no_hint", "hint_used"),
    ),
    BasicCase(
        "pod uses batch from preceding pod and leaves remaining batch to next pod",
        "b-1", "sig", True, "n3", ("n1", "n2"),
        "b-2", "sig", "n1", expected_hint="n1", expected_remaining=["n2"],
        attempts=("no_hint", "hint_used"),
    ),
    BasicCase(
        "a second pod with a nominated node does not get a hint",
        "b-1", "sig", True, "n3", ("n1",),
        "b-2", "sig", "n1", expected_hint="", second_nominated="n1",
        flushes=("pod_nominated", "empty_list"),
        attempts=("no_hint", "no_hint"),
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", BASIC, ids=lambda case: case.name)
def test_batch_basic(case: BasicCase) -> None:
    fw = new_framework()
    batch, metrics = new_batch(fw, generic_workload=case.generic_workload)
    state = CycleState()
    first = pod(case.first_pod)
    assert batch.node_hint(state, first, case.first_sig, 1) == ""
    if case.first_scheduled:
        others = None if case.first_others is None else nodes(*case.first_others)
        batch.store_results(case.first_sig, "", case.first_chosen, others, 1)
    cycle = 3 if case.skip_pod else 1 if case.same_cycle else 2
    second = pod(case.second_pod, nominated=case.second_nominated)
    fw.handle = FakeHandle(nodes=[node_info(case.first_chosen, first)])

    hint = batch.node_hint(state, second, case.second_sig, cycle)

    assert hint == case.expected_hint
    batch.store_results(case.second_sig, hint, case.second_chosen, None, cycle)
    assert remaining(batch) == case.expected_remaining
    if case.expected_remaining is not None:
        assert signature_kept(batch) == case.second_sig
    assert tuple(metrics.flushes) == case.flushes
    assert tuple(metrics.attempts) == case.attempts
    assert metrics.hints == ["no_hint", "hint" if hint else "no_hint"]
    assert metrics.stores == (2 if case.first_scheduled else 1)
    assert batch.batched_pods == (1 if hint else 0)


N1_CACHED_SCORE = 50


@dataclass(frozen=True)
class RescoreCase:
    name: str
    score: int = 0
    filter_error: bool = False
    pre_score_error: bool = False
    score_error: bool = False
    normalize_error: bool = False
    chosen_node_missing: bool = False
    cached_node_missing: bool = False
    expected_hint: str = ""
    expected_remaining: tuple[str, ...] = ("n1",)
    flush: str | None = None
    """Our addition: the reason counted (None: none)."""
    rescored: bool = True


RESCORE = [
    RescoreCase("rescored node wins", score=100, expected_hint="n2", expected_remaining=("n1",)),
    RescoreCase("rescored node loses", score=10, expected_hint="n1", expected_remaining=("n2",)),
    RescoreCase(
        "filter error gives no hint", score=100, filter_error=True, flush="filter_error",
        rescored=False,
    ),
    RescoreCase("prescore error gives no hint", pre_score_error=True, flush="prescore_error"),
    RescoreCase("score error gives no hint", score_error=True, flush="rescore_error"),
    RescoreCase("normalize error gives no hint", normalize_error=True, flush="normalize_error"),
    RescoreCase(
        "chosen node missing from lister gives no hint", chosen_node_missing=True,
        flush="node_missing", rescored=False,
    ),
    RescoreCase(
        "cached node missing from lister gives no hint", score=100, cached_node_missing=True,
        flush="node_missing",
    ),
]  # fmt: skip


def cached_n1() -> SortedScoredNodes:
    return SortedScoredNodes([ScoredNode("n1", 0, {"configurableScore": N1_CACHED_SCORE})])


@pytest.mark.parametrize("case", RESCORE, ids=lambda case: case.name)
def test_batch_rescore(case: RescoreCase) -> None:
    score = ConfigurableScore(
        value=case.score,
        pre_score_error=case.pre_score_error,
        score_error=case.score_error,
        normalize_error=case.normalize_error,
    )
    fw = new_framework(score=score, filter_=ConfigurableFilter(error=case.filter_error))
    batch, metrics = new_batch(fw)
    first = pod("a-1")
    batch.node_hint(CycleState(), first, "sig", 1)
    batch.store_results("sig", "", "n2", cached_n1(), 1)
    infos: list[NodeInfo] = []
    if not case.chosen_node_missing:
        infos = [node_info("n2", first)]
        if not case.cached_node_missing:
            infos.insert(0, node_info("n1"))
    fw.handle = FakeHandle(nodes=infos)

    hint = batch.node_hint(CycleState(), pod("a-2"), "sig", 2)

    assert hint == case.expected_hint
    assert remaining(batch) == list(case.expected_remaining)
    assert metrics.flushes == ([case.flush] if case.flush else [])
    assert metrics.rescores == (1 if case.rescored else 0)


def test_batch_rescore_chain() -> None:
    """Three pods: the rescore runs in each cycle and the kept list stays right."""
    fw = new_framework(score=ConfigurableScore(value=100))  # n2 always beats n1's 50
    batch, metrics = new_batch(fw)
    first = pod("a-1")
    batch.node_hint(CycleState(), first, "sig", 1)
    batch.store_results("sig", "", "n2", cached_n1(), 1)
    fw.handle = FakeHandle(nodes=[node_info("n1"), node_info("n2", first)])

    hint2 = batch.node_hint(CycleState(), pod("a-2"), "sig", 2)
    assert hint2 == "n2"
    batch.store_results("sig", hint2, "n2", None, 2)

    hint3 = batch.node_hint(CycleState(), pod("a-3"), "sig", 3)
    assert hint3 == "n2"
    assert remaining(batch) == ["n1"]  # for a potential fourth pod
    assert metrics.rescores == 2
    assert metrics.attempts == ["no_hint", "hint_used"]


@pytest.mark.parametrize(("elapsed", "hint"), [(0.0, "n1"), (MAX_BATCH_AGE, "n1"), (0.6, "")])
def test_the_kept_list_expires_after_500ms(elapsed: float, hint: str) -> None:
    fw = new_framework()
    clock = FakeClock()
    batch, metrics = new_batch(fw, clock=clock)
    first = pod("b-1")
    batch.store_results("sig", "", "n3", nodes("n1"), 1)
    fw.handle = FakeHandle(nodes=[node_info("n3", first)])
    clock.now += elapsed
    assert batch.node_hint(CycleState(), pod("b-2"), "sig", 2) == hint
    assert metrics.flushes == ([] if hint else ["expired"])


def test_unsigned_pods_store_nothing_and_count_why() -> None:
    batch, metrics = new_batch(new_framework())
    batch.store_results(None, "", "n1", nodes("n2", "n3"), 1)
    assert remaining(batch) is None
    assert batch.node_hint(CycleState(), pod("a-1"), None, 2) == ""
    assert metrics.flushes == ["pod_not_batchable"]


def test_the_sorted_list_is_best_first_and_built_only_when_asked() -> None:
    built: list[int] = []

    def build() -> list[ScoredNode]:
        built.append(1)
        return [ScoredNode("low", 1, {}), ScoredNode("high", 9, {}), ScoredNode("mid", 5, {})]

    lazy = SortedScoredNodes.lazy(3, build)
    assert len(lazy) == 3
    assert not built
    assert lazy.pop().name == "high"
    assert lazy.names() == ["mid", "low"]
    assert built == [1]


# --- the cycle: schedule_pod with a batch ---------------------------------------------------


class SpreadScore:
    """Prefers empty nodes (100 - 10 per pod); signs every pod the same."""

    name = "Spread"

    def sign_pod(self, _pod: Pod) -> tuple[Hashable, ...]:
        return ()

    def score(self, _state: CycleState, _pod: Pod, node: NodeInfo) -> int:
        return max(0, 100 - 10 * len(node.pods))


class CountingFilter(BatchTestPlugin):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls.append(node_info.name)
        return super().filter(state, pod, node_info)


def cycle_framework(
    names: Sequence[str], *, batching: bool = True
) -> tuple[Framework, CountingFilter, FakeHandle]:
    filter_ = CountingFilter()
    handle = FakeHandle(nodes=[make_node().name(n).model() for n in names])
    fw = Framework(
        profile_name="batch",
        plugins=PluginLists(filter=[filter_], score=[SpreadScore()]),
        score_weights={"Spread": 1},
        percentage_of_nodes_to_score=None,
        handle=handle,
    )
    if batching:
        fw.batch = OpportunisticBatch(fw)
    return fw, filter_, handle


def place(fw: Framework, handle: FakeHandle, placed: Pod, cycle: int) -> str:
    host = schedule_pod(fw, CycleState(), placed, handle.list_node_infos(), cycle=cycle)
    bound = make_pod().name(placed.name).uid(placed.uid).node(host.suggested_host).model()
    handle.add_pod(bound)
    return host.suggested_host


def test_a_pod_like_the_last_one_is_filtered_on_its_hint_only() -> None:
    fw, filter_, handle = cycle_framework(["n1", "n2", "n3"])
    first = place(fw, handle, pod("b-1"), 1)
    assert len(filter_.calls) == 3
    filter_.calls.clear()
    second = place(fw, handle, pod("b-2"), 2)
    # The previous pod's node again (rejected: it holds a "b" pod), then the hint.
    assert filter_.calls == [first, second]
    assert second != first
    assert fw.batch is not None
    assert fw.batch.batched_pods == 1


def test_the_previous_node_that_still_fits_competes_again() -> None:
    fw, _, handle = cycle_framework(["n1", "n2"])
    first = place(fw, handle, pod("a-1"), 1)
    # n1 and n2 scored 100 before; the first node now scores 90 and the other one wins.
    second = place(fw, handle, pod("a-2"), 2)
    assert second != first
    third = place(fw, handle, pod("a-3"), 3)
    assert {first, second} == {"n1", "n2"}
    assert third in {"n1", "n2"}


def test_without_the_gate_every_cycle_filters_every_node() -> None:
    fw, filter_, handle = cycle_framework(["n1", "n2", "n3"], batching=False)
    assert fw.batch is None
    place(fw, handle, pod("b-1"), 1)
    filter_.calls.clear()
    for info in handle.list_node_infos():
        info.memo.clear()  # what the memo would reuse is not the point here
    place(fw, handle, pod("b-2"), 2)
    assert sorted(filter_.calls) == ["n1", "n2", "n3"]


def test_a_cycle_without_its_number_leaves_the_batch_alone() -> None:
    """explain and tests run `schedule_pod` without `cycle=`: a full cycle, nothing kept."""
    fw, _, handle = cycle_framework(["n1", "n2", "n3"])
    schedule_pod(fw, CycleState(), pod("b-1"), handle.list_node_infos())
    assert fw.batch is not None
    assert fw.batch._state is None


class Unsigned:
    """A Filter without `sign_pod`: the profile signs no pod (upstream's
    computeBatchablePlugins)."""

    name = "Unsigned"

    def filter(self, _state: CycleState, _pod: Pod, _node: NodeInfo) -> Status | None:
        return None


class SignsSome:
    """Cannot sign pods labelled `nosign` (upstream: SignPod returns a non-success status)."""

    name = "SignsSome"

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...] | None:
        return None if "nosign" in pod.labels else (pod.labels.get("team"),)

    def filter(self, _state: CycleState, _pod: Pod, _node: NodeInfo) -> Status | None:
        return None


def signing_framework(*filters: object) -> Framework:
    return Framework(
        profile_name="p",
        plugins=PluginLists(filter=list(filters)),  # type: ignore[arg-type]
        score_weights={},
        percentage_of_nodes_to_score=None,
        handle=FakeHandle(),
    )


def test_a_plugin_without_sign_pod_turns_signatures_off_for_the_profile() -> None:
    fw = signing_framework(SignsSome(), Unsigned())
    assert fw.pod_signature(CycleState(), make_pod().model()) is None


def test_a_plugin_that_cannot_sign_a_pod_leaves_it_unsigned() -> None:
    fw = signing_framework(SignsSome(), BatchTestPlugin())
    signed = fw.pod_signature(CycleState(), make_pod().label("team", "x").model())
    assert signed is not None
    assert signed == fw.pod_signature(CycleState(), make_pod().label("team", "x").model())
    assert signed != fw.pod_signature(CycleState(), make_pod().label("team", "y").model())
    assert fw.pod_signature(CycleState(), make_pod().label("nosign", "").model()) is None
    other = make_pod().label("team", "x").scheduler("other").model()
    assert fw.pod_signature(CycleState(), other) != signed  # the scheduler name is signed too
