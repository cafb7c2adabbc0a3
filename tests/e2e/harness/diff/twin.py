"""The kubesched process's side: the same pod, renamed and for the `twin-*` profile, placed
by a running kubesched on the very state kubesched's engine explained; then deleted again, so
that kube-scheduler decides the original pod on that same state.

A twin is not made for gated pods (it would wait for its gate) nor where kubesched's engine
expects a preemption (the twin would evict pods from the state both sides share). A pod's
ResourceClaims are copied for its twin (`claims.twin_claims`) and freed with it, as is the
claim kubesched made for the twin's DRA-backed extended resources.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

from kubesched.explain import Explanation
from kubesched.localcluster import LocalCluster
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.diff.claims import Allocation, allocation, extended_claim, free, twin_claims
from tests.e2e.harness.diff.compare import Tally, same_error
from tests.e2e.harness.diff.profiles import ORACLE_PREFIX, TWIN_PREFIX, write_config
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.parity import wait_outcome

SETTLE_SECONDS = 0.25
CLAIMS_SETTLE_SECONDS = 0.75
"""After the twin's claims are freed: time for kube-scheduler's claim informer to see it."""


def start_twin(cluster: LocalCluster, workdir: Path) -> KubeschedProcess:
    """kubesched serving every `twin-*` profile (leader election off, at V(3): a log line
    per scheduling attempt), once ready."""
    config = write_config(
        workdir / "twin-kubesched.yaml", kubeconfig=cluster.kubeconfig_path, prefix=TWIN_PREFIX
    )
    proc = start_kubesched(
        cluster.kubeconfig_path,
        f"--config={config}",
        "--v=3",
        workdir=workdir,
        name="kubesched-twin",
        token=cluster.admin_token,
    )
    proc.wait_ready()
    return proc


def wants_twin(pod: dict[str, Any], ex: Explanation) -> bool:
    return not pod["spec"].get("schedulingGates") and not ex.nominated_node


def run_twin(
    api: ApiClient, pod: dict[str, Any], ex: Explanation, tally: Tally, *, sampled: bool
) -> tuple[str, Allocation] | None:
    """Place the twin of `pod` with kubesched, compare it with `ex`, delete it (and free
    its claims); the node and the devices of a twin with claims that was bound (none for a
    claim kubesched left unallocated)."""
    twin = copy.deepcopy(pod)
    meta, spec = twin["metadata"], twin["spec"]
    meta["name"] = meta["name"] + "-twin"
    spec["schedulerName"] = TWIN_PREFIX + spec["schedulerName"].removeprefix(ORACLE_PREFIX)
    key = f"{meta['namespace']}/{meta['name']}"
    claims = twin_claims(api, twin, "-twin")
    api.create(twin)
    outcome = wait_outcome(api, meta["namespace"], meta["name"], timeout=30)
    if outcome.bound and (
        made := extended_claim(api.get("Pod", meta["name"], namespace=meta["namespace"]))
    ):
        claims.append(made)
    devices = (allocation(api, twin) or {}) if claims and outcome.bound else None
    if outcome.bound:
        allowed = {v.node for v in ex.feasible} if sampled else set(ex.best)
        tally.check(
            "kubesched-bound",
            key,
            outcome.node in allowed,
            f"kubesched bound to {outcome.node}, kubesched's engine allows {sorted(allowed)}",
        )
    elif ex.error:
        message = outcome.message  # naming the twin's claims
        for name in claims:
            message = message.replace(f"/{name},", f"/{name.removesuffix('-twin')},")
        tally.check(
            "kubesched-bound",
            key,
            outcome.reason == "SchedulerError" and same_error(message, ex.error),
            f"kubesched {outcome.reason} {outcome.message!r}, its engine's error {ex.error!r}",
        )
    else:
        tally.check(
            "kubesched-bound",
            key,
            outcome.full_message == ex.failed_scheduling,
            f"kubesched {outcome.full_message!r}, its engine {ex.failed_scheduling!r}",
        )
    api.delete("Pod", meta["name"], namespace=meta["namespace"], grace_period=0)
    for name in claims:
        free(api, meta["namespace"], name)
    time.sleep(CLAIMS_SETTLE_SECONDS if claims else SETTLE_SECONDS)
    return (outcome.node, devices) if devices is not None else None
