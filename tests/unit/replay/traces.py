"""Synthetic traces for the replay tests: nodes and pods written as `kubesched record`
writes them (through `TraceWriter`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kubesched.replay import trace
from kubesched.testing.builders import make_node, make_pod

HEADER = trace.Header(
    version=trace.VERSION,
    kubesched="test",
    started="2026-01-01T00:00:00Z",
    server="v1.37.2",
    kinds=("nodes", "pods", "namespaces"),
)


def write(path: Path, records: Iterable[Mapping[str, Any]], *, end: float) -> Path:
    """A complete trace of `records` ending at `end`."""
    writer = trace.TraceWriter(path, HEADER)
    for record in records:
        writer.write(record)
    writer.close(t=end, reason="duration")
    return path


def listed(kind: str, obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"t": 0.0, "op": trace.LIST, "kind": kind, "object": obj}


def at(t: float, op: str, kind: str, obj: Mapping[str, Any]) -> dict[str, Any]:
    return {"t": t, "op": op, "kind": kind, "object": obj}


def nodes(count: int) -> list[dict[str, Any]]:
    """`count` nodes of distinct sizes, in four zones."""
    return [
        make_node()
        .name(f"node-{i}")
        .capacity(cpu=str(4 + i % 7), memory=f"{16 + 2 * (i % 5)}Gi")
        .label("topology.kubernetes.io/zone", f"zone-{i % 4}")
        .obj()
        for i in range(count)
    ]


def pods(count: int, *, scheduler: str = "default-scheduler") -> list[dict[str, Any]]:
    """`count` pending pods with varied requests; every fifth spreads over zones."""
    made = []
    for i in range(count):
        builder = (
            make_pod()
            .name(f"p-{i}")
            .namespace("work")
            .scheduler(scheduler)
            .label("app", f"app-{i % 3}")
            .req(cpu=f"{100 + 50 * (i % 9)}m", memory=f"{256 * (1 + i % 4)}Mi")
        )
        if i % 5 == 0:
            builder = builder.spread_constraint(
                1, "topology.kubernetes.io/zone", match_labels={"app": f"app-{i % 3}"}
            )
        made.append(builder.obj())
    return made
