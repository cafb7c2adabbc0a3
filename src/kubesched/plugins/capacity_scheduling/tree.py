"""ElasticQuota trees, read with Koordinator's labels and annotations on the same CRD.

* `quota.scheduling.koordinator.sh/parent: <name>` (label): the quota's parent, by the
  parent ElasticQuota's name; without it a quota hangs under the cluster (a top-level quota);
* `quota.scheduling.koordinator.sh/is-parent: "true"` (label): a quota that groups others;
  it holds no pods of its own (put it in a namespace of its own);
* `quota.scheduling.koordinator.sh/shared-weight` (annotation, a JSON ResourceList such as
  `{"nvidia.com/gpu": "3"}`): the weight by which the quota gets capacity beyond its `min`;
  by default its `max`, as in Koordinator.

A tree is in use as soon as one ElasticQuota carries one of these; without any, the plugin
is scheduler-plugins' CapacityScheduling unchanged.

Bad input never stops the cycle: a parent that does not exist or is not a parent quota, a
parent chain that loops back, a quota of two that share the parent's name: the quota is read
as a top-level quota, and one warning names it and the fix. A child whose `min` exceeds its
parent's is kept, and the parent's share is divided in proportion to the guarantees
(`share.divide`), with a warning too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubesched.model import ApiObject, Resource
from kubesched.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from kubesched.plugins.capacity_scheduling.quota import UPPER_BOUND_OF_MAX, QuotaInfo

PREFIX = "quota.scheduling.koordinator.sh"
PARENT_LABEL = f"{PREFIX}/parent"
IS_PARENT_LABEL = f"{PREFIX}/is-parent"
SHARED_WEIGHT_ANNOTATION = f"{PREFIX}/shared-weight"
ROOT = ""
"""The cluster: the parent of every top-level quota."""


def uses_tree(obj: ApiObject) -> bool:
    """Whether an ElasticQuota carries one of the tree's labels or annotations."""
    return (
        PARENT_LABEL in obj.labels
        or IS_PARENT_LABEL in obj.labels
        or SHARED_WEIGHT_ANNOTATION in obj.annotations
    )


def bound(limits: Resource, name: str, *, unbounded: int) -> int:
    """One resource of `min` or `max`; `unbounded` for an extended resource not named."""
    scalar = name not in (CPU, MEMORY, EPHEMERAL_STORAGE)
    if scalar and name not in limits.scalar:
        return unbounded
    return limits.get(name)


@dataclass(frozen=True, slots=True)
class TreeQuota:
    """One ElasticQuota as a node of the tree."""

    key: str
    """`namespace/name`."""
    name: str
    namespace: str
    parent: str
    is_parent: bool
    min: Resource
    max: Resource
    weight: Resource | None
    """The shared-weight annotation; None: the quota's `max`."""
    problem: str = ""
    """Why the annotation was not read ("" when it was)."""

    @classmethod
    def of(cls, obj: ApiObject) -> TreeQuota:
        info = QuotaInfo.from_object(obj)
        weight, problem = _weight(obj.annotations)
        return cls(
            key=obj.key,
            name=obj.name,
            namespace=obj.namespace,
            parent=obj.labels.get(PARENT_LABEL, ROOT),
            is_parent=obj.labels.get(IS_PARENT_LABEL) == "true",
            min=info.min,
            max=info.max,
            weight=weight,
            problem=problem,
        )

    def weight_of(self, name: str) -> int:
        if self.weight is not None:
            return self.weight.get(name)
        return bound(self.max, name, unbounded=UPPER_BOUND_OF_MAX)


def _weight(annotations: Mapping[str, str]) -> tuple[Resource | None, str]:
    text = annotations.get(SHARED_WEIGHT_ANNOTATION)
    if text is None:
        return None, ""
    try:
        parsed = json.loads(text)
        weight = Resource.from_list(parsed) if isinstance(parsed, dict) else None
    except (ValueError, TypeError) as error:
        return None, f"shared-weight annotation is not a JSON ResourceList ({error})"
    if weight is None:
        return None, "shared-weight annotation is not a JSON object"
    if not any(True for _ in weight.names()):
        return None, "shared-weight annotation names no resource"
    return weight, ""


@dataclass(slots=True)
class Forest:
    """The quotas by namespace, each under its parent (`ROOT` for top-level ones)."""

    quotas: dict[str, TreeQuota] = field(default_factory=dict)
    """By namespace."""
    parent_of: dict[str, str] = field(default_factory=dict)
    """Namespace -> the parent's namespace, or `ROOT`."""
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """(quota key, what is wrong and how to fix it)."""

    def children(self, parent: str) -> list[str]:
        return sorted(ns for ns, up in self.parent_of.items() if up == parent)


def build_forest(quotas: Iterable[TreeQuota]) -> Forest:
    """The tree of `quotas` (one per namespace), each bad link read as a top-level quota."""
    forest = Forest(quotas={quota.namespace: quota for quota in quotas})
    by_name: dict[str, list[TreeQuota]] = {}
    for quota in forest.quotas.values():
        by_name.setdefault(quota.name, []).append(quota)
        if quota.problem:
            forest.warnings.append((quota.key, f"{quota.problem}; its max is used as its weight"))
    for quota in sorted(forest.quotas.values(), key=lambda q: q.key):
        forest.parent_of[quota.namespace] = _link(quota, by_name, forest.warnings)
    _break_cycles(forest)
    _check_mins(forest)
    return forest


def _link(
    quota: TreeQuota, by_name: Mapping[str, list[TreeQuota]], warnings: list[tuple[str, str]]
) -> str:
    if quota.parent == ROOT:
        return ROOT
    found = sorted(by_name.get(quota.parent, []), key=lambda q: q.key)
    if not found:
        fix = f"create ElasticQuota {quota.parent} or fix the {PARENT_LABEL} label"
        warnings.append(
            (quota.key, f"parent {quota.parent} does not exist: read as top-level; {fix}")
        )
        return ROOT
    if len(found) > 1:
        keys = ", ".join(q.key for q in found)
        taken = f"parent name {quota.parent} is taken by {keys}: {found[0].key} is used"
        warnings.append((quota.key, f"{taken}; give each quota a unique name"))
    parent = found[0]
    if not parent.is_parent:
        fix = f'label {parent.key} {IS_PARENT_LABEL}="true"'
        warnings.append(
            (quota.key, f"parent {parent.key} is not a parent quota: read as top-level; {fix}")
        )
        return ROOT
    return parent.namespace


def _break_cycles(forest: Forest) -> None:
    for start in sorted(forest.parent_of):
        seen: list[str] = []
        node = start
        while node != ROOT and node not in seen:
            seen.append(node)
            node = forest.parent_of[node]
        if node == start:
            chain = " -> ".join(forest.quotas[ns].name for ns in [*seen, start])
            quota = forest.quotas[start]
            fix = f"remove the {PARENT_LABEL} label of one of them"
            forest.warnings.append(
                (quota.key, f"parent chain loops back ({chain}): read as top-level; {fix}")
            )
            forest.parent_of[start] = ROOT


def _check_mins(forest: Forest) -> None:
    for namespace, parent in sorted(forest.parent_of.items()):
        if parent == ROOT:
            continue
        child, up = forest.quotas[namespace], forest.quotas[parent]
        over = sorted(n for n in child.min.names() if child.min.get(n) > up.min.get(n))
        if over:
            fix = f"lower its min or raise {up.key}'s (guarantees are scaled down to fit)"
            forest.warnings.append(
                (child.key, f"min exceeds its parent's min in {','.join(over)}: {fix}")
            )
