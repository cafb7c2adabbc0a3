"""Comparing one decision: what kube-scheduler did (its log and the API) against what
kubesched's engine says (`kubesched.explain.Explanation`), comparison by comparison.

Comparisons (each counted in `Tally`):
  queueing          a gated pod is held by both (kube-scheduler: PodScheduled reason
                    SchedulingGated; kubesched: PreEnqueue rejects it)
  feasible-set      the nodes kube-scheduler scored (or bound to, with one feasible node) are
                    exactly kubesched's feasible nodes; none when unschedulable
  plugin-scores     every (plugin, node) weighted score kube-scheduler logged equals
                    kubesched's (a plugin skipped at PreScore counts 0 on either side)
  chosen-in-best    kube-scheduler's node is among kubesched's top-scored nodes (ties)
  failed-scheduling the FailedScheduling message, word for word (preemption verdict included;
                    its node may be any of the equally ranked preemption candidates)
  scheduler-error   an attempt that ended in an error (a plugin's, e.g. an allocation that can
                    never succeed): kubesched's engine has the same error, but for the device
                    it names (kube-scheduler reports the first node's error to arrive)
  preemption        the nominated node and the victims: one of the candidates kubesched
                    ranks highest (kube-scheduler's search runs in parallel from a random
                    offset and takes the first of equals)
  sampling          profiles that sample (over 100 nodes): kube-scheduler found as many
                    feasible nodes as `num_feasible_nodes_to_find` allows, all of them
                    feasible for kubesched, and bound to one of them
  kubesched-bound   the kubesched process, on the same state, bound the twin pod to a node of
                    kubesched's top-scored nodes, or reported the same FailedScheduling text
                    (the same error, for an error)
  devices           a pod with ResourceClaims both bound: on the same node the same devices
                    (the twin's claims are copies of the pod's); on different nodes (a tie)
                    each allocation valid on its node (`harness.diff.devices`)
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from kubesched.explain import Explanation
from tests.e2e.harness.diff.kslog import OracleAttempt

COMPARISONS = (
    "queueing",
    "feasible-set",
    "plugin-scores",
    "chosen-in-best",
    "failed-scheduling",
    "scheduler-error",
    "preemption",
    "sampling",
    "kubesched-bound",
    "devices",
)


@dataclass(frozen=True)
class Mismatch:
    comparison: str
    pod: str
    detail: str


@dataclass
class Tally:
    """Checks and mismatches per comparison, over any number of decisions."""

    checks: Counter[str] = field(default_factory=Counter)
    mismatches: list[Mismatch] = field(default_factory=list)

    def check(self, comparison: str, pod: str, ok: bool, detail: str) -> bool:
        self.checks[comparison] += 1
        if not ok:
            self.mismatches.append(Mismatch(comparison, pod, detail))
        return ok

    def merge(self, other: Tally) -> None:
        self.checks.update(other.checks)
        self.mismatches.extend(other.mismatches)

    def summary(self) -> str:
        failed = Counter(m.comparison for m in self.mismatches)
        return ", ".join(
            f"{name} {self.checks[name] - failed[name]}/{self.checks[name]}"
            for name in COMPARISONS
            if self.checks[name]
        )


def kubesched_scores(ex: Explanation) -> dict[tuple[str, str], int]:
    return {
        (score.plugin, verdict.node): score.weighted
        for verdict in ex.verdicts
        for score in verdict.scores
    }


def compare_bound(
    tally: Tally, pod: str, ex: Explanation, attempt: OracleAttempt, *, sampled: bool
) -> None:
    """kube-scheduler bound the pod (`attempt` is its last, successful attempt)."""
    feasible = {v.node for v in ex.feasible}
    if sampled:
        _compare_sampling(tally, pod, ex, attempt, feasible)
        return
    scored = attempt.scored_nodes or {attempt.bound_to}
    tally.check(
        "feasible-set",
        pod,
        scored == feasible,
        f"kube-scheduler {sorted(scored)}, kubesched {sorted(feasible)}",
    )
    if attempt.scores:
        ours = kubesched_scores(ex)
        keys = set(attempt.scores) | {k for k in ours if k[1] in scored}
        diff = {
            k: (attempt.scores.get(k, 0), ours.get(k, 0))
            for k in sorted(keys)
            if attempt.scores.get(k, 0) != ours.get(k, 0)
        }
        tally.check(
            "plugin-scores", pod, not diff, f"(plugin, node): (kube-scheduler, kubesched) {diff}"
        )
    best = set(ex.best) or feasible
    tally.check(
        "chosen-in-best",
        pod,
        attempt.bound_to in best,
        f"kube-scheduler chose {attempt.bound_to}, kubesched's best {sorted(best)}",
    )


def _compare_sampling(
    tally: Tally, pod: str, ex: Explanation, attempt: OracleAttempt, feasible: set[str]
) -> None:
    want = min(len(feasible), ex.sampling.num_feasible_nodes_to_find)
    scored = attempt.scored_nodes or {attempt.bound_to}
    ok = attempt.feasible == want and scored <= feasible and attempt.bound_to in scored
    outside = sorted(scored - feasible)
    detail = (
        f"kube-scheduler found {attempt.feasible} feasible (scored {len(scored)}), "
        f"expected {want}; outside kubesched's feasible: {outside}"
    )
    tally.check("sampling", pod, ok, detail)


def compare_unschedulable(
    tally: Tally, pod: str, ex: Explanation, message: str, *, preempted_on: str = ""
) -> None:
    """kube-scheduler found no node; `preempted_on`: the node its preemption picked."""
    expected = ex.failed_scheduling
    if preempted_on and any(node == preempted_on for node, _ in ex.preemption_choices):
        expected = expected.replace(f"on node {ex.nominated_node},", f"on node {preempted_on},")
    feasible = [v.node for v in ex.feasible]
    tally.check("feasible-set", pod, not feasible, f"kube-scheduler: none; kubesched {feasible}")
    tally.check(
        "failed-scheduling",
        pod,
        expected == message,
        f"kube-scheduler {message!r}, kubesched {ex.failed_scheduling!r}",
    )


_DEVICE_ID = re.compile(r"device [^\s/]+/[^\s/]+/\S+")


def same_error(left: str, right: str) -> bool:
    """The same scheduling error, whichever device it names: upstream filters nodes in
    parallel and reports the first node's error to arrive, so the device may differ."""
    return _DEVICE_ID.sub("device <id>", left) == _DEVICE_ID.sub("device <id>", right)


def compare_error(tally: Tally, pod: str, ex: Explanation, error: str) -> None:
    """kube-scheduler's attempt ended in an error (no FailedScheduling verdict)."""
    tally.check(
        "scheduler-error",
        pod,
        same_error(ex.error, error),
        f"kube-scheduler {error!r}, kubesched {ex.error!r}",
    )


def compare_preemption(
    tally: Tally, pod: str, ex: Explanation, nominated: str, victims: set[str]
) -> None:
    ours = {victim.pod for victim in ex.victims}
    choices = {(node, frozenset(keys)) for node, keys in ex.preemption_choices}
    choices.add((ex.nominated_node, frozenset(ours)))
    ok = (nominated, frozenset(victims)) in choices
    tally.check(
        "preemption",
        pod,
        ok,
        f"kube-scheduler {nominated} {sorted(victims)}, "
        f"kubesched {ex.nominated_node} {sorted(ours)}",
    )
