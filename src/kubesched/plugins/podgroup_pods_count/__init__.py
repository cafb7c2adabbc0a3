"""PodGroupPodsCount: kube-scheduler's PlacementScore plugin that favours the placements
holding more of a pod group's members (the `TopologyAwareWorkloadScheduling` feature gate);
see README.md."""

from kubesched.plugins.podgroup_pods_count.plugin import NAME, PodGroupPodsCount

__all__ = ["NAME", "PodGroupPodsCount"]
