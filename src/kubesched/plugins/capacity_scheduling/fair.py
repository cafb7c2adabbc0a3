"""The quota tree as the plugin keeps it: the ElasticQuotas by namespace (as `QuotaBook`
keeps them: the first one of a namespace), the pods' demand, and the forest rebuilt when a
quota changes, its warnings logged once each.

`FairShare.effective(...)` is what PreFilter reads when a tree is in use: the quotas with
their runtime shares as `min` and `max` (`runtime.effective_infos`); None when no quota
carries the tree's labels (scheduler-plugins' rules then apply unchanged).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

from kubesched.framework import NodeInfo
from kubesched.framework.logkv import kv
from kubesched.model import ApiObject, Pod, Resource
from kubesched.plugins.capacity_scheduling.core import PreFilterState
from kubesched.plugins.capacity_scheduling.problems import QUOTA_TREE_INVALID, QuotaProblems
from kubesched.plugins.capacity_scheduling.quota import QuotaInfos, pod_request
from kubesched.plugins.capacity_scheduling.runtime import (
    Demand,
    allocatable,
    effective_infos,
    runtimes,
)
from kubesched.plugins.capacity_scheduling.tree import Forest, TreeQuota, build_forest, uses_tree

log = logging.getLogger(__name__)


class FairShare:
    """The quota tree, its demand, and the runtime shares of the last cycle."""

    def __init__(
        self, usage: Callable[[Pod], Resource] = pod_request, problems: QuotaProblems | None = None
    ) -> None:
        """`problems`: where the tree's problems are reported (an Event on each quota in
        question, `problems.QUOTA_TREE_INVALID`)."""
        self._objects: dict[str, ApiObject] = {}
        self._forest: Forest | None = None
        self.problems = problems if problems is not None else QuotaProblems()
        self._reported = False
        """Whether tree problems were reported (to forget them once no tree is in use)."""
        self.demand = Demand(usage)
        self.shares: dict[str, Resource] = {}
        """The runtime shares computed last, by namespace (for metrics and explain)."""

    def quota_changed(self, old: ApiObject | None, new: ApiObject | None) -> None:
        """The ElasticQuota lister's listener (mirrors `QuotaBook.quota_changed`)."""
        if new is None:
            if old is not None:
                self._objects.pop(old.namespace, None)
        elif old is None:
            self._objects.setdefault(new.namespace, new)
        else:
            self._objects[new.namespace] = new
        self._forest = None

    @property
    def active(self) -> bool:
        """Whether some ElasticQuota carries the tree's labels or annotations."""
        return any(uses_tree(obj) for obj in self._objects.values())

    def forest(self) -> Forest:
        """The tree (rebuilt after a quota changed; new problems logged and reported)."""
        if self._forest is None:
            self._forest = build_forest(TreeQuota.of(obj) for obj in self._objects.values())
            self._report(self._forest.warnings)
        return self._forest

    def _report(self, warnings: Sequence[tuple[str, str]]) -> None:
        by_key = {obj.key: obj for obj in self._objects.values()}
        found = [(by_key[key], f"ElasticQuota tree: {problem}") for key, problem in warnings]
        for quota, note in self.problems.update(QUOTA_TREE_INVALID, found):
            log.warning(note, extra=kv(elasticQuota=quota.key))
        self._reported = bool(found)

    def effective(
        self, infos: QuotaInfos, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> QuotaInfos | None:
        """The quotas held to their runtime shares, or None without a tree."""
        if not self.active:
            self.shares = {}
            if self._reported:  # the tree is gone, and its problems with it
                self._report(())
            return None
        forest = self.forest()
        demand = self.demand.by_namespace(including=pod)
        total = allocatable(node.allocatable for node in nodes)
        self.shares = runtimes(forest, demand, total)
        return effective_infos(infos, forest, self.shares)

    def quota_name(self, namespace: str) -> str:
        """The name of the ElasticQuota that governs a namespace ("" when none)."""
        obj = self._objects.get(namespace)
        return "" if obj is None else obj.name

    def runtime_of(self, namespace: str) -> Resource | None:
        """The runtime share last computed for a namespace's quota."""
        return self.shares.get(namespace)

    def parents(self) -> Mapping[str, str]:
        """Namespace -> the parent quota's namespace ("" for top-level quotas)."""
        return dict(self.forest().parent_of) if self.active else {}


MORE_THAN_MAX = "is more than Max"


def share_refusal(pod: Pod, raw: QuotaInfos, state: PreFilterState, refusal: str) -> str:
    """PreFilter's refusal in a tree: a quota held to its runtime share below its own `max`
    says so (`... ElasticQuota <ns> is more than its runtime share`)."""
    info = raw.get(pod.namespace)
    if not refusal.endswith(MORE_THAN_MAX) or info is None:
        return refusal
    if info.used_over_max_with(state.in_quota_with_pod):
        return refusal
    return refusal.removesuffix(MORE_THAN_MAX) + "is more than its runtime share"
