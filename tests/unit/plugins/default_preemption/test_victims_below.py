"""`victims.collect` with a priority cutoff (`below`): only lower-priority victims, in node
order, the same as collecting every victim and dropping the others; without the
`GenericWorkload` gate no victim is made for a pod at or above the cutoff (a node full of
equal-priority pods, as in scheduler_perf's EventHandlingPodUpdate, costs no victims)."""

from __future__ import annotations

from unittest import mock

from kubesched.framework import NodeInfo
from kubesched.model import Pod
from kubesched.plugins.default_preemption import victims
from kubesched.testing import make_node, make_pod


def _node(*priorities: int) -> NodeInfo:
    info = NodeInfo(node=make_node().name("n").capacity(cpu="4").model())
    for i, priority in enumerate(priorities):
        info.add_pod(_pod(f"p-{i}", priority))
    return info


def _pod(name: str, priority: int) -> Pod:
    return make_pod().name(name).namespace("ns").node("n").priority(priority).model()


def test_only_lower_priority_victims_in_node_order() -> None:
    node = _node(5, 0, 10, 3, 0)
    everything = victims.collect([node], None, now=0.0)
    below = victims.collect([node], None, now=0.0, below=5)
    assert below == [v for v in everything if v.priority < 5]
    assert [v.pods[0].name for v in below] == ["p-1", "p-3", "p-4"]


def test_no_victim_is_made_for_pods_at_or_above_the_cutoff() -> None:
    node = _node(*([0] * 50))
    with mock.patch.object(victims, "_victim", wraps=victims._victim) as made:
        assert victims.collect([node], None, now=0.0, below=0) == []
    assert made.call_count == 0
