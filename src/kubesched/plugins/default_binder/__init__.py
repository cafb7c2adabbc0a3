"""Bind: posts the pod's Binding to the API server (upstream `defaultbinder`)."""

from kubesched.plugins.default_binder.plugin import DefaultBinder

__all__ = ["DefaultBinder"]
