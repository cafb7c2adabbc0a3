"""`GET /debug/waitingpods`: the pods this replica holds at Permit right now (read-only JSON,
`kubesched.apis.waitingpods`), behind the same delegated authn/authz as /metrics.

Members of a gang waiting for their siblings live only in the leader's memory; this is how
`kubesched explain --scheduler-url` shows them. A standby answers `"leading": false` and no
items.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

from kubesched.apis.waitingpods import WaitingPodList, WaitingPodRecord, encode
from kubesched.framework import WaitingPod, WaitingPods


def waiting_pods_document(
    waiting: WaitingPods,
    *,
    leading: Callable[[], bool],
    loop_time: Callable[[], float] | None = None,
    wall_time: Callable[[], float] = time.time,
) -> str:
    """The document, oldest waiter first; the loop's clock is turned into wall-clock time."""
    now_loop = (loop_time or asyncio.get_running_loop().time)()
    now = wall_time()
    items = sorted(waiting, key=lambda w: (w.since, w.pod.key))
    listed = WaitingPodList(
        leading=leading(),
        observed_at=now,
        items=tuple(_record(w, offset=now - now_loop) for w in items),
    )
    return json.dumps(encode(listed))


def _record(waiting: WaitingPod, *, offset: float) -> WaitingPodRecord:
    pod = waiting.pod
    return WaitingPodRecord(
        namespace=pod.namespace,
        name=pod.name,
        uid=pod.uid,
        scheduler_name=pod.scheduler_name,
        node=waiting.node_name,
        plugins=tuple(waiting.pending_plugins),
        since=waiting.since + offset,
        deadline=waiting.deadline + offset,
    )
