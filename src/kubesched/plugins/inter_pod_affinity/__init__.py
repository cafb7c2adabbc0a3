"""Filter and Score for pod affinity and anti-affinity (upstream `interpodaffinity`)."""

from kubesched.plugins.inter_pod_affinity.plugin import InterPodAffinity

__all__ = ["InterPodAffinity"]
