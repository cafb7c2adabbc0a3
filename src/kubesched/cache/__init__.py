"""The scheduler cache (assume/confirm/forget over NodeInfos) and per-cycle snapshots.

cache = SchedulerCache()
snapshot = Snapshot()
cache.update_snapshot(snapshot)          # each cycle: re-clones only changed nodes
assumed = cache.assume_pod(pod, "node-1")
cache.forget_pod(assumed)                # binding failed
"""

from kubesched.cache.cache import CacheError, PodState, SchedulerCache
from kubesched.cache.debug import CacheDiff
from kubesched.cache.nodetree import NodeTree, zone_key
from kubesched.cache.snapshot import Snapshot

__all__ = [
    "CacheDiff",
    "CacheError",
    "NodeTree",
    "PodState",
    "SchedulerCache",
    "Snapshot",
    "zone_key",
]
