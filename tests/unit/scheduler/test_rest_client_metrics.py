"""client-go's request families: every attempt in `rest_client_requests_total{code,method,host}`,
every attempt after the first also in `rest_client_request_retries_total{code,verb,host}`,
which is served once a request has been retried (as kube-scheduler's)."""

from __future__ import annotations

from kubesched.scheduler.metrics import SchedulerMetrics

HOST = "127.0.0.1:6443"


def served(metrics: SchedulerMetrics) -> set[str]:
    return {family.name for family in metrics.exported().collect()}


def test_a_retried_request_counts_each_attempt_and_each_retry() -> None:
    metrics = SchedulerMetrics()
    assert "rest_client_request_retries" not in served(metrics)
    metrics.observe_request("POST", HOST, "429", 0.01)
    metrics.observe_request("POST", HOST, "201", 0.01)
    metrics.observe_retry("POST", HOST, "201")
    assert "rest_client_request_retries" in served(metrics)
    value = metrics.registry.get_sample_value
    retried = {"code": "201", "verb": "POST", "host": HOST}
    assert value("rest_client_request_retries_total", retried) == 1
    assert value("rest_client_requests_total", {"code": "429", "method": "POST", "host": HOST}) == 1
    assert value("rest_client_requests_total", {"code": "201", "method": "POST", "host": HOST}) == 1


def test_retries_can_be_disabled_by_name() -> None:
    metrics = SchedulerMetrics(disabled=["rest_client_request_retries_total"])
    metrics.observe_retry("GET", HOST, "200")
    assert "rest_client_request_retries" not in served(metrics)
