"""Resource pools visible from a node (upstream incubating `pools_incubating.go`).

A pool is the slices of one driver and pool name at the newest generation. It is
incomplete while fewer slices than `resourceSliceCount` are seen (the driver is publishing
a new generation), invalid when device names repeat or counters are missing; neither
yields devices, and `All` mode refuses both. Pools are ordered by driver then pool name,
pools with binding conditions last, and slices by name: first-fit follows that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.dra.structured.types import AllocationError, Features
from kubesched.model import Node
from kubesched.model.dra import CounterSet, Device, ResourceSlice
from kubesched.model.nodeselector import compile_term, selector_matches

PoolID = tuple[str, str]
"""(driver, pool name)."""


@dataclass(slots=True)
class Pool:
    driver: str
    pool: str
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    slices_targeting_node: list[ResourceSlice] = field(default_factory=list)
    slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)

    @property
    def id(self) -> PoolID:
        return (self.driver, self.pool)

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}"


NodePredicate = Callable[[Node], bool]


def node_matches(
    node: Node | None, node_name: str, all_nodes: bool, selector: Mapping[str, Any] | None
) -> bool:
    """upstream `NodeMatches`: a node name, all nodes, or a node selector."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        matches = compile_node_selector(selector)
        return node is not None and matches(node)
    return False


def compile_node_selector(selector: Mapping[str, Any]) -> NodePredicate:
    """A node selector compiled once (upstream `nodeaffinity.NewNodeSelector`); an invalid
    term raises AllocationError. The selector an allocation of node-local devices carries
    (terms of one `metadata.name In [node]` field each) becomes a set of names."""
    names = _node_names(selector)
    if names is not None:
        return lambda node: node.name in names
    terms = []
    for raw in selector.get("nodeSelectorTerms") or ():
        term = compile_term(raw)
        if term is not None and term.error:
            raise AllocationError(f"failed to parse node selector: {term.error}")
        if term is not None:
            terms.append(term)
    return lambda node: selector_matches(terms, node)


def _node_names(selector: Mapping[str, Any]) -> frozenset[str] | None:
    """The node names a selector of only `metadata.name In [name]` terms allows, else None
    (such terms are valid and never empty: no term needs compiling)."""
    raw_terms = selector.get("nodeSelectorTerms") or ()
    if not raw_terms:
        return None
    names = set()
    for raw in raw_terms:
        fields: Sequence[Mapping[str, Any]] = raw.get("matchFields") or ()
        if raw.get("matchExpressions") or len(fields) != 1:
            return None
        field_ = fields[0]
        values: Sequence[Any] = field_.get("values") or ()
        if field_.get("key") != "metadata.name" or field_.get("operator") != "In":
            return None
        if len(values) != 1 or not isinstance(values[0], str):
            return None
        names.add(values[0])
    return frozenset(names)


def _uses_compatibility_groups(slice_: ResourceSlice) -> bool:
    return any(c.compatibility_groups for d in slice_.devices for c in d.consumes_counters)


def _relevant(slice_: ResourceSlice, node: Node) -> bool | None:
    """Whether the slice serves the node; None for a node selection kubesched does not know."""
    node_name, all_nodes = slice_.node_name or "", bool(slice_.all_nodes)
    if node_name or all_nodes or slice_.node_selector is not None:
        try:
            return node_matches(node, node_name, all_nodes, slice_.node_selector)
        except AllocationError as exc:
            raise AllocationError(
                f"failed to perform node selection for slice {slice_.name}: {exc}"
            ) from None
    if slice_.per_device_node_selection:
        for device in slice_.devices:
            try:
                if node_matches(
                    node, device.node_name or "", bool(device.all_nodes), device.node_selector
                ):
                    return True
            except AllocationError as exc:
                raise AllocationError(
                    f"failed to perform node selection for device {device.name} in slice "
                    f"{slice_.name}: {exc}"
                ) from None
        return False
    return None


def gather_pools(
    slices_for_node: Sequence[ResourceSlice],
    node: Node,
    features: Features,
    all_slices: Sequence[ResourceSlice],
) -> list[Pool]:
    pools: dict[PoolID, list[ResourceSlice]] = {}
    for slice_ in slices_for_node:
        if not features.partitionable_devices and (
            slice_.per_device_node_selection is not None or slice_.shared_counters
        ):
            continue
        if not features.compatibility_groups and _uses_compatibility_groups(slice_):
            continue
        if _relevant(slice_, node):
            _add_slice(pools, slice_)

    result: list[Pool] = []
    with_binding_conditions: list[Pool] = []
    for pool_id, slices in pools.items():
        generation, count = slices[0].pool.generation, slices[0].pool.resource_slice_count
        all_for_pool: list[ResourceSlice] | None = None
        if len(slices) != count:
            obsolete, all_for_pool = _slices_in_pool(all_slices, pool_id, generation)
            if obsolete:
                continue
            if not features.compatibility_groups:
                all_for_pool = [s for s in all_for_pool if not _uses_compatibility_groups(s)]
            if len(all_for_pool) != count:
                result.append(Pool(pool_id[0], pool_id[1], is_incomplete=True))
                continue
        pool = _build_pool(pool_id, slices, features, all_for_pool or [])
        (with_binding_conditions if _has_binding_conditions(pool) else result).append(pool)
    result.sort(key=lambda p: p.id)
    with_binding_conditions.sort(key=lambda p: p.id)
    return result + with_binding_conditions


def _add_slice(pools: dict[PoolID, list[ResourceSlice]], slice_: ResourceSlice) -> None:
    pool_id = (slice_.driver, slice_.pool.name)
    current = pools.get(pool_id)
    if current is None or slice_.pool.generation > current[0].pool.generation:
        pools[pool_id] = [slice_]
    elif slice_.pool.generation == current[0].pool.generation:
        current.append(slice_)


def _slices_in_pool(
    all_slices: Sequence[ResourceSlice], pool_id: PoolID, generation: int
) -> tuple[bool, list[ResourceSlice]]:
    """(a newer generation exists, the slices of this generation)."""
    found = []
    for slice_ in all_slices:
        if (slice_.driver, slice_.pool.name) != pool_id:
            continue
        if slice_.pool.generation > generation:
            return True, []
        if slice_.pool.generation == generation:
            found.append(slice_)
    return False, found


def _build_pool(
    pool_id: PoolID,
    slices: list[ResourceSlice],
    features: Features,
    all_for_pool: Sequence[ResourceSlice],
) -> Pool:
    device_slices, counter_slices, not_targeting = _split_slices(slices, features, all_for_pool)
    problem = _duplicate_device(device_slices)
    if problem or not features.partitionable_devices:
        return _pool(pool_id, problem, device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for slice_ in counter_slices:
        for counter_set in slice_.shared_counters:
            if counter_set.name in counter_sets:
                return _pool(pool_id, f"duplicate counter set name {counter_set.name}", [])
            counter_sets[counter_set.name] = counter_set
    problem = _counter_consumption_problem(counter_sets, device_slices)
    problem = problem or _counter_consumption_problem(counter_sets, not_targeting)
    if problem:
        return _pool(pool_id, problem, [])
    pool = _pool(pool_id, "", device_slices)
    pool.slices_not_targeting_node = not_targeting
    pool.counter_sets = counter_sets
    return pool


def _pool(pool_id: PoolID, problem: str, device_slices: list[ResourceSlice]) -> Pool:
    if problem:
        return Pool(pool_id[0], pool_id[1], is_invalid=True, invalid_reason=problem)
    return Pool(pool_id[0], pool_id[1], slices_targeting_node=device_slices)


def _split_slices(
    slices: list[ResourceSlice], features: Features, all_for_pool: Sequence[ResourceSlice]
) -> tuple[list[ResourceSlice], list[ResourceSlice], list[ResourceSlice]]:
    """(device slices for the node, counter-set slices, device slices for other nodes),
    slices by name."""
    device_slices: list[ResourceSlice] = []
    counter_slices: list[ResourceSlice] = []
    not_targeting: list[ResourceSlice] = []
    names = {s.name for s in slices}
    others = (
        [s for s in all_for_pool if s.name not in names] if len(slices) < len(all_for_pool) else []
    )
    for slice_, targeting in [
        *((s, True) for s in sorted(slices, key=lambda s: s.name)),
        *((s, False) for s in others),
    ]:
        if features.partitionable_devices and slice_.shared_counters:
            counter_slices.append(slice_)
        else:
            (device_slices if targeting else not_targeting).append(slice_)
    return device_slices, counter_slices, not_targeting


def _duplicate_device(device_slices: Sequence[ResourceSlice]) -> str:
    seen: set[str] = set()
    for slice_ in device_slices:
        for device in slice_.devices:
            if device.name in seen:
                return f"duplicate device name {device.name}"
            seen.add(device.name)
    return ""


def _counter_consumption_problem(
    counter_sets: Mapping[str, CounterSet], slices: Sequence[ResourceSlice]
) -> str:
    for slice_ in slices:
        for device in slice_.devices:
            for consumption in device.consumes_counters:
                counter_set = counter_sets.get(consumption.counter_set)
                if counter_set is None:
                    return f"counter set {consumption.counter_set} not found"
                for name in consumption.counters:
                    if name not in counter_set.counters:
                        return f"counter {name} not found in counter set {counter_set.name}"
    return ""


def _has_binding_conditions(pool: Pool) -> bool:
    return any(
        device.binding_conditions is not None
        for slice_ in pool.slices_targeting_node
        for device in slice_.devices
    )


def device_in(slice_: ResourceSlice, index: int) -> Device:
    return slice_.devices[index]
