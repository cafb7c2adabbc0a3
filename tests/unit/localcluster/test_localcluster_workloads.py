"""kube-controller-manager and kwok of the local cluster: flags, node-health timings, stages."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubesched.localcluster import LocalClusterError, kwok, kwok_stages
from kubesched.localcluster import controller_manager as kcm
from kubesched.localcluster.pki import Pki


def _pki(folder: Path) -> Pki:
    return Pki(
        ca_cert=folder / "ca.crt",
        serving_cert=folder / "apiserver.crt",
        serving_key=folder / "apiserver.key",
        sa_private_key=folder / "sa.key",
        sa_public_key=folder / "sa.pub",
    )


def _kcm_flags(tmp_path: Path, *extra: str) -> dict[str, str]:
    files = kcm.ControllerManagerFiles(
        kubeconfig=tmp_path / "kcm.kubeconfig",
        pki=_pki(tmp_path),
        cert_dir=tmp_path / "certs",
        log=tmp_path / "kcm.log",
    )
    args = kcm.controller_manager_args(
        files=files, port=10257, timings=kcm.NodeHealthTimings.fast(), extra=extra
    )
    return dict(arg.split("=", 1) for arg in args)


def test_controller_manager_serves_on_loopback_with_its_own_identity(tmp_path: Path) -> None:
    flags = _kcm_flags(tmp_path)

    assert flags["--bind-address"] == "127.0.0.1"
    assert flags["--secure-port"] == "10257"
    assert flags["--kubeconfig"] == str(tmp_path / "kcm.kubeconfig")
    assert flags["--authentication-kubeconfig"] == flags["--kubeconfig"]
    assert flags["--leader-elect"] == "true"
    # a restarted kube-controller-manager must not wait for its own old Lease to expire
    assert flags["--feature-gates"] == "ControllerManagerReleaseLeaderElectionLockOnExit=true"
    assert flags["--use-service-account-credentials"] == "true"
    assert flags["--service-account-private-key-file"] == str(tmp_path / "sa.key")
    assert flags["--root-ca-file"] == str(tmp_path / "ca.crt")


def test_controller_manager_runs_the_workload_and_node_lifecycle_controllers(
    tmp_path: Path,
) -> None:
    controllers = _kcm_flags(tmp_path)["--controllers"].split(",")

    for wanted in (
        "namespace-controller",
        "garbage-collector-controller",
        "deployment-controller",
        "replicaset-controller",
        "statefulset-controller",
        "job-controller",
        "persistentvolume-binder-controller",
        "node-lifecycle-controller",
        "taint-eviction-controller",
    ):
        assert wanted in controllers
    assert "*" not in controllers  # no cloud, IPAM or endpoints controllers


def test_controller_manager_timings_and_extra_flags(tmp_path: Path) -> None:
    flags = _kcm_flags(tmp_path, "--v=4", "--node-monitor-period=2s")

    assert flags["--node-monitor-grace-period"] == "6s"
    assert flags["--node-startup-grace-period"] == "10s"
    assert flags["--node-monitor-period"] == "2s"
    assert flags["--v"] == "4"


def test_default_timings_are_upstreams() -> None:
    timings = kcm.NodeHealthTimings()

    assert (timings.monitor_period, timings.monitor_grace_period) == (5.0, 50.0)
    assert (timings.startup_grace_period, timings.lease_duration) == (60.0, 40)
    timings.check()
    kcm.NodeHealthTimings.fast().check()


def test_timings_under_which_healthy_nodes_flap_are_refused() -> None:
    flapping = kcm.NodeHealthTimings(monitor_grace_period=10.0, lease_duration=40)

    with pytest.raises(LocalClusterError, match=r"too short .* make it at least 25 s"):
        flapping.check()
    with pytest.raises(LocalClusterError, match="positive"):
        kcm.NodeHealthTimings(monitor_period=0).check()


def _kwok_files(tmp_path: Path) -> kwok.KwokFiles:
    return kwok.KwokFiles(
        kubeconfig=tmp_path / "kwok.kubeconfig",
        stages=tmp_path / "stages.yaml",
        workdir=tmp_path / "kwok",
        log=tmp_path / "kwok.log",
    )


def test_kwok_manages_labelled_nodes_and_serves_on_loopback(tmp_path: Path) -> None:
    args = kwok.kwok_args(
        files=_kwok_files(tmp_path), port=10247, lease_duration=4, selector=kwok.node_selector()
    )
    flags = dict(arg.split("=", 1) for arg in args)

    assert flags["--manage-nodes-with-label-selector"] == "kwok.x-k8s.io/node=fake"
    assert flags["--server-address"] == "127.0.0.1:10247"
    assert flags["--node-lease-duration-seconds"] == "4"
    assert flags["--config"] == str(tmp_path / "stages.yaml")
    assert flags["--cidr"] != "10.0.0.0/24"  # not the service range


def test_kwok_never_reads_the_users_kwok_config(tmp_path: Path) -> None:
    files = _kwok_files(tmp_path)
    env = kwok.kwok_env(files, {"HOME": "/home/u", "KWOK_WORKDIR": "/home/u/.kwok"})

    assert env == {"HOME": "/home/u", "KWOK_WORKDIR": str(tmp_path / "kwok")}


def test_stage_file_holds_node_and_pod_stages(tmp_path: Path) -> None:
    files = _kwok_files(tmp_path)
    kwok.write_kwok_files(files)

    loaded = list(yaml.safe_load_all(files.stages.read_text()))

    assert files.workdir.is_dir()
    assert [stage["metadata"]["name"] for stage in loaded] == [
        "node-ready",
        "pod-running",
        "job-pod-complete",
        "pod-delete",
    ]
    assert {stage["kind"] for stage in loaded} == {"Stage"}
    kinds = {stage["metadata"]["name"]: stage["spec"]["resourceRef"]["kind"] for stage in loaded}
    assert kinds["node-ready"] == "Node"
    assert kinds["pod-delete"] == "Pod"


def test_only_job_pods_complete_and_only_after_a_while() -> None:
    stage = {s["metadata"]["name"]: s for s in kwok_stages.stages()}["job-pod-complete"]

    expressions = stage["spec"]["selector"]["matchExpressions"]
    assert {"key": ".metadata.ownerReferences.[].kind", "operator": "In", "values": ["Job"]} in (
        expressions
    )
    assert stage["spec"]["delay"]["durationMilliseconds"] == 2000
    assert "phase: Succeeded" in stage["spec"]["next"]["statusTemplate"]


def test_pods_being_deleted_are_never_started() -> None:
    by_name = {s["metadata"]["name"]: s for s in kwok_stages.stages()}

    for name in ("pod-running", "job-pod-complete"):
        expressions = by_name[name]["spec"]["selector"]["matchExpressions"]
        assert {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"} in expressions
    assert by_name["pod-delete"]["spec"]["next"] == {"delete": True}
