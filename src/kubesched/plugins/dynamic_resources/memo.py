"""Allocations remembered per node across scheduling cycles, for claims of the same spec.

`Allocator.allocate(node, claims)` is a function of the node, the node's pools (its
slices and the pools' other slices), the device classes, the claims' specs (requests,
constraints, config: never their names, except in error texts) and which devices of those
pools are allocated. Pods made from one ResourceClaimTemplate ask the same thing of every
node; while none of those inputs changed, the answer (the results, or None: does not fit)
is the one computed before. The memo keys an answer by exactly those inputs:

- per node, the node object and its pools (`Allocator.pools_cache`, kept while the node
  object and the list of slices are the same ones);
- the claims' specs;
- per pool of the node, the allocated state's number for the pool's allocated devices
  (`AllocatedState.pool_versions`, kept by the manager's index of the informer's claims),
  or, for pools with claims in flight or just written, one bit per device: allocated or
  not (one bit per device for every pool when the state was gathered from all claims);
- dropped whole when the slices list or the classes' version changes.

A node keeps at most `MAX_ENTRIES_PER_NODE` answers (then forgets them all): the
allocated state in the keys moves on with every claim allocated or freed, and the answers
for the states gone by are never asked for again.

Never remembered: errors (their texts name the claim), and anything while devices can be
shared (consumable capacity: shares carry a fresh share id each time) or allocated state
holds shares or consumed capacity.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from kubesched.dra.structured.allocator import Allocator
from kubesched.dra.structured.pools import Pool
from kubesched.dra.structured.types import DeviceID
from kubesched.model import Node
from kubesched.model.dra_claims import AllocationResult, ResourceClaim

Answer = list[AllocationResult] | None
PoolDevices = tuple[tuple[tuple[str, str], tuple[DeviceID, ...]], ...]
"""Per pool of a node: its (driver, pool name) and its devices."""
MAX_ENTRIES_PER_NODE = 32
"""A node's answers are forgotten when it holds this many (bounds the memory: keys hold the
allocated state, which changes with every claim allocated or freed, so the answers for
states gone by would otherwise pile up with every pod ever placed)."""
MAX_SPECS = 4096
"""The memo is emptied when it knows this many distinct claim specs."""


class AllocationMemo:
    def __init__(self) -> None:
        self._base: tuple[object, int] | None = None
        self._entries: dict[str, tuple[Node, dict[Hashable, Answer]]] = {}
        """Node name -> (the node object, its answers by key)."""
        self._devices: dict[str, tuple[object, PoolDevices | None]] = {}
        """Node name -> (its pools, the devices of each; None: some can be shared)."""
        self._specs: dict[Hashable, int] = {}
        """The claims' specs seen -> a small number standing for them in the keys."""
        self._last: tuple[tuple[ResourceClaim, ...], int | None] | None = None
        """The claims last asked about and their specs' number: a cycle asks about the
        same claims on every node, and hashing their specs is most of a key's cost."""

    def begin(self, slices: Sequence[object], classes_version: int) -> None:
        """A cycle over `slices` and the classes at `classes_version` starts."""
        base = self._base
        if base is None or base[0] is not slices or base[1] != classes_version:
            self._base = (slices, classes_version)
            self._clear()

    def _clear(self) -> None:
        self._entries.clear()
        self._devices.clear()
        self._specs.clear()
        self._last = None

    def key(self, allocator: Allocator, node: Node, claims: Sequence[ResourceClaim]) -> Hashable:
        """The answer's inputs (None: not to be remembered)."""
        state = allocator.allocated_state
        cache = allocator.pools_cache
        if cache is None or state.aggregated_capacity or state.allocated_shared_device_ids:
            return None
        known = cache.get(node.name)
        if known is None or known[0] is not node:
            return None
        pools = self._pool_devices(node.name, known[1])
        if pools is None:
            return None
        specs = self._specs_number(claims)
        if specs is None:
            return None
        allocated = state.allocated_devices
        versions = state.pool_versions
        if versions is None:  # "bits", "pools": a bit and a number are equal keys in Python
            return (specs, "bits", tuple([d in allocated for _, devices in pools for d in devices]))
        changed = state.changed_pools
        return (
            specs,
            "pools",
            tuple(
                [
                    tuple([d in allocated for d in devices])
                    if pool in changed
                    else versions.get(pool, 0)
                    for pool, devices in pools
                ]
            ),
        )

    def _specs_number(self, claims: Sequence[ResourceClaim]) -> int | None:
        """The number standing for the claims' specs (None: a spec holding a mapping, such
        as capacity requests or opaque config, which cannot be a key)."""
        last = self._last
        if (
            last is not None
            and len(last[0]) == len(claims)
            and all(a is b for a, b in zip(last[0], claims, strict=True))
        ):
            return last[1]
        specs = tuple((c.requests, c.constraints, c.config) for c in claims)
        if len(self._specs) >= MAX_SPECS:
            self._clear()  # the numbers start again, with no answer keyed by an old one
        try:
            number: int | None = self._specs.setdefault(specs, len(self._specs))
        except TypeError:
            number = None
        self._last = (tuple(claims), number)
        return number

    def _pool_devices(self, node: str, pools: list[Pool]) -> PoolDevices | None:
        known = self._devices.get(node)
        if known is not None and known[0] is pools:
            return known[1]
        found: PoolDevices | None = tuple(
            (
                pool.id,
                tuple(
                    DeviceID(pool.driver, pool.pool, device.name)
                    for slice_ in (*pool.slices_targeting_node, *pool.slices_not_targeting_node)
                    for device in slice_.devices
                ),
            )
            for pool in pools
        )
        shareable = any(
            device.allow_multiple_allocations
            for pool in pools
            for slice_ in (*pool.slices_targeting_node, *pool.slices_not_targeting_node)
            for device in slice_.devices
        )
        if shareable:
            found = None
        self._devices[node] = (pools, found)
        return found

    def get(self, node: Node, key: Hashable) -> tuple[bool, Answer]:
        """(found, answer)."""
        known = self._entries.get(node.name)
        if known is None or known[0] is not node:
            return False, None
        answers = known[1]
        if key not in answers:
            return False, None
        return True, answers[key]

    def put(self, node: Node, key: Hashable, answer: Answer) -> None:
        known = self._entries.get(node.name)
        if known is None or known[0] is not node:
            known = self._entries[node.name] = (node, {})
        answers = known[1]
        if len(answers) >= MAX_ENTRIES_PER_NODE:
            answers.clear()
        answers[key] = answer

    def allocate(
        self,
        allocator: Allocator,
        node: Node,
        claims: list[ResourceClaim],
        deadline: float | None,
    ) -> Answer:
        """The allocator's answer, or the one it gave before for the same inputs."""
        key = self.key(allocator, node, claims)
        if key is not None:
            found, answer = self.get(node, key)
            if found:
                return None if answer is None else list(answer)
        answer = allocator.allocate(node, claims, deadline=deadline)
        key = key if key is not None else self.key(allocator, node, claims)
        if key is not None:
            self.put(node, key, None if answer is None else list(answer))
        return answer
