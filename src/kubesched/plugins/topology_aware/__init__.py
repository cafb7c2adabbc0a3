"""TopologyPlacementGenerator: kube-scheduler's placements of a pod group, one per domain of
its topology constraint (the `TopologyAwareWorkloadScheduling` feature gate); see README.md."""

from kubesched.plugins.topology_aware.plugin import NAME, TopologyPlacementGenerator

__all__ = ["NAME", "TopologyPlacementGenerator"]
