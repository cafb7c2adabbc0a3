"""Fixture `kubesched`: start kubesched processes against the worker's control plane.

    def test_x(kubesched, api, namespace):
        proc = kubesched("--scheduler-name=my-scheduler")   # started and ready
        ...

Every process a test started is stopped (SIGTERM) after it; a failed test gets the tail
of each process's log in its report.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched

StartKubesched = Callable[..., KubeschedProcess]


@pytest.fixture
def kubesched(
    local_cluster: LocalCluster, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[StartKubesched]:
    """Factory: `kubesched(*args, ready=True, name=..., extra_env=..., kubeconfig=...)`
    (the admin kubeconfig unless `kubeconfig` is given)."""
    started: list[KubeschedProcess] = []
    request.node.kubesched_processes = started

    def start(
        *args: str,
        ready: bool = True,
        name: str = "",
        extra_env: dict[str, str] | None = None,
        kubeconfig: Path | None = None,
    ) -> KubeschedProcess:
        proc = start_kubesched(
            kubeconfig or local_cluster.kubeconfig_path,
            *args,
            workdir=tmp_path,
            name=name or f"kubesched-{len(started)}",
            extra_env=extra_env,
            token=local_cluster.admin_token,  # /metrics and /configz need an authorized caller
        )
        started.append(proc)
        if ready:
            proc.wait_ready()
        return proc

    yield start
    for proc in started:
        if proc.running():
            proc.stop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report shows the tail of each kubesched log it started."""
    report: pytest.TestReport = yield
    if report.failed:
        for proc in getattr(item, "kubesched_processes", ()):
            report.sections.append((f"kubesched log {proc.log_path}", proc.tail(60)))
    return report
