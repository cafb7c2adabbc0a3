"""kube-scheduler's own timings of its scheduling loop, read from its /metrics before and
after the measured phase (for the many-core model, `bench.many_core`).

A contender built from kube-scheduler (kube-scheduler, scheduler-plugins) serves HTTPS on a
loopback port, delegating authentication and authorization to the API server with the
benchmark's admin kubeconfig; the benchmark reads /metrics with the admin token. From the
histograms' `_sum`s:

- `algorithm`: scheduler_scheduling_algorithm_duration_seconds, the wall time of each
  cycle from its start (the snapshot update) to the end of its algorithm (PreFilter,
  Filter, PreScore, Score, the host's choice, PostFilter); `cycles` is its count;
- `filter`, `score`: scheduler_framework_extension_point_duration_seconds for Filter and
  Score (the benchmark's profile): the wall time of the two sections of the cycle that run
  on kube-scheduler's parallel workers;
- `reserve`, `permit`: the same for Reserve and Permit, which the cycle runs after its
  algorithm, before it hands the pod to a binding goroutine.

(scheduler_scheduling_attempt_duration_seconds is no help here: for a scheduled pod it
runs until the binding goroutine has bound it.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from kubesched.localcluster.probe import Endpoint, free_ports, get

ALGORITHM = "scheduler_scheduling_algorithm_duration_seconds"
EXTENSION_POINT = "scheduler_framework_extension_point_duration_seconds"
LOOP_KEYS = ("cycles", "algorithm", "filter", "score", "reserve", "permit")
"""The keys of `loop_seconds`' answer (see the module's docstring)."""


def serving_flags(*, port: int, kubeconfig: Path, cert_dir: Path) -> list[str]:
    """kube-scheduler's flags to serve /metrics on 127.0.0.1:`port` to the admin token."""
    return [
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        # No request-header CA to read: the benchmark authenticates by token (TokenReview).
        "--authentication-skip-lookup=true",
        f"--cert-dir={cert_dir}",
    ]


def loop_seconds(text: str, profile: str) -> dict[str, float]:
    """The loop's timings (`LOOP_KEYS`) in a /metrics page, for scheduler profile `profile`."""
    totals = dict.fromkeys(LOOP_KEYS, 0.0)
    for family in text_string_to_metric_families(text):
        if family.name not in (ALGORITHM, EXTENSION_POINT):
            continue
        for sample in family.samples:
            if family.name == EXTENSION_POINT and sample.labels.get("profile") != profile:
                continue
            key = _key(family.name, sample.name, sample.labels)
            if key:
                totals[key] += sample.value
    return totals


def _key(family: str, sample: str, labels: Mapping[str, str]) -> str:
    if family == ALGORITHM:
        return {f"{ALGORITHM}_sum": "algorithm", f"{ALGORITHM}_count": "cycles"}.get(sample, "")
    if sample != f"{EXTENSION_POINT}_sum":
        return ""
    point = labels.get("extension_point", "")
    return point.lower() if point in ("Filter", "Score", "Reserve", "Permit") else ""


def scrape_loop_seconds(port: int, token: str, profile: str) -> dict[str, float] | str:
    """The loop's timings read from the scheduler on `port`, or why they could not be."""
    endpoint = Endpoint(f"https://127.0.0.1:{port}", token=token, verify=False)
    status, body = get(endpoint, "/metrics", timeout=10.0)
    if status != 200:
        return f"GET /metrics on port {port} answered {status or 'nothing'}"
    return loop_seconds(body, profile)


def difference(after: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    """`after` - `before`, key by key (the measured phase's share of the counters)."""
    return {key: after.get(key, 0.0) - before.get(key, 0.0) for key in LOOP_KEYS}


@dataclass(slots=True)
class LoopMetrics:
    """The loop's timings over the measured phase of one contender that serves metrics
    (`port` None: one that does not)."""

    port: int | None
    token: str
    profile: str
    _before: dict[str, float] | str = field(default="not read before the measured phase")

    @classmethod
    def on_free_port(cls, *, serves: bool, token: str, profile: str) -> LoopMetrics:
        """A free loopback port for a contender that `serves` metrics, None otherwise."""
        return cls(free_ports(1)[0] if serves else None, token, profile)

    async def start(self) -> None:
        """Read the counters as the measured phase starts."""
        if self.port is not None:
            self._before = await asyncio.to_thread(self._scrape)

    async def finish(self) -> tuple[dict[str, float], str]:
        """The counters' growth since `start`, or ({}, why not); ({}, "") without a port."""
        if self.port is None:
            return {}, ""
        after = await asyncio.to_thread(self._scrape)
        for reading in (self._before, after):
            if isinstance(reading, str):
                return {}, reading
        assert isinstance(self._before, dict)
        assert isinstance(after, dict)
        return difference(after, self._before), ""

    def _scrape(self) -> dict[str, float] | str:
        assert self.port is not None
        return scrape_loop_seconds(self.port, self.token, self.profile)
