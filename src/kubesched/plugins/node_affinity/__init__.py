"""Filter and Score on node selectors and node affinity (upstream `nodeaffinity`)."""

from kubesched.plugins.node_affinity.plugin import NodeAffinity

__all__ = ["NodeAffinity"]
