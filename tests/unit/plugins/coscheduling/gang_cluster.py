"""A small cluster for Coscheduling's gang preemption tests: a profile with Coscheduling
(`gangPreemption: true`, DefaultPreemption off at postFilter) over a FakeHandle, and one
scheduling cycle of a pod run to the end of PostFilter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import (
    POD_DISRUPTION_BUDGETS,
    CycleState,
    NodeToStatus,
    PostFilterResult,
    Status,
)
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.plugins import in_tree_registry
from kubesched.plugins.coscheduling import POD_GROUP_LABEL, PODGROUPS, Coscheduling
from kubesched.plugins.coscheduling.podgroup import GROUP_PODS
from kubesched.runtime import Framework, build_framework
from kubesched.testing import FakeHandle, make_node, make_pod

NS = "ns"
CREATED = "2024-01-01T00:00:00Z"


def group(name: str, min_member: int) -> ApiObject:
    return ApiObject.from_json(
        {
            "metadata": {"namespace": NS, "name": name, "creationTimestamp": CREATED},
            "spec": {"minMember": min_member},
        }
    )


def pod(
    name: str, *, cpu: int = 1, priority: int = 0, gang: str = "", node: str = "", **labels: str
) -> Pod:
    builder = make_pod().name(name).namespace(NS).uid(name).req(cpu=str(cpu)).priority(priority)
    if gang:
        builder = builder.label(POD_GROUP_LABEL, gang)
    for key, value in labels.items():
        builder = builder.label(key, value)
    return (builder.node(node) if node else builder).model()


@dataclass
class Cluster:
    handle: FakeHandle
    fw: Framework

    @property
    def plugin(self) -> Coscheduling:
        found = [p for p in self.fw.plugins.post_filter if isinstance(p, Coscheduling)]
        return found[0]

    def add_group(self, name: str, min_member: int) -> None:
        self.handle.listers.add(PODGROUPS, group(name, min_member))

    def run(self, pending: Pod) -> tuple[PostFilterResult | None, Status]:
        """PreFilter, Filter on every node, then PostFilter, for `pending`."""
        state = CycleState()
        nodes = self.handle.list_node_infos()
        outcome = self.fw.run_pre_filter(state, pending, nodes)
        assert outcome.status.is_success(), outcome.status.message
        statuses = NodeToStatus()
        for info in nodes:
            status = self.fw.run_filter(state, pending, info)
            assert not status.is_success(), f"{pending.name} fits on {info.name}"
            statuses.set(info.name, status)
        return self.fw.run_post_filter(state, pending, statuses)

    def victims(self) -> set[str]:
        return {v.name for p in self.handle.preemptions for v in p.victims}


def cluster(
    cpus: Sequence[int],
    *,
    bound: Sequence[Pod] = (),
    pending: Sequence[Pod] = (),
    with_default_preemption: bool = False,
    **args: Any,
) -> Cluster:
    """Nodes n0.. with `cpus`, bound and pending pods (in the pod lister too); DefaultPreemption
    off at postFilter unless `with_default_preemption` (a misconfiguration)."""
    nodes = [make_node().name(f"n{i}").capacity(cpu=str(c), pods="110") for i, c in enumerate(cpus)]
    handle = FakeHandle(
        nodes=[node.model() for node in nodes],
        listers=ClusterListers([PODGROUPS, GROUP_PODS, POD_DISRUPTION_BUDGETS]),
    )
    for p in bound:
        handle.add_pod(p)
        handle.listers.pods.on_add(p)
    for p in pending:
        handle.listers.pods.on_add(p)
    off = PluginSet(disabled=(PluginRef("DefaultPreemption"),))
    post_filter = {} if with_default_preemption else {"postFilter": off}
    profile = Profile(
        scheduler_name="gang-scheduler",
        plugins={
            "multiPoint": PluginSet(enabled=(PluginRef("Coscheduling"),)),
            "queueSort": PluginSet(disabled=(PluginRef("PrioritySort"),)),
            **post_filter,
        },
        plugin_config={"Coscheduling": {"gangPreemption": True, **args}},
    )
    fw = build_framework(profile=profile, registry=in_tree_registry(), handle=handle)
    return Cluster(handle, fw)
