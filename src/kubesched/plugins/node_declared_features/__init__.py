"""NodeDeclaredFeatures: pods needing a node feature go to nodes declaring it."""

from kubesched.plugins.node_declared_features.plugin import NodeDeclaredFeatures

__all__ = ["NodeDeclaredFeatures"]
