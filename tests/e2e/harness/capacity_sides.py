"""scheduler-plugins' build and kubesched started side by side with one profile, for the
modules that compare CapacityScheduling (test_capacity_scheduling, test_quota_differential)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster
from tests.e2e.harness.api import ApiClient
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.pod_group_crd import kubesched_pod_group_crd_in_place
from tests.e2e.harness.scheduler_plugins import install_scheduler_plugins_crds, scheduler_plugins


def profile_config(name: str, plugins: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """A KubeSchedulerConfiguration with one profile `name` enabling `plugins`."""
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": name, "plugins": dict(plugins)}],
        **extra,
    }


@contextmanager
def both_schedulers(
    local_cluster: LocalCluster,
    api: ApiClient,
    workdir: Path,
    *,
    plugins: Mapping[str, Any],
    theirs: str,
    ours: str,
) -> Iterator[None]:
    """scheduler-plugins' scheduler as `theirs` and kubesched as `ours` (leader-elected on
    its own Lease), with the CRDs of scheduler-plugins installed; kubesched's PodGroup CRD
    is put back after (the modules after this one on the worker read it)."""
    install_scheduler_plugins_crds(api)
    config = workdir / "ks.yaml"
    election = {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": ours}
    connection = {"kubeconfig": str(local_cluster.kubeconfig_path)}
    ks = profile_config(ours, plugins, clientConnection=connection, leaderElection=election)
    config.write_text(yaml.safe_dump(ks))
    with scheduler_plugins(local_cluster, profile_config(theirs, plugins), name=theirs):
        proc = start_kubesched(
            local_cluster.kubeconfig_path,
            f"--config={config}",
            workdir=workdir,
            name=f"kubesched-{ours}",
            token=local_cluster.admin_token,
        )
        try:
            proc.wait_ready()
            yield
        finally:
            proc.stop()
    kubesched_pod_group_crd_in_place(api)
