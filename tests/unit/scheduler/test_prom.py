"""The metric classes whose `labels()` remembers its children."""

from __future__ import annotations

import prometheus_client
from prometheus_client import CollectorRegistry, generate_latest

from kubesched.scheduler.prom import Counter, Gauge, Histogram


def test_labels_gives_the_same_child_as_prometheus_client() -> None:
    registry = CollectorRegistry()
    attempts = Counter("attempts", "Attempts.", ["result", "profile"], registry=registry)
    first = attempts.labels("scheduled", "default")
    assert attempts.labels("scheduled", "default") is first
    assert attempts.labels(result="scheduled", profile="default") is first
    first.inc()
    attempts.labels("scheduled", "default").inc()
    assert (
        registry.get_sample_value("attempts_total", {"result": "scheduled", "profile": "default"})
        == 2.0
    )


def test_values_that_are_not_strings_name_the_same_series() -> None:
    registry = CollectorRegistry()
    waits = Histogram("waits", "Waits.", ["code"], buckets=(1.0,), registry=registry)
    waits.labels(1).observe(0.5)
    waits.labels("1").observe(2.0)
    assert registry.get_sample_value("waits_count", {"code": "1"}) == 2.0


def test_a_removed_child_is_not_served_again() -> None:
    registry = CollectorRegistry()
    healthy = Gauge("healthy", "Healthy.", ["check"], registry=registry)
    healthy.labels("ping").set(1)
    healthy.remove("ping")
    assert registry.get_sample_value("healthy", {"check": "ping"}) is None
    healthy.labels("ping").set(0)
    assert registry.get_sample_value("healthy", {"check": "ping"}) == 0.0
    healthy.clear()
    healthy.labels("ping").set(1)
    assert registry.get_sample_value("healthy", {"check": "ping"}) == 1.0


def test_exposition_is_prometheus_clients_own() -> None:
    def exposed(counter_class: type[prometheus_client.Counter]) -> str:
        registry = CollectorRegistry()
        counter_class("drops", "Drops.", ["reason"], registry=registry).labels("full").inc(3)
        text = generate_latest(registry).decode()
        return "\n".join(line for line in text.splitlines() if "_created" not in line)

    assert exposed(Counter) == exposed(prometheus_client.Counter)
