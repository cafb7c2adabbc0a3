"""The lister of a resource a plugin declares, read the same way by every in-tree plugin."""

from __future__ import annotations

from kubesched.framework import Handle, Lister, ResourceSpec
from kubesched.framework.listers import IndexedStore
from kubesched.model import ApiObject


def declared_lister(handle: Handle, spec: ResourceSpec) -> Lister[ApiObject]:
    """`handle.lister(spec)`; an empty lister where the Handle serves none of `spec` (a
    unit test's or a what-if's Handle built without the plugin's declared resources)."""
    try:
        return handle.lister(spec)
    except KeyError:
        return IndexedStore[ApiObject]()
