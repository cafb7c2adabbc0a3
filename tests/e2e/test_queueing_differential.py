"""Queueing differential: kube-scheduler v1.37.2 and kubesched given the same churn (see
harness.diff.churn), compared per pod on whether it ended up bound and on how often it was
tried (each "Attempting to schedule pod" line, which both log at V(3)).

The same outcome is required for every pod, and kubesched may try a pod at most once more
than kube-scheduler did: both see both pools' copies of a change, one after the other, and a
hint such as NodeResourcesFit's (a node grew and the pod fits it alone) queues a pod for the
other pool's node too, so the side whose pool changed second may try once more in between.
That attempt moves the pod's backoff on: where two pods of one kind wait for one free place,
the other may reach it first, so a pair of pods of one kind bound the other way round, one of
them tried once more by kubesched, is accepted (and printed); any other difference is not.
With queueing hints an event that cannot help a pod (an unrelated node label, a taint on
another node) does not retry it, on either side.

A fixed handful of seeds runs in `make test`; `make parity QUEUEING_SEEDS=1-50` a campaign.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.e2e.harness.api import ApiClient, ApiError
from tests.e2e.harness.diff.churn import (
    DEVICE_CLASS,
    POOLS,
    RESOURCE,
    TAINT,
    Churn,
    Differing,
    claim_object,
    device_claim_name,
    device_claim_object,
    device_class_object,
    generate_churn,
    node_object,
    pod_object,
    slice_object,
    swaps,
)
from tests.e2e.harness.diff.fixtures import seeds_from_env
from tests.e2e.harness.diff.runner import Env

FIXED_SEEDS = (5, 11, 27)
"""Chosen to cover every kind of change, claims included."""
STEP_SECONDS = 3.0
"""After each change: time for both to react (the first backoffs are 1 and 2 s)."""
QUIET_SECONDS = 12.0
"""No attempt on either side for this long (past the 10 s maximum backoff): both are done."""
_ATTEMPT = re.compile(r'"Attempting to schedule pod" pod="([^"]+)"')


@pytest.mark.parametrize("seed", seeds_from_env("QUEUEING_SEEDS", FIXED_SEEDS))
def test_churn_retries_and_outcomes_match_kube_scheduler(
    seed: int, parity_env: Env, namespace: str
) -> None:
    assert parity_env.twin_log is not None
    churn = generate_churn(seed)
    logs = {"ks": parity_env.oracle.log_path, "kq": parity_env.twin_log}
    offsets = {pool: _size(path) for pool, path in logs.items()}
    devices = Devices(parity_env.api, namespace)
    try:
        _run(parity_env.api, churn, namespace, devices)
        _wait_quiet(logs, offsets)
    finally:
        devices.delete_all()
    attempts = {pool: _attempts(path, offsets[pool], namespace) for pool, path in logs.items()}
    bound = _bound(parity_env.api, namespace)
    rows, mismatches, differing = [], [], []
    for name in churn.pod_names():
        ks, kq = f"ks-{name}", f"kq-{name}"
        tried = attempts["ks"][ks], attempts["kq"][kq]
        rows.append(f"  {name}: bound {bound.get(ks)}/{bound.get(kq)} attempts {tried}")
        if (ks in bound) != (kq in bound):
            differing.append(Differing(name, churn.pod_kind(name), ks in bound, tried))
        if tried[1] > tried[0] + 1:
            mismatches.append(f"{name}: attempts kube-scheduler {tried[0]}, kubesched {tried[1]}")
    swapped, unexplained = swaps(differing)
    mismatches.extend(
        f"{pod.name}: kube-scheduler bound={pod.theirs_bound}, kubesched={not pod.theirs_bound}"
        for pod in unexplained
    )
    rows.extend(f"  swapped by the extra attempt: {a} and {b}" for a, b in swapped)
    print(f"QUEUEING seed={seed}\n" + "\n".join(rows))
    assert not mismatches, f"seed {seed} steps {churn.steps}:\n" + "\n".join(
        [*mismatches, "per pod (bound ks/kq, attempts ks/kq):", *rows]
    )


class Devices:
    """The DRA side of a churn: each pool's node slices (node 0 starts with one GPU) and the
    DeviceClass, deleted at the end (both are cluster-wide)."""

    def __init__(self, api: ApiClient, namespace: str) -> None:
        self.api, self.namespace = api, namespace
        self.gpus: dict[tuple[str, int], int] = {}
        self.made_class = False

    def start(self, churn: Churn) -> None:
        if churn.class_at_start:
            self.create_class()
        for pool in POOLS:
            self.add_gpu(pool, 0)

    def create_class(self) -> None:
        self.api.request("POST", f"/apis/{RESOURCE}/deviceclasses", body=device_class_object())
        self.made_class = True

    def add_gpu(self, pool: str, index: int) -> None:
        key = (pool, index)
        gpus = self.gpus.get(key, 0) + 1
        body = slice_object(pool, index, gpus, generation=gpus)
        path = f"/apis/{RESOURCE}/resourceslices"
        if gpus == 1:
            self.api.request("POST", path, body=body)
        else:
            current = self.api.request("GET", f"{path}/{body['metadata']['name']}")
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            self.api.request("PUT", f"{path}/{body['metadata']['name']}", body=body)
        self.gpus[key] = gpus

    def create_claim(self, pool: str, pod: str) -> None:
        path = f"/apis/{RESOURCE}/namespaces/{self.namespace}/resourceclaims"
        self.api.request("POST", path, body=device_claim_object(pool, self.namespace, pod))

    def free(self, pool: str, pod: str) -> None:
        """Delete the pod if bound, then deallocate its claim (as the resourceclaim
        controller does once the pod is gone)."""
        name = f"{pool}-{pod}"
        found = self.api.get_or_none("Pod", name, namespace=self.namespace)
        if (
            found is None
            or not found["spec"].get("nodeName")
            or not found["spec"].get("resourceClaims")
        ):
            return
        _delete_if_bound(self.api, self.namespace, name)
        path = (
            f"/apis/{RESOURCE}/namespaces/{self.namespace}/resourceclaims/"
            f"{device_claim_name(pool, pod)}"
        )
        status = {"status": {"allocation": None, "reservedFor": None}}
        with contextlib.suppress(ApiError):
            self.api.request(
                "PATCH", path + "/status", body=status, content_type="application/merge-patch+json"
            )

    def apply(self, pool: str, kind: str, body: object) -> bool:
        """A DRA step (True), or none (False; a "device" pod's claim is made first)."""
        if kind == "gpus":
            assert isinstance(body, int)
            self.add_gpu(pool, body)
        elif kind == "free":
            assert isinstance(body, str)
            self.free(pool, body)
        else:
            if kind == "pods":
                assert isinstance(body, list)
                for spec in body:
                    if spec["kind"] == "device":
                        self.create_claim(pool, spec["name"])
            return False
        return True

    def delete_all(self) -> None:
        for pool, index in self.gpus:
            with contextlib.suppress(ApiError):
                self.api.request("DELETE", f"/apis/{RESOURCE}/resourceslices/{pool}-n{index}-gpus")
        if self.made_class:
            with contextlib.suppress(ApiError):
                self.api.request("DELETE", f"/apis/{RESOURCE}/deviceclasses/{DEVICE_CLASS}")


def _run(api: ApiClient, churn: Churn, namespace: str, devices: Devices) -> None:
    for pool in POOLS:
        for index in range(churn.nodes):
            api.create(node_object(pool, index))
    devices.start(churn)
    time.sleep(1.0)
    pools = list(POOLS)
    for index, (kind, body) in enumerate(churn.steps):
        # Each scheduler sees both pools' changes, its own and the twin's, in the order they
        # are made; which pool changes first alternates, so neither side is always second.
        if kind == "device-class":  # one for both pools
            devices.create_class()
        else:
            for pool in pools if index % 2 == 0 else reversed(pools):
                if not devices.apply(pool, kind, body):
                    _apply(api, pool, namespace, kind, body)
        time.sleep(STEP_SECONDS)


def _apply(api: ApiClient, pool: str, namespace: str, kind: str, body: object) -> None:
    if kind == "pods":
        assert isinstance(body, list)
        for spec in body:
            api.create(pod_object(pool, namespace, spec))
    elif kind == "add-node":
        assert isinstance(body, int)
        api.create(node_object(pool, body))
    elif kind in ("label", "cpu"):
        assert isinstance(body, tuple)
        index, change = body
        if kind == "label":
            api.patch("Node", f"{pool}-n{index}", {"metadata": {"labels": change}})
        else:
            cpu = str(change)
            status = {"status": {"capacity": {"cpu": cpu}, "allocatable": {"cpu": cpu}}}
            api.patch("Node", f"{pool}-n{index}", status, subresource="status")
    elif kind in ("taint", "untaint"):
        taints = [TAINT] if kind == "taint" else []
        api.patch("Node", f"{pool}-n{body}", {"spec": {"taints": taints}})
    elif kind == "delete":
        _delete_if_bound(api, namespace, f"{pool}-{body}")
    elif kind == "claim":
        assert isinstance(body, str)
        api.create(claim_object(pool, namespace, body))


def _delete_if_bound(api: ApiClient, namespace: str, name: str) -> None:
    pod = api.get_or_none("Pod", name, namespace=namespace)
    if pod is not None and pod["spec"].get("nodeName"):
        with contextlib.suppress(ApiError):  # already gone
            api.delete("Pod", name, namespace=namespace, grace_period=0)


def _bound(api: ApiClient, namespace: str) -> dict[str, str]:
    pods = api.list("Pod", namespace=namespace)
    return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")}


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _read(path: Path, offset: int) -> str:
    with path.open("rb") as handle:
        handle.seek(offset)
        return handle.read().decode(errors="replace")


def _attempts(path: Path, offset: int, namespace: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    prefix = namespace + "/"
    for match in _ATTEMPT.finditer(_read(path, offset)):
        if match.group(1).startswith(prefix):
            counts[match.group(1).removeprefix(prefix)] += 1
    return counts


def _wait_quiet(logs: dict[str, Path], offsets: dict[str, int], *, limit: float = 90.0) -> None:
    """Until neither log gained an attempt line for QUIET_SECONDS (at most `limit`)."""
    deadline = time.monotonic() + limit
    seen = {pool: len(_ATTEMPT.findall(_read(path, offsets[pool]))) for pool, path in logs.items()}
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = {
            pool: len(_ATTEMPT.findall(_read(path, offsets[pool]))) for pool, path in logs.items()
        }
        if now != seen:
            seen, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= QUIET_SECONDS:
            return
