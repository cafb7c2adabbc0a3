"""The comparison of two runs of one quota scenario: scheduler-plugins' and kubesched's.

    tally = compare(scenario, expected_side, got_side)
    tally.mismatches   # one line each: "<pod> <what differed>"
    tally.summary()    # counts of what was compared

Each side is checked against the reference model (harness/quota_model.py) on its own
state, step by step. While both runs have placed every pod identically so far ("in
lockstep"), they are also compared directly: the outcome (bound, preempted, refused), the
refusal text, the node where the rules leave one node, the victims where they leave one
set. Once the runs part (through a choice the rules leave open: equal scores, equal
victims), each side is held to the model alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tests.e2e.harness.quota_expect import Expected, Observed, expect, stale_rounds
from tests.e2e.harness.quota_model import ClusterState
from tests.e2e.harness.quota_scenario import PodSpec, Scenario

SIDES = ("scheduler-plugins", "kubesched")


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    mismatches: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    """One line per pod: the pod, what each side did (shown with a failure)."""

    def summary(self) -> str:
        return " ".join(f"{key}={value}" for key, value in sorted(self.counts.items()))


def compare(scenario: Scenario, first: Sequence[Observed], second: Sequence[Observed]) -> Tally:
    """`first` is scheduler-plugins' run, `second` kubesched's."""
    tally = Tally()
    states = (ClusterState(scenario), ClusterState(scenario))
    lockstep = True
    for pod, seen in zip(scenario.pods, zip(first, second, strict=True), strict=True):
        expected = (expect(states[0], pod), expect(states[1], pod))
        for side, want, got, state in zip(SIDES, expected, seen, states, strict=True):
            tally.counts["model checks"] += 1
            problems = want.check(got)
            if problems and side == SIDES[0] and not stale_rounds(state, pod, got):
                tally.counts["scheduler-plugins re-preempted on a stale quota book"] += 1
                lockstep = False  # its known race (README): nothing to compare this step
                continue
            tally.mismatches += [f"{pod.name} {side}: {p}" for p in problems]
        tally.counts[f"{seen[1].kind}"] += 1
        tally.trace.append(_trace(pod, seen))
        if lockstep:
            _lockstep(tally, pod, expected[0], *seen)
        for state, got in zip(states, seen, strict=True):
            state.apply(pod, got.node, got.victims)
        lockstep = lockstep and seen[0].node == seen[1].node and seen[0].victims == seen[1].victims
    return tally


def _lockstep(tally: Tally, pod: PodSpec, expected: Expected, sp: Observed, ks: Observed) -> None:
    tally.counts["lockstep"] += 1
    if sp.first_failure or ks.first_failure:
        tally.counts["FailedScheduling texts compared"] += 1
    differ = [
        f"{pod.name} {what}: scheduler-plugins {a!r}, kubesched {b!r}"
        for what, a, b in (
            ("outcome", sp.kind, ks.kind),
            ("refusal", sp.message, ks.message),
            ("first FailedScheduling", sp.first_failure, ks.first_failure),
        )
        if a != b
    ]
    if expected.unique_node() is not None:
        tally.counts["nodes compared"] += 1
        if sp.node != ks.node:
            differ.append(f"{pod.name} node: scheduler-plugins {sp.node}, kubesched {ks.node}")
    victims = expected.unique_victims()
    if victims:
        tally.counts["victim sets compared"] += 1
    if victims is not None and sp.victims != ks.victims:
        differ.append(
            f"{pod.name} victims: scheduler-plugins {sorted(sp.victims)},"
            f" kubesched {sorted(ks.victims)}"
        )
    tally.mismatches += differ


def _trace(pod: PodSpec, seen: tuple[Observed, Observed]) -> str:
    request = pod.request
    done = " | ".join(
        f"{side}: {got.kind} {got.node} {_rounds(got)} {got.message}".rstrip()
        for side, got in zip(SIDES, seen, strict=True)
    )
    shape = f"cpu={request.cpu}m mem={request.memory}Mi gpu={request.gpu}"
    return f"{pod.name} {pod.namespace} prio={pod.priority} {shape} | {done}"


def _rounds(seen: Observed) -> str:
    return " then ".join(f"{sorted(victims)} on {node}" for node, victims in seen.rounds)
