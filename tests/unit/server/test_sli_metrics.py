"""/metrics/slis's registry: what a request to a health endpoint records, and the reset."""

from __future__ import annotations

from multidict import MultiDict

from kubesched.server.healthchecks import answer, passing
from kubesched.server.sli_metrics import HealthcheckSLIs


def _failing() -> str | None:
    return "informers not synced"


def test_each_check_a_request_ran_is_recorded_under_its_endpoint() -> None:
    slis = HealthcheckSLIs(started=1700000000.0)
    checks = (("ping", passing), ("sched-handler-sync", _failing))

    def observe(check: str, passed: bool) -> None:
        slis.observe(endpoint="readyz", check=check, passed=passed)

    for _ in range(2):
        assert answer("readyz", checks, MultiDict(), observe)[0] == 500
    answer("readyz", checks, MultiDict(exclude="sched-handler-sync"), observe)
    text = slis.exposition().decode()
    assert 'kubernetes_healthcheck{name="ping",type="readyz"} 1.0' in text
    assert 'kubernetes_healthcheck{name="sched-handler-sync",type="readyz"} 0.0' in text
    assert 'kubernetes_healthchecks_total{name="ping",status="success",type="readyz"} 3.0' in text
    assert (
        'kubernetes_healthchecks_total{name="sched-handler-sync",status="error",type="readyz"} 2.0'
        in text
    )
    assert "process_start_time_seconds 1.7e+09" in text


def test_reset_forgets_the_series_but_not_the_start_time() -> None:
    slis = HealthcheckSLIs(started=1700000000.0)
    slis.observe(endpoint="healthz", check="leaderElection", passed=True)
    slis.reset()
    text = slis.exposition().decode()
    assert "leaderElection" not in text
    assert "# TYPE kubernetes_healthchecks_total counter" in text
    assert "process_start_time_seconds 1.7e+09" in text
