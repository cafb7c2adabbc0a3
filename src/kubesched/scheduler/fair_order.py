"""The queue's fair order across groups, from the profiles' plugins that opt in
(`kubesched.framework.fair_queueing`): a pod's group is (its profile, the group its
profile's plugin names), read when the pod enters activeQ and again while it heads its
heap (`queue.fair`); a group's share is read at each pop. None when no profile's plugin
opts in: the queue then keeps QueueSort order alone.

A plugin that raises is read as naming no group (the pod keeps QueueSort order) or as a
share of 0, and logged once per profile with the traceback, as the framework treats a
plugin's error: the queue never stops for it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Hashable, Iterator, Mapping

from kubesched.framework.fair_queueing import FairQueueing, FairQueueingPlugin
from kubesched.framework.logkv import kv
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.model import Pod
from kubesched.queue.fair import FairOrder
from kubesched.runtime import Framework

log = logging.getLogger(__name__)


def fair_order(frameworks: Mapping[str, Framework]) -> FairOrder | None:
    """The queue's `FairOrder`, or None when no profile orders its queue fairly."""
    sources: dict[str, FairQueueing] = {}
    for profile, framework in frameworks.items():
        for plugin in _plugins(framework):
            if isinstance(plugin, FairQueueingPlugin):
                source = plugin.fair_queueing()
                if source is not None:
                    sources[profile] = source
                    break
    if not sources:
        return None
    return _Order(sources).as_fair_order()


class _Order:
    """The callables of the `FairOrder`, over each profile's source."""

    def __init__(self, sources: Mapping[str, FairQueueing]) -> None:
        self._sources = dict(sources)
        self._logged: set[str] = set()

    def as_fair_order(self) -> FairOrder:
        return FairOrder(group_of=self.group_of, share_of=self.share_of)

    def group_of(self, pod: Pod) -> Hashable | None:
        source = self._sources.get(pod.scheduler_name)
        if source is None:
            return None
        try:
            group = source.fairness_group(pod)
        except PLUGIN_ERRORS as error:
            self._log(pod.scheduler_name, error)
            return None
        return None if group is None else (pod.scheduler_name, group)

    def share_of(self, group: Hashable) -> float:
        assert isinstance(group, tuple)
        profile, name = group
        try:
            return float(self._sources[profile].dominant_share(name))
        except PLUGIN_ERRORS as error:
            self._log(profile, error)
            return 0.0

    def _log(self, profile: str, error: BaseException) -> None:
        if profile not in self._logged:
            self._logged.add(profile)
            log.error(
                "fair queueing failed; reading no group", exc_info=error, extra=kv(profile=profile)
            )


def _plugins(framework: Framework) -> Iterator[object]:
    """Each plugin of the profile once, in extension-point order."""
    seen: set[int] = set()
    for point in dataclasses.fields(framework.plugins):
        for plugin in getattr(framework.plugins, point.name):
            if id(plugin) not in seen:
                seen.add(id(plugin))
                yield plugin
