"""NodeResourcesFit and NodeResourcesBalancedAllocation, and the resource scoring they share
(upstream `noderesources`)."""

from kubesched.plugins.node_resources.balanced_allocation import NodeResourcesBalancedAllocation
from kubesched.plugins.node_resources.fit import NodeResourcesFit

__all__ = ["NodeResourcesBalancedAllocation", "NodeResourcesFit"]
