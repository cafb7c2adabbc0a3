"""The cyclic garbage collector's thresholds for the scheduler process.

Per pod, kubesched allocates a few hundred container objects (the watch events' decoded
JSON, the slim Pod, the cycle's lists and NodeInfo clones); with CPython's default
thresholds (700, 10, 10) that is a young-generation collection for nearly every pod and an
older one every few pods, each walking everything allocated since and not yet freed: 12 %
of kubesched's samples on SchedulingBasic at 5000 nodes (docs/performance.md). Almost all
of those objects are freed by reference counting anyway, so collecting less often loses
nothing but a little later freeing of the rare reference cycle.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 20)
"""Young generation every 50,000 net allocations (a few hundred pods), the middle one every
20 of those, the oldest one every 20 of those (and, as always, only when it has grown by a
quarter since its last collection)."""


def tune_collector() -> None:
    """Set `THRESHOLDS` (once, at process start: `kubesched run`)."""
    gc.set_threshold(*THRESHOLDS)
