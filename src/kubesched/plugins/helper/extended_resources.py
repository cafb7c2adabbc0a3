"""Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): which DeviceClass
provides an extended resource a pod requests, shared by NodeResourcesFit (which then leaves
the resource to DynamicResources on a node that does not offer it itself) and
DynamicResources (which allocates devices of that class for it).

A class provides `deviceclass.resource.kubernetes.io/<class name>` and, when it sets
`spec.extendedResourceName`, that name; of several classes naming the same resource the
newest wins (the smaller name on a tie), as upstream's `ExtendedResourceCache`.
"""

from __future__ import annotations

import weakref
from typing import Final

from kubesched.framework import Handle, Lister
from kubesched.framework.dra import DEVICE_CLASSES
from kubesched.framework.listers import IndexedStore
from kubesched.model import ApiObject, Pod

DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"
_NATIVE_SUFFIX: Final = "kubernetes.io"


def is_dra_extended_resource_name(name: str) -> bool:
    """upstream `IsDRAExtendedResourceName`: an extended resource (a domain outside
    kubernetes.io, not `requests.`-prefixed) or a class's implicit name."""
    if name.startswith(DEVICE_CLASS_PREFIX):
        return True
    domain, slash, _ = name.partition("/")
    if not slash or name.startswith("requests."):
        return False
    return not (domain == _NATIVE_SUFFIX or domain.endswith("." + _NATIVE_SUFFIX))


class ExtendedResourceClasses:
    """Resource name -> the DeviceClass that provides it, from the DeviceClass lister,
    recomputed only after a class changed."""

    def __init__(self, lister: Lister[ApiObject]) -> None:
        self._lister = lister
        self._mapping: dict[str, str] | None = None
        self.version = 0
        """Counts the classes' changes (a part of NodeResourcesFit's pod signature)."""
        lister.subscribe(self._changed)

    def _changed(self, _old: ApiObject | None, _new: ApiObject | None) -> None:
        self._mapping = None
        self.version += 1

    def class_for(self, resource: str) -> str | None:
        """The name of the class providing `resource`, or None."""
        mapping = self._mapping
        if mapping is None:
            mapping = self._mapping = _mapping(self._lister.list())
        return mapping.get(resource)


def _mapping(classes: list[ApiObject]) -> dict[str, str]:
    mapping: dict[str, str] = {DEVICE_CLASS_PREFIX + c.name: c.name for c in classes}
    # Newest first, then by name: the first class to claim a name keeps it.
    ordered = sorted(classes, key=lambda c: c.name)
    ordered.sort(key=lambda c: c.creation_timestamp, reverse=True)
    for device_class in ordered:
        explicit = device_class.spec.get("extendedResourceName")
        if isinstance(explicit, str) and explicit and explicit not in mapping:
            mapping[explicit] = device_class.name
    return mapping


_SHARED: weakref.WeakKeyDictionary[object, ExtendedResourceClasses] = weakref.WeakKeyDictionary()


def extended_resource_classes(handle: Handle) -> ExtendedResourceClasses:
    """The scheduler's one resolver (keyed by the DeviceClass lister the Handle serves; an
    empty one when the Handle serves no DeviceClasses)."""
    try:
        lister: Lister[ApiObject] = handle.lister(DEVICE_CLASSES)
    except KeyError:
        return ExtendedResourceClasses(IndexedStore[ApiObject]())
    found = _SHARED.get(lister)
    if found is None:
        found = _SHARED[lister] = ExtendedResourceClasses(lister)
    return found


def dra_backed(pod: Pod, classes: ExtendedResourceClasses) -> bool:
    """Whether a DeviceClass backs an extended resource the pod requests (upstream
    `shouldDelegateResourceToDRA` without a node: then the scorers' and the filter's
    answers depend on the devices, and the pod is not signable)."""
    return any(
        amount and classes.class_for(name) is not None
        for name, amount in pod.requests.scalar.items()
    )
