"""The memo of raw scores: memoizable Score plugins are reused per node even when a plugin
that is not memoizable runs in the same cycle (it scores every node every time)."""

from __future__ import annotations

from kubesched.framework import CycleState, NodeInfo
from kubesched.model import Pod
from kubesched.runtime.scoring import run_score
from kubesched.testing import make_node, make_pod


class Counting:
    def __init__(self, name: str, *, memoizable: bool, offset: int) -> None:
        self.name = name
        self.memoizable = memoizable
        self.offset = offset
        self.calls = 0

    def score(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        self.calls += 1
        return self.offset + len(node_info.name)


def test_memoizable_plugins_are_reused_beside_one_that_is_not() -> None:
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
            memo_key=7,
        )
        for _ in range(3)
    ]
    assert cheap.calls == 3  # once per node
    assert fresh.calls == 9  # every node, every cycle
    for result in results:
        assert result.totals == [2 * 2 + 11, 2 * 3 + 12, 2 * 4 + 13]
        assert [ps.plugin for ps in result.plugins] == ["Cheap", "Fresh"]
