"""Callers spraying forged tokens at /metrics neither starve scheduling nor lock out an
authorized scrape: delegated authentication has its own API client (QPS 200, burst 400, as
upstream) and enough review slots, apart from the scheduling client (here held to 10 QPS)."""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for

SCHEDULER = "auth-flood-scheduler"
FLOODERS = 24
PODS = 20


def test_forged_token_flood_does_not_slow_scheduling_or_lock_out_scrapes(
    kubesched: Callable[..., Any], api: ApiClient, local_cluster: LocalCluster, namespace: str
) -> None:
    api.create(make_node().name("n1").capacity(cpu="64", pods="110").obj())
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        "--kube-api-qps=10",
        "--kube-api-burst=10",
    )
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                proc.get("/metrics", token=f"forged-{secrets.token_hex(8)}", timeout=10)

    flooders = [threading.Thread(target=flood, daemon=True) for _ in range(FLOODERS)]
    for thread in flooders:
        thread.start()
    try:
        time.sleep(2)  # the flood is in full swing
        started = time.monotonic()
        status, _ = proc.get("/metrics", token=local_cluster.admin_token, timeout=10)
        scrape = time.monotonic() - started
        assert status == 200
        print(f"authorized scrape during the flood: {scrape:.2f}s")
        assert scrape < 3, f"an authorized scrape took {scrape:.1f}s during the flood"
        started = time.monotonic()
        for i in range(PODS):
            api.create(make_pod().name(f"p{i}").namespace(namespace).scheduler(SCHEDULER).obj())
        wait_for(
            lambda: api.list("Pod", namespace=namespace),
            until=lambda pods: sum(is_bound(p) for p in pods) == PODS,
            timeout=60,
            message="all pods bound during the flood",
        )
        took = time.monotonic() - started
        print(f"{PODS} pods bound during the flood in {took:.2f}s")
        assert took < 12, f"{PODS} pods took {took:.1f}s to bind during the flood"
    finally:
        stop.set()
        for thread in flooders:
            thread.join(timeout=15)
