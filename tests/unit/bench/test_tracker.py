"""The bench's pod tracker: what a stall's message says about the pods still waiting."""

from __future__ import annotations

from typing import Any

from kubesched.bench.tracker import PodTracker


class ListingClient:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    async def get(self, path: str, **_kwargs: Any) -> dict[str, Any]:
        return {"metadata": {"resourceVersion": "7"}, "items": self.items}


def pod(name: str, node: str = "", **status: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"nodeName": node}, "status": status}


UNSCHEDULABLE = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "Unschedulable",
    "message": "0/5 nodes are available: 5 Insufficient cpu.",
}


async def test_a_stall_names_the_waiting_pods_with_their_nomination_and_condition() -> None:
    items = [
        pod("pod-0", node="n1"),
        pod("pod-1", nominatedNodeName="n2", conditions=[UNSCHEDULABLE]),
        pod("pod-2"),
    ]
    tracker = PodTracker(ListingClient(items), "ns")  # type: ignore[arg-type]
    await tracker.start()
    assert tracker.bound == 1
    assert tracker.pending() == (
        "pod-1 (nominated to n2; Unschedulable: 0/5 nodes are available: 5 Insufficient cpu.), "
        "pod-2 (never tried)"
    )


async def test_a_stall_lists_a_few_waiting_pods_and_counts_the_rest() -> None:
    tracker = PodTracker(ListingClient([pod(f"pod-{i}") for i in range(5)]), "ns")  # type: ignore[arg-type]
    await tracker.start()
    assert tracker.pending(limit=2) == "pod-0 (never tried), pod-1 (never tried) and 3 more"
