"""Small plugins and helpers for the explain tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.framework import CycleState, NodeInfo, Status
from kubesched.model import Node, Pod
from kubesched.runtime import Framework
from kubesched.runtime.framework import PluginLists
from kubesched.testing import FakeHandle, make_node


class TableFilter:
    """Rejects (or fails on) the nodes named in `reject` with the status given."""

    def __init__(self, name: str, reject: Mapping[str, Status]) -> None:
        self.name = name
        self.reject = dict(reject)

    def filter(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        return self.reject.get(node_info.name)


class FixedPreFilter:
    def __init__(self, name: str, result: Any) -> None:
        self.name = name
        self.result = result

    def pre_filter(self, _state: CycleState, _pod: Pod, _nodes: Sequence[NodeInfo]) -> Any:
        return self.result


class TableScore:
    """Raw scores from a table; normalized by multiplying with `factor`."""

    def __init__(self, name: str, table: Mapping[str, int], *, factor: int = 1) -> None:
        self.name = name
        self.table = dict(table)
        self.factor = factor

    def score(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return self.table[node_info.name]

    def normalize_score(self, _state: CycleState, _pod: Pod, scores: list[int]) -> None:
        for i, value in enumerate(scores):
            scores[i] = value * self.factor


class SkippingScore(TableScore):
    def pre_score(self, _state: CycleState, _pod: Pod, _nodes: Sequence[NodeInfo]) -> Status:
        from kubesched.framework import Code  # noqa: PLC0415

        return Status(Code.SKIP)


def nodes(*names: str) -> list[Node]:
    return [make_node().name(name).model() for name in names]


def framework(
    names: Sequence[str],
    *,
    weights: Mapping[str, int] | None = None,
    percentage: int | None = None,
    **lists: Any,
) -> tuple[Framework, list[NodeInfo]]:
    """A Framework with exactly the given plugins, over nodes of these names."""
    handle = FakeHandle(nodes=nodes(*names))
    score_weights = {pl.name: 1 for pl in lists.get("score", [])}
    score_weights.update(weights or {})
    fw = Framework(
        profile_name="test-scheduler",
        plugins=PluginLists(**lists),
        score_weights=score_weights,
        percentage_of_nodes_to_score=percentage,
        handle=handle,
    )
    return fw, list(handle.list_node_infos())
