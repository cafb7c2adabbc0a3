"""Filter and Score for topology spread constraints (upstream `podtopologyspread`)."""

from kubesched.plugins.pod_topology_spread.plugin import PodTopologySpread

__all__ = ["PodTopologySpread"]
