"""The typed args of the in-tree plugins by plugin name, and upstream's v1 defaults of the
default plugins' args derived from them.

Each type lives with its plugin (`plugins/<name>/args.py`, `node_resources/*_args.py`); its
field defaults are upstream's defaults. `kubesched.apis.defaults.DEFAULT_PLUGIN_ARGS` (what
`--write-config-to` fills in; `kubesched.manifests` and `kubesched.explain` read the config
without the plugins, so it cannot import them) must equal `default_plugin_args()`, which
tests/unit/plugins/test_plugin_args.py checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.apis import names
from kubesched.apis.defaults import DEFAULT_MULTI_POINT
from kubesched.plugins.capacity_scheduling.args import CapacitySchedulingArgs
from kubesched.plugins.coscheduling.args import CoschedulingArgs
from kubesched.plugins.default_preemption.args import DefaultPreemptionArgs
from kubesched.plugins.dynamic_resources.args import DynamicResourcesArgs
from kubesched.plugins.helper.args import PluginArgs
from kubesched.plugins.inter_pod_affinity.args import InterPodAffinityArgs
from kubesched.plugins.node_affinity.args import NodeAffinityArgs
from kubesched.plugins.node_resource_topology.args import NodeResourceTopologyMatchArgs
from kubesched.plugins.node_resources.balanced_allocation_args import (
    NodeResourcesBalancedAllocationArgs,
)
from kubesched.plugins.node_resources.fit_args import NodeResourcesFitArgs
from kubesched.plugins.pod_topology_spread.args import PodTopologySpreadArgs
from kubesched.plugins.volume_binding.args import VolumeBindingArgs

PLUGIN_ARGS: Mapping[str, type[PluginArgs]] = {
    names.CAPACITY_SCHEDULING: CapacitySchedulingArgs,
    names.COSCHEDULING: CoschedulingArgs,
    names.DEFAULT_PREEMPTION: DefaultPreemptionArgs,
    names.DYNAMIC_RESOURCES: DynamicResourcesArgs,
    names.INTER_POD_AFFINITY: InterPodAffinityArgs,
    names.NODE_AFFINITY: NodeAffinityArgs,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: NodeResourcesBalancedAllocationArgs,
    names.NODE_RESOURCES_FIT: NodeResourcesFitArgs,
    names.NODE_RESOURCE_TOPOLOGY_MATCH: NodeResourceTopologyMatchArgs,
    names.POD_TOPOLOGY_SPREAD: PodTopologySpreadArgs,
    names.VOLUME_BINDING: VolumeBindingArgs,
}
"""The args type of every in-tree plugin that takes args (the others refuse any)."""


def default_plugin_args() -> dict[str, dict[str, Any]]:
    """The v1 defaults of the args of the default plugins, by plugin name, as kube-scheduler
    writes them with `--write-config-to` (without their apiVersion and kind)."""
    return {
        ref.name: PLUGIN_ARGS[ref.name].default().to_v1()
        for ref in DEFAULT_MULTI_POINT
        if ref.name in PLUGIN_ARGS
    }
