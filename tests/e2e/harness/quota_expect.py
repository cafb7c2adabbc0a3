"""What the reference model (harness/quota_model.py) allows a pod to do next, and the check
of what a scheduler did against it.

    expected = expect(state, pod)
    expected.check(observed)     # [] or the problems, one line each
    expected.unique_node()       # the node when the rules leave one, else None
    expected.unique_victims()    # the victims when the rules leave one set, else None
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tests.e2e.harness.quota_model import MAX, ClusterState, over, request_of, total
from tests.e2e.harness.quota_scenario import PodSpec

Outcome = frozenset[str] | None
"""A node's victims, or None: the node cannot help (in some order of equal pods)."""
NEVER_TEXT = "not eligible due to preemptionPolicy=Never."
VERDICT_TEXT = {
    "max": "is rejected in PreFilter because ElasticQuota {ns} is more than Max",
    "min": "is rejected in PreFilter because total ElasticQuota used is more than min",
}


@dataclass(frozen=True)
class Observed:
    """What a scheduler did with one pod: bound to `node` ("" when refused), after evicting
    `victims`; `message` is the refused pod's PodScheduled=False message (normalized)."""

    node: str
    victims: frozenset[str] = frozenset()
    message: str = ""
    rounds: tuple[tuple[str, frozenset[str]], ...] = ()
    """The victims by node, in the order they were evicted (their `Preempted` events)."""
    first_failure: str = ""
    """The note of the pod's first FailedScheduling event (normalized), "" without one."""

    @property
    def kind(self) -> str:
        if not self.node:
            return "refused"
        return "preempted" if self.victims else "bound"


@dataclass(frozen=True)
class Expected:
    state: ClusterState
    pod: PodSpec
    verdict: str
    binds: frozenset[str]
    preemptions: frozenset[tuple[str, frozenset[str]]]
    may_refuse: bool

    def after(self, node: str, victims: frozenset[str]) -> frozenset[str]:
        """Where the preemptor may bind: its nominated node, or (when it is retried before
        its nomination is seen) the best node once the victims are gone."""
        return frozenset({node}) | self.state.best_nodes(self.pod, victims)

    def check(self, seen: Observed) -> list[str]:
        if seen.victims:
            return self._check_preemption(seen)
        if seen.node:
            ok = seen.node in self.binds
            return [] if ok else [f"bound to {seen.node}; allowed: {self.allowed()}"]
        if not self.may_refuse:
            return [f"refused ({seen.message!r}); allowed: {self.allowed()}"]
        texts = [VERDICT_TEXT.get(self.verdict, "").format(ns=self.pod.namespace)]
        texts += [NEVER_TEXT] if self.pod.never else []
        return [f"refusal {seen.message!r} lacks {t!r}" for t in texts if t not in seen.message]

    def _check_preemption(self, seen: Observed) -> list[str]:
        nodes = [n for n, v in self.preemptions if v == seen.victims]
        if not nodes:
            return [f"victims {sorted(seen.victims)} not allowed: {self.allowed()}"]
        if seen.node not in self.after(nodes[0], seen.victims):
            return [f"bound to {seen.node} after evicting on {nodes[0]}"]
        return []

    def unique_node(self) -> str | None:
        if self.binds:
            return next(iter(self.binds)) if len(self.binds) == 1 else None
        if len(self.preemptions) != 1 or self.may_refuse:
            return None
        [(node, victims)] = self.preemptions
        return node if self.after(node, victims) == {node} else None

    def unique_victims(self) -> frozenset[str] | None:
        sets = {victims for _, victims in self.preemptions}
        if self.binds:
            return frozenset()
        if self.may_refuse:
            return frozenset() if not sets else None
        return next(iter(sets)) if len(sets) == 1 else None

    def allowed(self) -> str:
        shown = [f"bind {sorted(self.binds)}"] if self.binds else []
        shown += [f"evict {sorted(v)} on {n}" for n, v in sorted(self.preemptions, key=str)]
        shown += ["refuse"] if self.may_refuse else []
        return f"{self.verdict or 'admitted'}: " + "; ".join(shown or ["nothing"])


def expect(state: ClusterState, pod: PodSpec) -> Expected:
    verdict = state.verdict(pod, state.used())
    binds = state.best_nodes(pod) if not verdict else frozenset()
    if binds:
        return Expected(state, pod, verdict, binds, frozenset(), may_refuse=False)
    if pod.never:  # preemptionPolicy Never: not eligible to preempt
        return Expected(state, pod, verdict, frozenset(), frozenset(), may_refuse=True)
    per_node = {n.name: node_outcomes(state, pod, n.name) for n in state.scenario.nodes}
    valid = {
        (node, victims)
        for node, outcomes in per_node.items()
        for victims in outcomes
        if victims is not None and _may_win(state, node, victims, per_node)
    }
    may_refuse = all(None in outcomes for outcomes in per_node.values())
    return Expected(state, pod, verdict, frozenset(), frozenset(valid), may_refuse)


def stale_rounds(state: ClusterState, pod: PodSpec, seen: Observed) -> list[str]:
    """Problems with reading `seen` as several preemptions for one pod, made while the
    quota book still counted the pods the rounds before had evicted (scheduler-plugins'
    lagging book, README of the plugin): each round one the rules allow on that state, the
    pod bound after the last. [] when that explains it."""
    if len(seen.rounds) < 2:
        return ["a single preemption"]
    current = state
    for node, victims in seen.rounds:
        expected = expect(current, pod)
        if (node, victims) not in expected.preemptions:
            return [f"round on {node} {sorted(victims)} not allowed: {expected.allowed()}"]
        current = current.evicted_but_counted(victims)
    fresh = ClusterState(state.scenario, dict(state.placed))
    fresh.apply(pod, "", seen.victims)
    if seen.node not in {seen.rounds[-1][0]} | fresh.best_nodes(pod):
        return [f"bound to {seen.node} after the last round on {seen.rounds[-1][0]}"]
    return []


def _rank(state: ClusterState, victims: frozenset[str]) -> tuple[int, int, int]:
    """pickOneNodeForPreemption's criteria after the PDB one (there are no PDBs): higher wins."""
    priorities = [state.placed[name].pod.priority for name in victims]
    summed = sum(p + 2**31 for p in priorities)
    return (-max(priorities), -summed, -len(priorities))


def _may_win(
    state: ClusterState, node: str, victims: frozenset[str], per_node: dict[str, set[Outcome]]
) -> bool:
    """Whether some order of equal pods on the other nodes leaves this candidate the best
    (or tied with the best: ties are random)."""
    mine = _rank(state, victims)
    return all(
        any(other is None or _rank(state, other) <= mine for other in outcomes)
        for name, outcomes in per_node.items()
        if name != node
    )


def _orders(
    groups: list[list[str]],
    step: Callable[[str, frozenset[str]], Iterable[frozenset[str]]],
    start: frozenset[str] = frozenset(),
) -> set[frozenset[str]]:
    """Walk `groups` in order, the pods of a group in every order: `step(pod, carried)`
    gives the carried sets after that pod (from `start`); return the sets at the end."""
    finals: set[frozenset[str]] = set()
    seen: set[tuple[int, frozenset[str], frozenset[str]]] = set()

    def walk(index: int, left: frozenset[str], carried: frozenset[str]) -> None:
        if (index, left, carried) in seen:
            return
        seen.add((index, left, carried))
        if not left:
            if index + 1 >= len(groups):
                finals.add(carried)
            else:
                walk(index + 1, frozenset(groups[index + 1]), carried)
            return
        for name in left:
            for after in step(name, carried):
                walk(index, left - {name}, after)

    if not groups:
        return {start}
    walk(0, frozenset(groups[0]), start)
    return finals


def _groups(pods: list[PodSpec], *, ascending: bool) -> list[list[str]]:
    priorities = sorted({p.priority for p in pods}, reverse=not ascending)
    return [[p.name for p in pods if p.priority == value] for value in priorities]


def node_outcomes(state: ClusterState, pod: PodSpec, node: str) -> set[Outcome]:
    """Every result of SelectVictimsOnNode on `node`, over the orders of equal pods."""
    pods = state.on_node(node)
    own = pod.namespace in state.mins
    used = state.used()
    over_min = own and over(request_of(pod), used[pod.namespace], state.mins[pod.namespace], 0)
    by_name = {p.name: p for p in pods}

    def collect(name: str, removed: frozenset[str]) -> list[frozenset[str]]:
        return (
            [removed | {name}]
            if _eligible(state, pod, by_name[name], removed, over_min)
            else [removed]
        )

    outcomes: set[Outcome] = set()
    for potential in _orders(_groups(pods, ascending=True), collect):
        outcomes |= _reprieved(state, pod, node, potential, by_name)
    return outcomes


def _eligible(
    state: ClusterState, pod: PodSpec, victim: PodSpec, removed: frozenset[str], over_min: bool
) -> bool:
    if pod.namespace not in state.mins:
        return victim.namespace not in state.mins and victim.priority < pod.priority
    if victim.namespace not in state.mins:
        return False
    if over_min:
        return victim.namespace == pod.namespace and victim.priority < pod.priority
    theirs = state.used(removed)[victim.namespace]
    return victim.namespace != pod.namespace and over(theirs, {}, state.mins[victim.namespace], 0)


def _quota_broken(state: ClusterState, pod: PodSpec, gone: frozenset[str]) -> bool:
    if pod.namespace not in state.mins:
        return False
    used, request = state.used(gone), request_of(pod)
    if over(request, used[pod.namespace], state.maxs[pod.namespace], MAX):
        return True
    return over(total([*used.values(), request]), {}, total(state.mins.values()), 0)


def _reprieved(
    state: ClusterState,
    pod: PodSpec,
    node: str,
    potential: frozenset[str],
    by_name: dict[str, PodSpec],
) -> set[Outcome]:
    if not potential or not state.fits(pod, node, potential):
        return {None}
    if _quota_broken(state, pod, potential):
        return {None}
    results: set[Outcome] = set()

    def give_back(name: str, gone: frozenset[str]) -> list[frozenset[str]]:
        after = gone - {name}
        if not state.fits(pod, node, after):
            after = after | {name}
        if _quota_broken(state, pod, after):
            if name in after:  # removed twice: upstream's dry run errs on this node
                results.add(None)
                return []
            after = after | {name}
        return [after]

    candidates = [by_name[name] for name in potential]
    for gone in _orders(_groups(candidates, ascending=False), give_back, potential):
        results.add(gone or None)
    return results
