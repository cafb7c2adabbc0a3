"""A benchmark workload from a recorded trace (`kubesched bench --trace FILE`).

So that a team benchmarks both schedulers on its own cluster's history, not only on
scheduler_perf's templates. From the trace's records, in order (docs/replay.md, "Benchmark
a trace"):

    nodes         every node the trace lists or adds, created before the contender starts
                  (later changes and deletions of nodes are not replayed)
    initial pods  every pod first seen already bound (placed before the recording, or by
                  another scheduler): created bound to its recorded node, before measuring
    measured      every pod first seen without a node, for the contender (its
                  `schedulerName` replaced), created at its recorded time relative to the
                  first one (`Workload.arrivals`), or as fast as `--create-rate` allows
    PriorityClasses  the trace's, so that pods naming one are admitted

A pod is created in the benchmark's namespace (`bench-trace-init` or `bench-trace`, the
benchmark follows one namespace) under a fresh name; its recorded `namespace/name` is kept
in the annotation `kubesched.io/recorded-pod`. Deletions are not replayed (the benchmark
counts a deleted measured pod as a violation), nor the other kinds a trace holds (claims,
volumes, controllers): a pod that needs them does not get scheduled, and the run says so.
The record reading (`kubesched.replay.trace`) is the caller's; this module takes plain
records.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.bench.templates import PodTemplate
from kubesched.bench.workloads import PodGroup, Workload
from kubesched.errors import FatalError

TRACE_NS = "bench-trace"
TRACE_INIT_NS = "bench-trace-init"
RECORDED_POD = "kubesched.io/recorded-pod"
_POD_SPEC_DROP = ("nodeName", "nominatedNodeName", "priority", "preemptionPolicy")
"""What a created pod loses: its node (unless it was bound), and what the Priority admission
plugin sets from the PriorityClass (it refuses a pod that brings its own)."""
_NODE_META_KEEP = ("name", "labels", "annotations")


class TraceWorkloadError(FatalError, ValueError):
    """The trace has nothing to benchmark (no node, or no pod left for a scheduler)."""


@dataclass(slots=True)
class _Collected:
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    bound: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    priorities: dict[str, int] = field(default_factory=dict)


def trace_workload(records: Iterable[Mapping[str, Any]], *, name: str) -> Workload:
    """The workload of a trace's records (`Trace.records()`); `TraceWorkloadError` (one
    line) when it has no node or no pod to schedule."""
    collected = _Collected()
    for record in records:
        if record.get("op") in ("LIST", "ADDED"):
            _collect(collected, str(record.get("kind", "")), record)
    if not collected.nodes:
        raise TraceWorkloadError(f"{name}: the trace holds no node; record a cluster with nodes")
    if not collected.pending:
        raise TraceWorkloadError(
            f"{name}: the trace holds no pod waiting for a scheduler; record while pods are created"
        )
    nodes = list(collected.nodes.values())
    start = collected.times[0]
    return Workload(
        name=f"trace {name}",
        nodes=len(nodes),
        node_factory=lambda index: copy.deepcopy(nodes[index]),
        initial=(PodGroup(_template(collected.bound), len(collected.bound), TRACE_INIT_NS, "p-"),),
        measured=PodGroup(_template(collected.pending), len(collected.pending), TRACE_NS, "p-"),
        priority_classes=tuple(sorted(collected.priorities.items())),
        arrivals=tuple(round(t - start, 3) for t in collected.times),
    )


def _collect(collected: _Collected, kind: str, record: Mapping[str, Any]) -> None:
    obj = record.get("object") or {}
    meta = obj.get("metadata") or {}
    if kind == "nodes" and meta.get("name"):
        collected.nodes.setdefault(str(meta["name"]), _node(obj))
    elif kind == "scheduling.k8s.io/priorityclasses" and meta.get("name"):
        collected.priorities[str(meta["name"])] = int(obj.get("value", 0))
    elif kind == "pods":
        uid = str(meta.get("uid") or f"{meta.get('namespace')}/{meta.get('name')}")
        if uid in collected.seen:
            return
        collected.seen.add(uid)
        if (obj.get("spec") or {}).get("nodeName"):
            collected.bound.append(_pod(obj, keep_node=True))
        else:
            collected.pending.append(_pod(obj, keep_node=False))
            collected.times.append(float(record.get("t", 0.0)))


def _node(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {k: copy.deepcopy(meta[k]) for k in _NODE_META_KEEP if k in meta},
        "spec": copy.deepcopy(obj.get("spec") or {}),
        "status": copy.deepcopy(obj.get("status") or {}),
    }


def _pod(obj: Mapping[str, Any], *, keep_node: bool) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    spec = copy.deepcopy(dict(obj.get("spec") or {}))
    for key in _POD_SPEC_DROP:
        if not (keep_node and key == "nodeName"):
            spec.pop(key, None)
    annotations = dict(meta.get("annotations") or {})
    annotations[RECORDED_POD] = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    metadata: dict[str, Any] = {"annotations": annotations}
    if meta.get("labels"):
        metadata["labels"] = dict(meta["labels"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _template(pods: list[dict[str, Any]]) -> PodTemplate:
    """The i-th recorded pod (the name's last `-` part is i), named and placed for the
    benchmark; a bound pod keeps its node and scheduler."""

    def template(name: str, namespace: str, scheduler: str) -> dict[str, Any]:
        pod = copy.deepcopy(pods[int(name.rsplit("-", 1)[-1])])
        pod["metadata"].update(name=name, namespace=namespace)
        if not pod["spec"].get("nodeName"):
            pod["spec"]["schedulerName"] = scheduler
        return pod

    return template
