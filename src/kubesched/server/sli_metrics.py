"""`/metrics/slis`: the health checks as metrics, as kube-scheduler v1.37.2 serves them
(component-base `metrics/prometheus/slis`, installed `WithReset`).

Every request to `/healthz`, `/livez` or `/readyz` (not `/<endpoint>/<check>`) records each
check it ran: `kubernetes_healthcheck{name, type}` is 1 when it passed and 0 when it failed,
`kubernetes_healthchecks_total{name, type, status="success"|"error"}` counts the results
(`type` is the endpoint). Both are STABLE; the registry also holds
`process_start_time_seconds`. `DELETE /metrics/slis` forgets every series and answers
`metrics reset`, as upstream's handler does.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, generate_latest

from kubesched.scheduler.prom import Counter, Gauge

RESET_ANSWER = "metrics reset\n"


class HealthcheckSLIs:
    """The SLI registry: what the health handlers observe and `/metrics/slis` serves."""

    def __init__(self, *, started: float | None = None) -> None:
        """`started`: the process's start time, seconds since the epoch (now if None)."""
        self.registry = CollectorRegistry(auto_describe=True)
        self._healthcheck = Gauge(
            "kubernetes_healthcheck",
            "[STABLE] This metric records the result of a single healthcheck.",
            ("name", "type"),
            registry=self.registry,
        )
        self._total = Counter(
            "kubernetes_healthchecks",
            "[STABLE] This metric records the results of all healthcheck.",
            ("name", "status", "type"),
            registry=self.registry,
        )
        start = Gauge(
            "process_start_time_seconds",
            "[ALPHA] Start time of the process since unix epoch in seconds.",
            registry=self.registry,
        )
        start.set(time.time() if started is None else started)

    def observe(self, *, endpoint: str, check: str, passed: bool) -> None:
        """One check of one request to `/<endpoint>`."""
        self._healthcheck.labels(check, endpoint).set(1 if passed else 0)
        self._total.labels(check, "success" if passed else "error", endpoint).inc()

    def reset(self) -> None:
        """Forget every healthcheck series (upstream's `ResetHealthMetrics`)."""
        self._healthcheck.clear()
        self._total.clear()

    def exposition(self) -> bytes:
        """The text format of every series."""
        return generate_latest(self.registry)
