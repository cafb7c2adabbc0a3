"""Optional: a plugin that orders the queue fairly across groups of pods (teams, quotas).

A plugin opts in with a `fair_queueing()` method returning a `FairQueueing` (or None when
its config leaves it off). The composition root then partitions activeQ by the pods'
groups (`kubesched.queue.fair`): among the queue heads of the best head's priority, the
group with the lowest dominant share is served first; a pod whose group is None, and every
pod of a profile without such a plugin, keeps QueueSort order. Both methods are read at
each pop, so they must be cheap and must not change the cluster.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kubesched.model import Pod


@runtime_checkable
class FairQueueing(Protocol):
    """A pod's fairness group and a group's current dominant share."""

    def fairness_group(self, pod: Pod, /) -> str | None:
        """The pod's group (e.g. its quota), None for a pod outside every group."""
        ...

    def dominant_share(self, group: str, /) -> float:
        """The group's share now: 0 for an idle group, 1 at its guarantee, more beyond."""
        ...


@runtime_checkable
class FairQueueingPlugin(Protocol):
    """A plugin that may order the queue fairly; None: it leaves the order alone."""

    def fair_queueing(self) -> FairQueueing | None: ...
