"""The default plugin set and its merge with a profile's plugins: see `kubesched.apis.defaults`
(a bottom module, so that the config loader and `kubesched manifests` read the defaults
without importing the framework)."""

from kubesched.apis.defaults import (
    DEFAULT_MULTI_POINT,
    DEFAULT_PLUGIN_ARGS,
    default_plugins,
    merge_plugin_set,
    merge_plugins,
)

__all__ = [
    "DEFAULT_MULTI_POINT",
    "DEFAULT_PLUGIN_ARGS",
    "default_plugins",
    "merge_plugin_set",
    "merge_plugins",
]
