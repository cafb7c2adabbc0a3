"""Public helpers for plugin authors and our own tests: object builders (and a fake handle)."""

from kubesched.testing.builders import NodeBuilder, PodBuilder, make_node, make_pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod"]
