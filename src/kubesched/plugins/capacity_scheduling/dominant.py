"""Each quota's dominant-resource share, by which the queue serves quotas fairly when
`fairQueueing` is on (Volcano's proportion plugin orders its queues by the same share of
allocated to deserved).

The dominant share of a namespace's quota is the largest, over the resources its `min`
names (`spec.min`'s keys, zero amounts included), of `used / guaranteed`, where `used` is
what its pods are charged now (bound, assumed or reserved: the quota book's totals, as
PreFilter counts them) and `guaranteed` is the `min` amount, or, while a quota tree is in
use, the quota's runtime share (of the last PreFilter; its `min` before any). For one
resource: `used / guaranteed` when `guaranteed > 0`; 0 when nothing is guaranteed and
nothing used; infinite when something is used of a resource guaranteed 0 (all of it is
borrowed). A quota whose `min` names no resource (or that has no `min`) guarantees nothing:
0 while its pods use nothing, else infinite. So 0 is idle, 1 is at its guarantee, above 1
borrows; the queue serves the lowest first among pods of equal priority.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from kubesched.model import ApiObject, Pod, Resource
from kubesched.plugins.capacity_scheduling.core import QuotaBook
from kubesched.plugins.capacity_scheduling.fair import FairShare
from kubesched.plugins.capacity_scheduling.tree import IS_PARENT_LABEL


def dominant_share(named: Iterable[str], guaranteed: Resource, used: Resource) -> float:
    """The dominant share over the resources `named` (module docstring)."""
    names = list(named)
    if not names:
        idle = not any(True for _ in used.names()) and used.allowed_pods == 0
        return 0.0 if idle else math.inf
    return max(_ratio(used.get(name), guaranteed.get(name)) for name in names)


def _ratio(used: int, guaranteed: int) -> float:
    if guaranteed > 0:
        return used / guaranteed
    return 0.0 if used <= 0 else math.inf


def share_line(share: float) -> str:
    """`kubesched explain`'s line for the pod's quota with `fairQueueing` on."""
    shown = "infinite" if math.isinf(share) else f"{share:.2f}"
    return (
        f"  fair queueing: the quota's dominant share is {shown} (among pods of equal "
        "priority, the quota with the lowest is served first)"
    )


def share_json(share: float) -> float | str:
    """The share for `-o json`: a number, or "+Inf" (JSON has no infinity)."""
    return "+Inf" if math.isinf(share) else share


class QuotaFairness:
    """CapacityScheduling's `FairQueueing`: a pod's group is its namespace's quota. Keeps,
    from the ElasticQuota lister (`quota_changed`, as `QuotaBook` keeps the first quota of
    a namespace), the resources each `min` names and which quotas are a tree's parents."""

    def __init__(self, book: QuotaBook, fair: FairShare) -> None:
        self._book = book
        self._fair = fair
        self._named: dict[str, tuple[str, ...]] = {}
        self._parents: set[str] = set()

    def quota_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """The ElasticQuota lister's listener."""
        if new is None:
            if old is not None:
                self._named.pop(old.namespace, None)
                self._parents.discard(old.namespace)
            return
        if old is None and new.namespace in self._named:
            return  # a second quota in the namespace: the first one governs
        minimum = new.spec.get("min")
        self._named[new.namespace] = tuple(minimum) if isinstance(minimum, Mapping) else ()
        if new.labels.get(IS_PARENT_LABEL) == "true":
            self._parents.add(new.namespace)
        else:
            self._parents.discard(new.namespace)

    def fairness_group(self, pod: Pod) -> str | None:
        """The pod's namespace when a quota governs it (not a tree's parent quota, whose
        namespace's pods count against none), else None."""
        namespace = pod.namespace
        if namespace not in self._book.infos:
            return None
        if namespace in self._parents and self._fair.active:
            return None
        return namespace

    def dominant_share(self, group: str) -> float:
        """The dominant share of the quota of namespace `group` now (0 once it is gone)."""
        info = self._book.infos.get(group)
        if info is None:
            return 0.0
        runtime = self._fair.runtime_of(group) if self._fair.active else None
        guaranteed = info.min if runtime is None else runtime
        return dominant_share(self._named.get(group, ()), guaranteed, info.used)
