"""scheduler-plugins' own build (sigs.k8s.io/scheduler-plugins v0.35.4-devel) beside kubesched
on the worker's local cluster: the second oracle of the side-by-side tests.

    from tests.e2e.harness.scheduler_plugins import (
        install_scheduler_plugins_crds, scheduler_plugins, start_scheduler_plugins,
    )

    USES_SCHEDULER_PLUGINS = True   # conftest builds the binaries at collection (~5 min cold)

    @pytest.fixture(scope="module")
    def oracle(local_cluster, api):
        install_scheduler_plugins_crds(api)          # PodGroup + ElasticQuota, pinned
        config = '''
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: sp-capacity
          plugins:
            preFilter: {enabled: [{name: CapacityScheduling}]}
            postFilter: {enabled: [{name: CapacityScheduling}], disabled: [{name: "*"}]}
            reserve: {enabled: [{name: CapacityScheduling}]}
        '''
        with scheduler_plugins(local_cluster, config, controller=True) as proc:
            yield proc                               # pods with schedulerName sp-capacity

`start_scheduler_plugins(cluster, config)` starts the scheduler (once it holds its Lease
`kube-system/<first schedulerName>`, unless the config sets `leaderElection`) and returns its
`Process` (`.log_path`, `.log_tail()`, `.stop()`); `clientConnection.kubeconfig` is filled in
(the admin identity). `start_scheduler_plugins_controller(cluster)` starts the controller that
writes PodGroup and ElasticQuota status. `scheduler_plugins(...)` does both and stops them after.
The binaries are built once (several minutes cold) into the cache; `make test` builds them first.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster, LocalClusterError, Process
from kubesched.localcluster import scheduler_plugins as splugins
from kubesched.localcluster.binaries import SchedulerPlugins, ensure_scheduler_plugins
from tests.e2e.harness.api import ApiClient, ApiError
from tests.e2e.harness.waiting import wait_for

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
GROUP_PATH = "/apis/scheduling.x-k8s.io/v1alpha1"


def binaries() -> SchedulerPlugins:
    """scheduler-plugins' scheduler and controller, from the cache (built there when missing;
    tests/e2e/conftest.py builds them at collection for modules that set
    `USES_SCHEDULER_PLUGINS = True`); a build that fails fails the test in one line."""
    try:
        return ensure_scheduler_plugins()
    except LocalClusterError as error:
        pytest.fail(f"no scheduler-plugins binaries: {error}", pytrace=False)


def install_scheduler_plugins_crds(api: ApiClient) -> None:
    """Create scheduler-plugins' pinned PodGroup and ElasticQuota CRDs (kept when they exist
    already) and wait until both kinds are served."""
    for crd in splugins.crd_documents():
        try:
            api.request("POST", CRD_PATH, body=crd)
        except ApiError as error:
            if error.status != 409:
                raise
    wait_for(
        lambda: api.request("GET", GROUP_PATH),
        until=lambda doc: {"podgroups", "elasticquotas"} <= {r["name"] for r in doc["resources"]},
        message="the PodGroup and ElasticQuota CRDs are served",
    )


def start_scheduler_plugins(
    cluster: LocalCluster,
    config: Mapping[str, Any] | str | None = None,
    *,
    name: str = splugins.SCHEDULER,
) -> Process:
    """Start scheduler-plugins' scheduler with `config` (a KubeSchedulerConfiguration, YAML or
    mapping; None: Coscheduling and CapacityScheduling in profile `scheduler-plugins-scheduler`);
    return its process once it holds its Lease. Stop it with `stop_scheduler_plugins`."""
    cluster.start_scheduler_plugins(binaries(), config=config, name=name)
    return cluster.processes[name]


def stop_scheduler_plugins(cluster: LocalCluster, *, name: str = splugins.SCHEDULER) -> None:
    """Stop a scheduler `start_scheduler_plugins` started (it releases nothing else)."""
    cluster.stop_extra_scheduler(name)


def start_scheduler_plugins_controller(cluster: LocalCluster) -> Process:
    """Start scheduler-plugins' controller (PodGroup and ElasticQuota status); return its
    process once it answers /readyz."""
    cluster.start_scheduler_plugins_controller(binaries())
    return cluster.processes[splugins.CONTROLLER]


@contextmanager
def scheduler_plugins(
    cluster: LocalCluster,
    config: Mapping[str, Any] | str | None = None,
    *,
    name: str = splugins.SCHEDULER,
    controller: bool = False,
) -> Iterator[Process]:
    """The scheduler (and the controller when asked) running for the `with` block."""
    if controller:
        start_scheduler_plugins_controller(cluster)
    try:
        yield start_scheduler_plugins(cluster, config, name=name)
    finally:
        stop_scheduler_plugins(cluster, name=name)
        if controller:
            cluster.stop_scheduler_plugins_controller()
