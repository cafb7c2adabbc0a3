"""The shapes most scheduler_perf test cases share, for `catalogue` and `catalogue_more`:
upstream's node-default nodes (zone-labelled in round-robin order) and the createNodes,
createPods (initial), createPods (measured) sequence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench.workloads import PodGroup, Workload

Params = tuple[int, int, int]
"""(initNodes, initPods, measurePods) of one variant."""


def default_nodes(values: tuple[str, ...] = ()) -> Callable[[int], dict[str, Any]]:
    """node-default nodes; with `values`, upstream's labelNodePrepareStrategy: the zone
    label takes the values in round-robin order."""

    def factory(index: int) -> dict[str, Any]:
        labels = {t.ZONE: values[index % len(values)]} if values else {}
        return t.node_default(f"scheduler-perf-{index}", labels)

    return factory


def simple(
    measured: t.PodTemplate,
    *,
    initial: t.PodTemplate | None = None,
    zones: tuple[str, ...] = (),
    sched_namespaces: bool = False,
) -> Callable[[Params], Workload]:
    """createNodes, [createNamespaces sched-0/1,] createPods (initial), createPods
    (measured): the shape of most test cases."""
    first, second = ("sched-0", "sched-1") if sched_namespaces else ("namespace-1", "namespace-2")

    def build(params: Params) -> Workload:
        nodes, init, measure = params
        return Workload(
            name="",
            nodes=nodes,
            node_factory=default_nodes(zones),
            initial=(PodGroup(initial or measured, init, first, "init-"),),
            measured=PodGroup(measured, measure, second, "pod-"),
        )

    return build
