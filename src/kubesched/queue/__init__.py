"""The scheduling queue: activeQ (QueueSort order), backoffQ, unschedulable pool, gated pods.

queue = SchedulingQueue(less=priority_sort_less, pre_enqueue=run_pre_enqueue)
queue.start()                      # backoff flush every 1 s, leftover flush every 30 s
qpi = await queue.pop()            # None once closed
cycle = queue.scheduling_cycle
...                                # on failure:
queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=cycle)
"""

from kubesched.queue.nominator import Nominator
from kubesched.queue.scheduling_queue import SchedulingQueue
from kubesched.queue.types import (
    ACTIVE,
    BACKOFF,
    GATED,
    UNSCHEDULABLE,
    QueuedPodInfo,
    QueueingStrategy,
    RequeueFunc,
    always_after_backoff,
    event_label,
    spec_changed,
)

__all__ = [
    "ACTIVE",
    "BACKOFF",
    "GATED",
    "UNSCHEDULABLE",
    "Nominator",
    "QueuedPodInfo",
    "QueueingStrategy",
    "RequeueFunc",
    "SchedulingQueue",
    "always_after_backoff",
    "event_label",
    "spec_changed",
]
