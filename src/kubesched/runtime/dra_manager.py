"""The scheduler's shared DRA manager (upstream's `DefaultDRAManager`), what
`Handle.shared_dra_manager()` answers: the DRA objects parsed once per change, the claims
allocated in Reserve but not yet written (in flight), and the claims as PreBind wrote them
until the informer catches up (upstream's assume cache).

One per process: the composition root builds it over the informers' stores and gives it to
every profile's Handle, as upstream's scheduler builds one and passes it to every framework
(`WithSharedDRAManager`); a Handle built without one (explain's, the offline one, a test's)
builds its own over its listers on first use. Upstream keeps its default beside the plugin;
here the Handles below the plugins (the runtime's base, explain, the offline check) must be
able to make one, so it lives in the runtime and reads the declared stores directly.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from kubesched.dra.structured import AllocatedState, add_allocated_claim, patched_slices
from kubesched.dra.structured.allocated import AllocatedIndex, DevicesInUse
from kubesched.dra.structured.types import DeviceID
from kubesched.framework.dra import (
    DEVICE_CLASSES,
    DEVICE_TAINT_RULES,
    RESOURCE_CLAIMS,
    RESOURCE_SLICES,
    Claim,
    object_json,
)
from kubesched.framework.listers import ClusterListers, IndexedStore, Lister
from kubesched.framework.logkv import kv
from kubesched.framework.resources import ResourceSpec
from kubesched.model import ApiObject
from kubesched.model.dra import DRAObjectError, ResourceSlice
from kubesched.model.dra_claims import AllocationResult
from kubesched.model.dra_classes import DeviceClass, DeviceTaintRule

log = logging.getLogger(__name__)
T = TypeVar("T")


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
    """The parsed claims, classes, slices and taint rules; claims in flight and assumed
    (implements `kubesched.framework.dra.SharedDRAManager`)."""

    def __init__(self, listers: ClusterListers) -> None:
        """Over the stores of the DRA resources `listers` serve (an empty store for one no
        enabled plugin declared: nothing of it exists for the scheduler)."""
        self._allocated = AllocatedIndex()
        self.pending: dict[str, AllocationResult] = {}
        """Claim uid -> the allocation Reserve made, until PreBind wrote it or Unreserve."""
        self.sharers: dict[str, int] = {}
        """Claim uid -> how many pods reserved its allocation in flight (upstream
        `inFlightAllocation.sharers`: members of one pod group share a claim's)."""
        self.assumed: dict[str, Claim] = {}
        """Claim key -> the claim as PreBind wrote it, until the informer has that version."""
        self.claims: Parsed[Claim] = Parsed(
            _store(listers, RESOURCE_CLAIMS),
            Claim.of,
            "ResourceClaim",
            self._claim_changed,
        )
        self.classes: Parsed[DeviceClass] = Parsed(
            _store(listers, DEVICE_CLASSES),
            lambda obj: DeviceClass.from_json(object_json(obj)),
            "DeviceClass",
        )
        self.slices: Parsed[ResourceSlice] = Parsed(
            _store(listers, RESOURCE_SLICES),
            lambda obj: ResourceSlice.from_json(object_json(obj)),
            "ResourceSlice",
        )
        self.taint_rules: Parsed[DeviceTaintRule] = Parsed(
            _store(listers, DEVICE_TAINT_RULES),
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

    def restore_assumed(self, namespace: str, name: str) -> None:
        """Drop PreBind's copy of the claim: the informer's is the one again."""
        self.assumed.pop(f"{namespace}/{name}" if namespace else name, None)

    def signal_pending_allocation(self, uid: str, allocation: AllocationResult) -> None:
        """Reserve allocated claim `uid`: its devices are in use from now on; a claim
        already in flight gets one more sharer (its allocation stays the first one)."""
        if uid in self.pending:
            self.sharers[uid] = self.sharers.get(uid, 1) + 1
            return
        self.pending[uid] = allocation
        self.sharers[uid] = 1

    def has_pending_allocation(self, uid: str) -> bool:
        return uid in self.pending

    def pending_allocation(self, uid: str) -> AllocationResult | None:
        return self.pending.get(uid)

    def remove_pending_allocation(self, uid: str, *, force: bool = True) -> bool:
        """Forget claim `uid`'s allocation in flight (`force`, or its last sharer gone);
        whether it was forgotten."""
        if uid not in self.pending:
            return False
        left = self.sharers.get(uid, 1) - 1
        if force or left <= 0:
            del self.pending[uid]
            self.sharers.pop(uid, None)
            return True
        self.sharers[uid] = left
        return False

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

    def classes_version(self) -> int:
        return self.classes.version

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


def _store(listers: ClusterListers, spec: ResourceSpec) -> Lister[ApiObject]:
    """The store of a declared resource, or an empty one."""
    try:
        return listers.store(spec)
    except KeyError:
        return IndexedStore[ApiObject]()
