"""Filter: a pod with `spec.nodeName` fits only that node (upstream `nodename`)."""

from kubesched.plugins.node_name.plugin import NodeName

__all__ = ["NodeName"]
