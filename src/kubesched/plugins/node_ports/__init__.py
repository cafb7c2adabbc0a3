"""Filter: host ports in use on the node (upstream `nodeports`)."""

from kubesched.plugins.node_ports.plugin import NodePorts

__all__ = ["NodePorts"]
