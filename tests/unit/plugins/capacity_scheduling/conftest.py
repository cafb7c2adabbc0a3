"""A cluster in memory with CapacityScheduling enabled as scheduler-plugins' example
profile enables it (multiPoint, and alone at PostFilter)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import CycleState
from kubesched.model import Node, Pod
from kubesched.plugins import in_tree_registry
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS, CapacityScheduling
from kubesched.runtime import FitError, Framework, build_framework, schedule_pod
from kubesched.testing import FakeHandle

PROFILE = Profile(
    scheduler_name="capacity-scheduler",
    plugins={
        "multiPoint": PluginSet(enabled=(PluginRef("CapacityScheduling"),)),
        "postFilter": PluginSet(
            enabled=(PluginRef("CapacityScheduling"),), disabled=(PluginRef("*"),)
        ),
    },
)


def quota(namespace: str, *, min_: Mapping[str, str], max_: Mapping[str, str]) -> dict[str, Any]:
    """An ElasticQuota named after its namespace."""
    return {
        "metadata": {"namespace": namespace, "name": namespace},
        "spec": {"min": dict(min_), "max": dict(max_)},
    }


class Cluster:
    """Nodes, bound pods (in the node infos and the pod lister) and ElasticQuotas."""

    def __init__(self, nodes: Sequence[Node], quotas: Iterable[dict[str, Any]] = ()) -> None:
        self.handle = FakeHandle(nodes=nodes, objects=[(ELASTIC_QUOTAS, obj) for obj in quotas])
        self.framework: Framework = build_framework(
            profile=PROFILE, registry=in_tree_registry(), handle=self.handle
        )
        found = [p for p in self.framework.plugins.post_filter if p.name == "CapacityScheduling"]
        assert len(found) == 1
        plugin = found[0]
        assert isinstance(plugin, CapacityScheduling)
        self.plugin = plugin

    def bind(self, pod: Pod, node_name: str = "") -> Pod:
        bound = pod.on_node(node_name) if node_name else pod
        self.handle.add_pod(bound)
        self.handle.listers.pods.on_add(bound)
        return bound

    def schedule(self, pod: Pod) -> str:
        """Schedule `pod` and bind it where it goes; its node."""
        nodes = self.handle.list_node_infos()
        result = schedule_pod(self.framework, CycleState(), pod, nodes)
        self.bind(pod, result.suggested_host)
        return result.suggested_host

    def refuse(self, pod: Pod) -> FitError:
        """Schedule `pod`, which must not fit; the FitError (PostFilter has run)."""
        with pytest.raises(FitError) as info:
            schedule_pod(self.framework, CycleState(), pod, self.handle.list_node_infos())
        return info.value
