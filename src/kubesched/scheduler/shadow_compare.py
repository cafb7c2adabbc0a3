"""Shadow mode's comparison: what kubesched decided for a pod against what the shadowed
scheduler did with it (`kubesched.scheduler.shadow` makes the decisions).

A `Decision` keeps what is needed to judge it later and nothing else: the chosen node, the
nodes whose total score tied at the top, and every scored node's total (to log the scores of
both nodes of a disagreement). `classify` gives the `agreement` label of
`kubesched_shadow_decisions_total`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from kubesched.runtime.schedule import ScheduleResult

UNSCHEDULABLE_REASON = "Unschedulable"
"""The PodScheduled=False reason a scheduler sets on a pod that fits no node."""


class Agreement(StrEnum):
    """How kubesched's decision compares with the shadowed scheduler's outcome."""

    SAME_NODE = "same-node"
    """Both chose the same node."""
    TIE = "tie"
    """Different nodes, but the other scheduler's node had the same (top) total score in
    kubesched's cycle: kubesched's random pick among ties could have been it."""
    DIFFERENT = "different"
    """The other scheduler's node scored lower in kubesched's cycle, or did not pass its
    filters (or was not among the nodes it sampled)."""
    KUBESCHED_UNSCHEDULABLE = "kubesched-unschedulable"
    """The other scheduler bound the pod; kubesched found no node for it."""
    ONLY_KUBESCHED_SCHEDULABLE = "only-kubesched-schedulable"
    """The other scheduler marked the pod unschedulable; kubesched found a node."""
    BOTH_UNSCHEDULABLE = "both-unschedulable"
    """Neither found a node (an agreement the issue's five values leave out)."""


AGREEING = frozenset({Agreement.SAME_NODE, Agreement.TIE, Agreement.BOTH_UNSCHEDULABLE})


@dataclass(frozen=True, slots=True)
class Decision:
    """kubesched's decision for one pod, made against its cache at `generation`."""

    node: str
    """The chosen node; "" when no node fits."""
    generation: int
    top: frozenset[str] = frozenset()
    """The nodes whose total score equals the best one (the chosen node among them)."""
    scores: Mapping[str, int] = field(default_factory=dict)
    """Total (weighted) score per scored node; empty when one node or none was feasible."""
    reason: str = ""
    """Why no node fits (the FitError's message), when `node` is ""."""

    def compact(self) -> Decision:
        """The decision without its scores (kept while the other scheduler decides)."""
        return Decision(node=self.node, generation=self.generation, reason=self.reason)

    def score_of(self, node: str) -> str:
        """The node's total score as logged: a number, or why there is none."""
        if node in self.scores:
            return str(self.scores[node])
        if node == self.node:
            return "the only feasible node"
        return "not feasible or not scored"


def decided(result: ScheduleResult, *, generation: int) -> Decision:
    """The decision a successful cycle made."""
    host = result.suggested_host
    if result.scores is None:
        return Decision(node=host, generation=generation, top=frozenset({host}))
    scores = {
        node.name: total
        for node, total in zip(result.scores.nodes, result.scores.totals, strict=True)
    }
    best = max(scores.values(), default=0)
    top = frozenset(name for name, total in scores.items() if total == best)
    return Decision(node=host, generation=generation, top=top | {host}, scores=scores)


def unschedulable(reason: str, *, generation: int) -> Decision:
    """The decision of a cycle that found no node."""
    return Decision(node="", generation=generation, reason=reason)


def classify(decision: Decision, real_node: str) -> Agreement:
    """Compare `decision` with the other scheduler's outcome: the node it bound the pod to,
    or "" when it marked the pod unschedulable."""
    if not real_node:
        return (
            Agreement.ONLY_KUBESCHED_SCHEDULABLE if decision.node else Agreement.BOTH_UNSCHEDULABLE
        )
    if not decision.node:
        return Agreement.KUBESCHED_UNSCHEDULABLE
    if decision.node == real_node:
        return Agreement.SAME_NODE
    if real_node in decision.top:
        return Agreement.TIE
    return Agreement.DIFFERENT


__all__ = ["AGREEING", "Agreement", "Decision", "classify", "decided", "unschedulable"]
