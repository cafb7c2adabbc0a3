"""NodeResourceTopologyMatch: NUMA-aware placement over scheduler-plugins'
NodeResourceTopology CRD (`topology.node.k8s.io/v1alpha2`); see README.md."""

from kubesched.plugins.node_resource_topology.plugin import NodeResourceTopologyMatch
from kubesched.plugins.node_resource_topology.topology import NODE_RESOURCE_TOPOLOGIES

__all__ = ["NODE_RESOURCE_TOPOLOGIES", "NodeResourceTopologyMatch"]
