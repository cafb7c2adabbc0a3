"""What every DynamicResources instance of the scheduler shares (upstream's
`SharedDRAManager`): the DRA objects parsed once per change, the claims allocated in Reserve
but not yet written (in flight), and the claims as PreBind wrote them until the informer
catches up (upstream's assume cache).

One manager per claims lister: the informers are shared by all profiles, so all profiles'
plugins share one manager and two pods never get the same device between Reserve and the
API write, whichever profile schedules them.
"""

from __future__ import annotations

import logging
import weakref
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from kubesched.dra.structured import (
    AllocatedState,
    add_allocated_claim,
    patched_slices,
)
from kubesched.dra.structured.types import DeviceID
from kubesched.framework import Handle, Lister
from kubesched.framework.logkv import kv
from kubesched.model import ApiObject
from kubesched.model.dra import DeviceClass, DeviceTaintRule, DRAObjectError, ResourceSlice
from kubesched.model.dra_claims import AllocationResult, ResourceClaim
from kubesched.plugins.dynamic_resources.allocated import AllocatedIndex, DevicesInUse
from kubesched.plugins.dynamic_resources.resources import (
    CLAIMS,
    DEVICE_CLASSES,
    SLICES,
    TAINT_RULES,
)
from kubesched.plugins.helper.listers import declared_lister

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Claim:
    """A ResourceClaim: the parsed claim and the object it came from (owners, finalizers
    and resourceVersion for the writes)."""

    obj: ApiObject
    claim: ResourceClaim

    @classmethod
    def of(cls, obj: ApiObject) -> Claim:
        """The claim an informer's or the API server's object holds."""
        return cls(obj, ResourceClaim.from_json(object_json(obj)))

    @property
    def uid(self) -> str:
        return self.obj.uid

    @property
    def controller_uid(self) -> str:
        return next((o.uid for o in self.obj.owners if o.controller), "")


def object_json(obj: ApiObject) -> dict[str, Any]:
    """The JSON the model parsers read back from an ApiObject."""
    meta: dict[str, Any] = {
        "name": obj.name,
        "uid": obj.uid,
        "resourceVersion": obj.resource_version,
        "annotations": dict(obj.annotations),
        "creationTimestamp": obj.creation_timestamp,
    }
    if obj.namespace:
        meta["namespace"] = obj.namespace
    if obj.deleting:
        meta["deletionTimestamp"] = "deleting"
    return {"metadata": meta, **obj.body}


class Parsed(Generic[T]):
    """One resource's objects, parsed once per resourceVersion; an object that does not
    parse is left out with a warning (the scheduler goes on)."""

    def __init__(
        self,
        lister: Lister[ApiObject],
        parse: Any,
        kind: str,
        on_put: Callable[[str, str, T | None], None] | None = None,
    ) -> None:
        """`on_put(key, uid, parsed)` hears of every change (parsed None: gone)."""
        self._parse, self._kind, self._on_put = parse, kind, on_put
        self.by_key: dict[str, T] = {}
        self.version = 0
        for obj in lister.list():
            self._put(obj)
        lister.subscribe(self._changed)

    def _changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        self.version += 1
        if new is None:
            if old is not None:
                self.by_key.pop(old.key, None)
                if self._on_put is not None:
                    self._on_put(old.key, old.uid, None)
            return
        self._put(new)

    def _put(self, obj: ApiObject) -> None:
        try:
            parsed = self.by_key[obj.key] = self._parse(obj)
        except (DRAObjectError, ValueError, TypeError, KeyError) as exc:
            self.by_key.pop(obj.key, None)
            if self._on_put is not None:
                self._on_put(obj.key, obj.uid, None)
            log.warning(
                f"Ignoring a {self._kind} that does not parse", extra=kv(object=obj.key, err=exc)
            )
            return
        if self._on_put is not None:
            self._on_put(obj.key, obj.uid, parsed)


class DraManager:
    """The parsed claims, classes, slices and taint rules; claims in flight and assumed."""

    def __init__(self, handle: Handle) -> None:
        self._allocated = AllocatedIndex()
        self.pending: dict[str, AllocationResult] = {}
        """Claim uid -> the allocation Reserve made, until PreBind wrote it or Unreserve."""
        self.assumed: dict[str, Claim] = {}
        """Claim key -> the claim as PreBind wrote it, until the informer has that version."""
        self.claims: Parsed[Claim] = Parsed(
            declared_lister(handle, CLAIMS),
            Claim.of,
            "ResourceClaim",
            self._claim_changed,
        )
        self.classes: Parsed[DeviceClass] = Parsed(
            declared_lister(handle, DEVICE_CLASSES),
            lambda obj: DeviceClass.from_json(object_json(obj)),
            "DeviceClass",
        )
        self.slices: Parsed[ResourceSlice] = Parsed(
            declared_lister(handle, SLICES),
            lambda obj: ResourceSlice.from_json(object_json(obj)),
            "ResourceSlice",
        )
        self.taint_rules: Parsed[DeviceTaintRule] = Parsed(
            declared_lister(handle, TAINT_RULES),
            lambda obj: DeviceTaintRule.from_json(object_json(obj)),
            "DeviceTaintRule",
        )
        self._slices_cache: tuple[int, int, list[ResourceSlice]] | None = None

    # ---- claims ------------------------------------------------------------------------

    def _claim_changed(self, key: str, uid: str, entry: Claim | None) -> None:
        """The informer's claim `key` is now `entry` (None: deleted or unparsable). PreBind's
        copy goes once the informer has that version or a later one, or the claim is gone
        (upstream's assume cache drops the object on delete): a claim deallocated and
        deleted before anything asked for it again would otherwise stay allocated here."""
        self._allocated.put(key, uid, None if entry is None else entry.claim)
        assumed = self.assumed.get(key)
        if assumed is not None and (
            entry is None
            or _newer_or_same(entry.obj.resource_version, assumed.obj.resource_version)
        ):
            del self.assumed[key]

    def claim(self, namespace: str, name: str) -> Claim | None:
        """The claim as the scheduler knows it: as last written by PreBind when the
        informer has not delivered that version yet."""
        key = f"{namespace}/{name}"
        seen = self.claims.by_key.get(key)
        assumed = self.assumed.get(key)
        if assumed is None:
            return seen
        if seen is not None and _newer_or_same(
            seen.obj.resource_version, assumed.obj.resource_version
        ):
            del self.assumed[key]
            return seen
        return assumed

    def assume(self, claim: Claim) -> None:
        """PreBind wrote `claim`: use it until the informer catches up."""
        self.assumed[claim.obj.key] = claim

    def all_claims(self) -> list[Claim]:
        keys = set(self.claims.by_key) | set(self.assumed)
        found = []
        for key in keys:
            namespace, _, name = key.partition("/")
            claim = self.claim(namespace, name)
            if claim is not None:
                found.append(claim)
        return found

    def allocated_state(self, *, consumable_capacity: bool = True) -> AllocatedState:
        """The devices in use: by allocated claims and by allocations in flight (upstream
        `GatherAllocatedState` / `ListAllAllocatedDevices`): the index of the informer's
        claims, corrected by the claims PreBind wrote since and the allocations in flight
        (the same state `gather_allocated_state` builds from every claim)."""
        index = self._allocated
        if not consumable_capacity or index.with_shares:
            return self.gather_allocated_state(consumable_capacity=consumable_capacity)
        overrides = self._overrides()
        changed: set[tuple[str, str]] = set()
        state = AllocatedState(
            allocated_devices=DevicesInUse(index.devices),
            pool_versions=dict(index.pool_versions),
            changed_pools=changed,
        )
        removed: Counter[DeviceID] = Counter()
        for key in overrides:
            removed.update(index.by_key.get(key, ()))
        for device, count in removed.items():
            changed.add((device.driver, device.pool))
            if index.devices[device] <= count:
                state.allocated_devices.discard(device)
        added = [
            entry.claim.allocation
            for entry in overrides.values()
            if entry.claim.allocation is not None
        ]
        by_uid = {entry.uid: entry for entry in overrides.values()}
        for uid, allocation in self.pending.items():
            owner = by_uid.get(uid) or self._seen_by_uid(uid, overrides)
            if owner is None or owner.claim.allocation is None:
                added.append(allocation)
        for allocation in added:
            add_allocated_claim(state, allocation.results)
            changed.update((result.driver, result.pool) for result in allocation.results)
        return state

    def _overrides(self) -> dict[str, Claim]:
        """Key -> the claim PreBind wrote, where it replaces the informer's."""
        overrides = {}
        for key in list(self.assumed):
            namespace, _, name = key.partition("/")
            effective = self.claim(namespace, name)
            if effective is not None and effective is not self.claims.by_key.get(key):
                overrides[key] = effective
        return overrides

    def _seen_by_uid(self, uid: str, overrides: dict[str, Claim]) -> Claim | None:
        """The informer's claim `uid`, unless a claim PreBind wrote replaces it."""
        key = self._allocated.uid_key.get(uid)
        if key is None or key in overrides:
            return None
        return self.claims.by_key.get(key)

    def gather_allocated_state(self, *, consumable_capacity: bool = True) -> AllocatedState:
        """The allocated state built from every claim (what `allocated_state` keeps)."""
        state = AllocatedState()
        known = set()
        for entry in self.all_claims():
            known.add(entry.uid)
            allocation = entry.claim.allocation or self.pending.get(entry.uid)
            if allocation is not None:
                add_allocated_claim(
                    state, allocation.results, consumable_capacity=consumable_capacity
                )
        for uid, allocation in self.pending.items():
            if uid not in known:
                add_allocated_claim(
                    state, allocation.results, consumable_capacity=consumable_capacity
                )
        return state

    # ---- classes and slices ------------------------------------------------------------

    def device_class(self, name: str) -> DeviceClass | None:
        return self.classes.by_key.get(name)

    def slices_with_taint_rules(self) -> list[ResourceSlice]:
        """Every slice, the DeviceTaintRules' taints added (cached until one changes)."""
        versions = (self.slices.version, self.taint_rules.version)
        cached = self._slices_cache
        if cached is not None and cached[:2] == versions:
            return cached[2]
        slices = sorted(self.slices.by_key.values(), key=lambda s: s.name)
        rules = sorted(self.taint_rules.by_key.values(), key=lambda r: r.name)
        patched = patched_slices(slices, rules)
        self._slices_cache = (*versions, patched)
        return patched


def _newer_or_same(seen: str, assumed: str) -> bool:
    try:
        return int(seen) >= int(assumed)
    except ValueError:
        return seen == assumed


_MANAGERS: weakref.WeakKeyDictionary[object, DraManager] = weakref.WeakKeyDictionary()


def shared_manager(handle: Handle) -> DraManager:
    """The manager of the claims lister `handle` serves (one per scheduler)."""
    lister = declared_lister(handle, CLAIMS)
    manager = _MANAGERS.get(lister)
    if manager is None:
        manager = DraManager(handle)
        _MANAGERS[lister] = manager
    return manager
