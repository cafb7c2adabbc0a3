"""A synthetic trace: N nodes and M pods arriving over time, with some churn.

Written through `kubesched.replay.trace.TraceWriter`, so it is a trace like the ones
`kubesched record` writes (docs/replay.md, "What a trace holds"):

    t = 0          the namespace and N `node-default` nodes (4 CPU, 32Gi, 110 pods) in
                   three zones (LIST), then SYNCED
    t = i / rate   pod i is ADDED, from scheduler_perf's templates (`bench.templates`): out
                   of every 20, 14 `pod-default`, 2 required node affinity to zone1/zone2,
                   2 zone spreading (maxSkew 5), 2 preferred pod affinity per host
    churn          every `delete_every`-th pod is DELETED `lifetime` seconds after it came;
                   one node is added at a third of the arrivals, and one node is drained at
                   two thirds (cordoned: `spec.unschedulable`, then DELETED 10 s later)
    END            `tail` seconds after the last pod (time for the last ones to bind)

The trace holds no BOUND record: nothing recorded a decision, so a replay's "vs trace"
rows count its pods as placed by the replay only. The same arguments write the same trace.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched.bench import templates
from kubesched.replay import trace

NAMESPACE = "synthetic"
SCHEDULER = "default-scheduler"
ZONES = ("zone1", "zone2", "zone3")
CREATED = "2026-01-01T00:00:00Z"
DRAIN_GRACE = 10.0
"""Seconds between a drained node's cordon and its deletion."""
_MIX = (
    (templates.pod_default,) * 14
    + (templates.pod_with_node_affinity,) * 2
    + (templates.pod_with_topology_spreading,) * 2
    + (templates.pod_with_preferred_pod_affinity,) * 2
)


@dataclass(frozen=True, slots=True)
class Shape:
    """What the synthetic trace holds."""

    nodes: int
    pods: int
    rate: float = 100.0
    """Pods created per second of the trace."""
    delete_every: int = 10
    """Every this many pods, one is deleted after `lifetime` (0: no deletions)."""
    lifetime: float = 30.0
    tail: float = 30.0
    """Seconds between the last pod's creation and the trace's END."""


def write_synthetic(path: Path, shape: Shape) -> trace.Header:
    """Write the trace of `shape` to `path`."""
    header = trace.Header(
        version=trace.VERSION,
        kubesched="synthetic",
        started=CREATED,
        server="synthetic",
        kinds=("nodes", "pods", "namespaces"),
    )
    writer = trace.TraceWriter(path, header)
    for record in records(shape):
        writer.write(record)
    writer.close(t=end_time(shape), reason="duration")
    return header


def end_time(shape: Shape) -> float:
    """The trace's END time."""
    return round(max(shape.pods - 1, 0) / shape.rate + shape.tail, 3)


def records(shape: Shape) -> Iterator[dict[str, Any]]:
    """Every record of the trace, in time order."""
    yield _record(0.0, trace.LIST, "namespaces", _namespace())
    for index in range(shape.nodes):
        yield _record(0.0, trace.LIST, "nodes", _node(f"node-{index}", index))
    yield {"t": 0.0, "op": trace.SYNCED}
    yield from _timeline(shape)


def _timeline(shape: Shape) -> Iterator[dict[str, Any]]:
    """Pod arrivals merged with the deletions and node churn they schedule."""
    later: list[tuple[float, int, dict[str, Any]]] = []
    order = 0
    for index in range(shape.pods):
        now = round(index / shape.rate, 3)
        while later and later[0][0] <= now:
            yield heapq.heappop(later)[2]
        pod = _pod(index)
        yield _record(now, trace.ADDED, "pods", pod)
        if shape.delete_every and index % shape.delete_every == shape.delete_every - 1:
            order += 1
            gone = _record(now + shape.lifetime, trace.DELETED, "pods", pod)
            heapq.heappush(later, (gone["t"], order, gone))
        for event in _node_churn(shape, index, now):
            order += 1
            heapq.heappush(later, (event["t"], order, event))
    end = end_time(shape)
    while later and later[0][0] < end:
        yield heapq.heappop(later)[2]


def _node_churn(shape: Shape, index: int, now: float) -> list[dict[str, Any]]:
    """The node added at a third of the arrivals; the node drained at two thirds."""
    if index == shape.pods // 3:
        return [_record(now, trace.ADDED, "nodes", _node("node-added", shape.nodes))]
    if index == 2 * shape.pods // 3 and shape.nodes > 1:
        cordoned = _node("node-0", 0)
        cordoned["spec"]["unschedulable"] = True
        return [
            _record(now, trace.MODIFIED, "nodes", cordoned),
            _record(round(now + DRAIN_GRACE, 3), trace.DELETED, "nodes", cordoned),
        ]
    return []


def _record(t: float, op: str, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    return {"t": t, "op": op, "kind": kind, "object": obj}


def _namespace() -> dict[str, Any]:
    metadata = {"name": NAMESPACE, "uid": "ns-synthetic", "creationTimestamp": CREATED}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}


def _node(name: str, index: int) -> dict[str, Any]:
    node = templates.node_default(name, {templates.ZONE: ZONES[index % len(ZONES)]})
    node["metadata"].update(uid=f"node-uid-{name}", creationTimestamp=CREATED)
    return node


def _pod(index: int) -> dict[str, Any]:
    pod = _MIX[index % len(_MIX)](f"pod-{index}", NAMESPACE, SCHEDULER)
    pod["metadata"].update(uid=f"pod-uid-{index}", creationTimestamp=CREATED)
    return pod
