"""DynamicResources: pods with DRA resource claims are refused (allocation not implemented)."""

from kubesched.plugins.dynamic_resources.plugin import DynamicResources

__all__ = ["DynamicResources"]
