"""How many feasible nodes a cycle looks for before filtering stops: kube-scheduler's adaptive
sampling (`numFeasibleNodesToFind`), which makes large clusters cheap to schedule on."""

from __future__ import annotations

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BASE_PERCENTAGE_OF_NODES_TO_SCORE = 50


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None) -> int:
    """How many feasible nodes to look for before filtering stops (upstream semantics).

    All nodes below 100 nodes or at 100 %; unset/0 % means adaptive: 50 % - 1 % per 125 nodes,
    at least 5 %; and never fewer than 100 nodes.
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct >= 100:
        return num_all_nodes
    if pct <= 0:
        pct = max(
            BASE_PERCENTAGE_OF_NODES_TO_SCORE - num_all_nodes // 125,
            MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
        )
    return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)
