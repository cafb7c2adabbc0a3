"""Running a scenario (or a parity case) through both schedulers, one decision at a time.

For each incoming pod: the API server admits it in a dry run (priority resolved, defaults
set), kubesched's engine explains that object on the current state, then the pod is created
for kube-scheduler, whose decision is read from its log and the API; the two are compared
(`compare`). Unschedulable pods are deleted again, so every decision starts from a state both
sides saw. A mismatch writes a reproducer (`reproducer.write_case`) and names the seed.

A pod's ResourceClaims are made before it (a "claims" step); the devices kube-scheduler
allocated are compared with those the kubesched twin got (`devices`). Claims of pods that
are gone are freed after each decision, as the resourceclaim controller would
(`claims.release_orphans`), and a scenario's DRA objects are removed after it.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubesched.explain import Explanation
from tests.e2e.harness.api import ApiClient, ApiError
from tests.e2e.harness.diff import compare as cmp
from tests.e2e.harness.diff.claims import (
    Allocation,
    claim_entries,
    claim_names,
    release_orphans,
    remove_all,
)
from tests.e2e.harness.diff.devices import compare_devices
from tests.e2e.harness.diff.engine import Engine
from tests.e2e.harness.diff.kslog import Oracle, OracleAttempt
from tests.e2e.harness.diff.pods import started_at
from tests.e2e.harness.diff.reproducer import cluster_state, write_case
from tests.e2e.harness.diff.scenario import Scenario
from tests.e2e.harness.diff.twin import run_twin, wants_twin
from tests.e2e.harness.diff.workloads import priority_classes
from tests.e2e.harness.waiting import node_name, wait_for

SETTLE_SECONDS = 0.25
"""After a change to nodes or bound pods: time for kube-scheduler's informers to see it."""
SAMPLING_PROFILES = frozenset({"sampled"})
PREEMPTOR_BIND_SECONDS = 5.0
BOUND_PODS_START = 3600
"""Incoming pods start after every existing pod (start times are one second apart)."""
DEBUG = bool(os.environ.get("PARITY_DEBUG"))
"""Print kubesched's view of every decision (`PARITY_DEBUG=1`, with `pytest -s`)."""


@dataclass(frozen=True)
class Decision:
    """One incoming pod: its key, kubesched's explanation and the state before it."""

    key: str
    ex: Explanation
    namespaces: list[str]
    before: list[dict[str, Any]]
    offset: int = 0
    """Where kube-scheduler's log for this decision starts."""

    @property
    def namespace(self) -> str:
        return self.key.split("/")[0]

    @property
    def name(self) -> str:
        return self.key.split("/")[1]


@dataclass
class Env:
    api: ApiClient
    oracle: Oracle
    engine: Engine
    out_dir: Path
    started: int = 0
    """How many incoming pods were bound (each gets the next start time)."""
    twin: bool = False
    """Whether a kubesched process (`twin`) also places every pod it can."""
    twin_log: Path | None = None
    """That process's log (at V(3): one "Attempting to schedule pod" line per attempt)."""
    written: list[Path] = field(default_factory=list)


def ensure_priority_classes(api: ApiClient) -> None:
    for item in priority_classes():
        if api.get_or_none("PriorityClass", item["metadata"]["name"]) is None:
            api.create(item)


def apply(api: ApiClient, objects: list[dict[str, Any]]) -> None:
    """Create `objects` in order (PriorityClasses that exist are left alone)."""
    for obj in objects:
        if obj["kind"] == "PriorityClass":
            ensure_priority_classes(api)
            continue
        api.create(obj)
        if obj["kind"] == "Pod" and (obj.get("status") or {}).get("startTime"):
            _start(api, obj["metadata"], obj["status"]["startTime"])
        if obj["kind"] == "ResourceClaim" and (obj.get("status") or {}).get("allocation"):
            meta, status = obj["metadata"], {"status": obj["status"]}  # a reproducer's claim
            namespace = meta["namespace"]
            api.patch(
                "ResourceClaim", meta["name"], status, namespace=namespace, subresource="status"
            )
    time.sleep(SETTLE_SECONDS)


def _allocate(api: ApiClient, claim: dict[str, Any]) -> None:
    """A reproducer's claim, allocated as it was when the reproducer was written."""
    meta, status = claim["metadata"], {"status": claim["status"]}
    namespace = meta["namespace"]
    api.patch("ResourceClaim", meta["name"], status, namespace=namespace, subresource="status")


def _start(api: ApiClient, meta: dict[str, Any], start_time: str) -> None:
    """What a kubelet reports once the pod runs: phase Running and `status.startTime`."""
    status = {"status": {"phase": "Running", "startTime": start_time}}
    api.patch("Pod", meta["name"], status, namespace=meta["namespace"], subresource="status")


def run_scenario(scenario: Scenario, env: Env) -> cmp.Tally:
    """Create the scenario's cluster, then run its steps; the tally of every comparison."""
    ensure_priority_classes(env.api)
    tally = cmp.Tally()
    try:
        apply(env.api, scenario.objects)
        for index, (kind, body) in enumerate(scenario.steps):
            if kind == "pod":
                context = {"seed": scenario.seed, "step": index, "profile": scenario.profile}
                decide(env, body, tally, context=context, namespaces=scenario.namespaces)
            elif kind == "claims":
                for claim in body:
                    env.api.create(claim)
            else:
                _change_node(env.api, kind, body)
    finally:
        remove_all(env.api, scenario.namespaces, scenario.objects)
    return tally


def _change_node(api: ApiClient, kind: str, body: Any) -> None:
    if kind == "add-node":
        api.create(body)
    else:
        name, change = body
        if "labels" in change:
            api.patch("Node", name, {"metadata": {"labels": change["labels"]}})
        elif "taints" in change:
            api.patch("Node", name, {"spec": {"taints": change["taints"]}})
        else:
            cpu = change["cpu"]
            status = {"status": {"capacity": {"cpu": cpu}, "allocatable": {"cpu": cpu}}}
            api.patch("Node", name, status, subresource="status")
    time.sleep(SETTLE_SECONDS)


def decide(
    env: Env,
    pod: dict[str, Any],
    tally: cmp.Tally,
    *,
    context: dict[str, Any],
    namespaces: list[str],
) -> None:
    """One incoming pod through both schedulers; mismatches go to `tally` (+ a reproducer)."""
    api, meta = env.api, pod["metadata"]
    key = f"{meta['namespace']}/{meta['name']}"
    before = cluster_state(api, namespaces)
    path = f"/api/v1/namespaces/{meta['namespace']}/pods"
    admitted = api.request("POST", path, body=pod, query={"dryRun": "All"})
    ex = env.engine.explain(admitted)
    if DEBUG:
        print(f"DEBUG {key} feasible={len(ex.feasible)} best={ex.best} {ex.failed_scheduling!r}")
    seen = len(tally.mismatches)
    sampled = context["profile"] in SAMPLING_PROFILES and ex.sampling.samples
    twin = None
    if env.twin and wants_twin(pod, ex):
        twin = run_twin(api, pod, ex, tally, sampled=sampled)
    offset = env.oracle.offset()
    api.create(pod)
    if pod["spec"].get("schedulingGates"):
        _check_gated(env, Decision(key, ex, namespaces, before), tally)
    attempts = env.oracle.wait_decided(key, offset)
    decision = Decision(key, ex, namespaces, before, offset)
    _compare(env, decision, pod, attempts, tally, twin=twin, sampled=bool(sampled))
    current = api.get_or_none("Pod", meta["name"], namespace=meta["namespace"])
    if current is not None and node_name(current):
        env.started += 1
        _start(api, meta, started_at(BOUND_PODS_START + env.started))
    if release_orphans(api, namespaces, pod) or claim_names(pod):
        time.sleep(SETTLE_SECONDS)
    time.sleep(SETTLE_SECONDS)
    if len(tally.mismatches) > seen:
        _write_reproducer(env, context, tally.mismatches[seen:], before, pod)


def _compare(
    env: Env,
    decision: Decision,
    pod: dict[str, Any],
    attempts: list[OracleAttempt],
    tally: cmp.Tally,
    *,
    twin: tuple[str, Allocation] | None,
    sampled: bool,
) -> None:
    """What kube-scheduler decided (`attempts`) against kubesched's engine."""
    first, last, key, ex = attempts[0], attempts[-1], decision.key, decision.ex
    if first.error:  # retried after its backoff, ending the same way: not waited for
        cmp.compare_error(tally, key, ex, first.error)
        with contextlib.suppress(ApiError):
            env.api.delete("Pod", decision.name, namespace=decision.namespace, grace_period=0)
    elif first.failed:
        _unschedulable(env, decision, tally, first.failed)
    elif last.bound_to:
        cmp.compare_bound(tally, key, ex, last, sampled=sampled)
        if claim_entries(env.api, pod):
            compare_devices(env.api, tally, pod, last.bound_to, twin)


def _check_gated(env: Env, decision: Decision, tally: cmp.Tally) -> None:
    """kube-scheduler holds a gated pod (SchedulingGated); so must kubesched. Then ungate."""
    key, ex, namespace, name = decision.key, decision.ex, decision.namespace, decision.name

    def reason() -> str:
        conditions = (
            env.api.get("Pod", name, namespace=namespace).get("status", {}).get("conditions") or []
        )
        return next(
            (c.get("reason", "") for c in conditions if c.get("type") == "PodScheduled"), ""
        )

    held = (
        wait_for(reason, until=bool, timeout=15, message=f"{key} PodScheduled") == "SchedulingGated"
    )
    ours = any("does not enter the scheduling queue" in note for note in ex.notes)
    tally.check(
        "queueing", key, held == ours, f"kube-scheduler gated={held}, kubesched gated={ours}"
    )
    env.api.patch("Pod", name, {"spec": {"schedulingGates": []}}, namespace=namespace)


def _unschedulable(env: Env, decision: Decision, tally: cmp.Tally, message: str) -> None:
    """kube-scheduler found no node: compare the message, then what preemption did."""
    key, ex, namespace, name = decision.key, decision.ex, decision.namespace, decision.name
    preemption = env.oracle.preemption(key, decision.offset)
    cmp.compare_unschedulable(tally, key, ex, message, preempted_on=preemption.node)
    if preemption.node or ex.nominated_node:
        cmp.compare_preemption(tally, key, ex, preemption.node, preemption.victims)
    if preemption.node:  # the victims are gone: the pod binds there once kube-scheduler
        # requeues it (its queueing hints decide when; a bounded wait, else it is deleted)
        with contextlib.suppress(AssertionError):
            wait_for(
                lambda: env.api.get("Pod", name, namespace=namespace),
                until=node_name,
                timeout=PREEMPTOR_BIND_SECONDS,
                message=f"{key} bound after preemption",
            )
    if not node_name(env.api.get("Pod", name, namespace=namespace)):
        with contextlib.suppress(ApiError):
            env.api.delete("Pod", name, namespace=namespace, grace_period=0)


def _write_reproducer(
    env: Env,
    context: dict[str, Any],
    mismatches: list[cmp.Mismatch],
    before: list[dict[str, Any]],
    pod: dict[str, Any],
) -> None:
    names = sorted({m.comparison for m in mismatches})
    header = {
        **context,
        "mismatches": names,
        "details": [f"{m.comparison}: {m.detail}" for m in mismatches],
    }
    name = f"seed-{context.get('seed', 'case')}-step-{context.get('step', 0)}.yaml"
    env.written.append(write_case(env.out_dir / name, header, before, pod))
