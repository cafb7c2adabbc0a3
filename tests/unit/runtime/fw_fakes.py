"""Small configurable plugins for framework tests."""

from __future__ import annotations

from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any

from kubesched.framework import CycleState, NodeInfo, Status
from kubesched.model import Pod


class FakeFilter:
    """Rejects the nodes in `reject` with `status`; raises on nodes in `boom`."""

    def __init__(
        self,
        name: str,
        *,
        reject: Mapping[str, Status] | None = None,
        boom: frozenset[str] = frozenset(),
        calls: list[str] | None = None,
    ) -> None:
        self.name = name
        self.reject = dict(reject or {})
        self.boom = boom
        self.calls = calls if calls is not None else []

    def filter(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls.append(f"{self.name}:{node_info.name}")
        if node_info.name in self.boom:
            raise RuntimeError("kaput")
        return self.reject.get(node_info.name)


class FakePreFilter:
    def __init__(self, name: str, result: Any) -> None:
        self.name = name
        self.result = result

    def pre_filter(self, _state: CycleState, _pod: Pod, _nodes: Sequence[NodeInfo]) -> Any:
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


class FakeScore:
    """Scores nodes from a table; optionally normalizes by multiplying."""

    def __init__(self, name: str, table: Mapping[str, int], *, factor: int | None = None) -> None:
        self.name = name
        self.table = dict(table)
        self.factor = factor

    def score(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return self.table[node_info.name]


class FakeNormalizedScore(FakeScore):
    def normalize_score(
        self, _state: CycleState, _pod: Pod, scores: MutableSequence[int]
    ) -> Status | None:
        for i, value in enumerate(scores):
            scores[i] = value * (self.factor or 1)
        return None


class FakeReserve:
    def __init__(self, name: str, log: list[str], *, result: Status | None = None) -> None:
        self.name = name
        self.log = log
        self.result = result

    def reserve(self, _state: CycleState, _pod: Pod, node_name: str) -> Status | None:
        self.log.append(f"reserve {self.name} {node_name}")
        return self.result

    def unreserve(self, _state: CycleState, _pod: Pod, node_name: str) -> None:
        self.log.append(f"unreserve {self.name} {node_name}")
