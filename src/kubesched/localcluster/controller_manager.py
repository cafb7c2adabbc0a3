"""kube-controller-manager of the local cluster: which controllers, its flags, its launch.

It runs as `system:kube-controller-manager` (a static token; the bootstrap RBAC policy
grants that user what it needs) with leader election on (Lease
`kube-system/kube-controller-manager`), and each controller with its own service account
(`--use-service-account-credentials`), as kubeadm sets it up. Only the controllers a
workload on fake nodes needs are enabled: no cloud, no IPAM, no endpoints, no CSR signing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.flags import merge_flags
from kubesched.localcluster.launch import Launch, log_has
from kubesched.localcluster.pki import Pki
from kubesched.localcluster.probe import Endpoint, free_ports, get

LEASE = "kube-system/kube-controller-manager"
CONTROLLERS = (
    "serviceaccount-controller",
    "serviceaccount-token-controller",
    "root-ca-certificate-publisher-controller",
    "namespace-controller",
    "garbage-collector-controller",
    "deployment-controller",
    "replicaset-controller",
    "replicationcontroller-controller",
    "statefulset-controller",
    "job-controller",
    "ttl-after-finished-controller",
    "pod-garbage-collector-controller",
    "persistentvolume-binder-controller",
    "persistentvolumeclaim-protection-controller",
    "persistentvolume-protection-controller",
    "node-lifecycle-controller",
    "taint-eviction-controller",
    "disruption-controller",
    "resourceclaim-controller",
    "device-taint-eviction-controller",
)
"""What runs: workloads (Deployment, ReplicaSet, ReplicationController, StatefulSet, Job;
Kubernetes' own e2e specs still create ReplicationControllers), namespaces and garbage
collection, PersistentVolume binding, node lifecycle with taint-based eviction, PDB status,
and dynamic resource allocation: the resourceclaim controller (a pod's ResourceClaims made
from its ResourceClaimTemplates, `status.resourceClaimStatuses`, `reservedFor` of pods
that are gone) and the device-taint eviction controller (pods using a device tainted
`NoExecute` evicted); both are in kube-controller-manager v1.37's default set (their
feature gates DynamicResourceAllocation and DRADeviceTaints are GA and on)."""


@dataclass(frozen=True)
class NodeHealthTimings:
    """How fast a node that stops its heartbeat is noticed (seconds).

    kwok renews each managed node's Lease every `lease_duration / 4` s; the node lifecycle
    controller checks every `monitor_period` s and marks a node whose Lease was not renewed
    for `monitor_grace_period` s NotReady (Unknown) and taints it. The defaults are
    kube-controller-manager's and the kubelet's; `fast()` suits tests."""

    monitor_period: float = 5.0
    """`--node-monitor-period` of kube-controller-manager."""
    monitor_grace_period: float = 50.0
    """`--node-monitor-grace-period`: silence after which a node is NotReady."""
    startup_grace_period: float = 60.0
    """`--node-startup-grace-period`: silence allowed to a node that never reported."""
    lease_duration: int = 40
    """kwok's `--node-lease-duration-seconds` (the kubelet's `nodeLeaseDurationSeconds`)."""

    @classmethod
    def fast(cls) -> NodeHealthTimings:
        """A dead node is NotReady and tainted within ~8 s (for tests and the demo)."""
        return cls(
            monitor_period=1.0,
            monitor_grace_period=6.0,
            startup_grace_period=10.0,
            lease_duration=4,
        )

    def check(self) -> None:
        """Refuse timings under which healthy nodes would flap NotReady."""
        renew = self.lease_duration / 4
        if self.monitor_period <= 0 or self.lease_duration < 1:
            raise LocalClusterError("node health timings must be positive")
        if self.monitor_grace_period < 2 * renew + self.monitor_period:
            raise LocalClusterError(
                f"node monitor grace period {self.monitor_grace_period:g} s is too short for a "
                f"{self.lease_duration} s node Lease (renewed every {renew:g} s): make it at "
                f"least {2 * renew + self.monitor_period:g} s"
            )


def seconds(value: float) -> str:
    """A Go duration (`1.5s`, `50s`)."""
    return f"{value:g}s"


@dataclass(frozen=True)
class ControllerManagerFiles:
    """What kube-controller-manager reads and where it writes."""

    kubeconfig: Path
    pki: Pki
    cert_dir: Path
    log: Path


OWN_GATES = "ControllerManagerReleaseLeaderElectionLockOnExit=true"
"""kube-controller-manager's own feature gates (`LocalCluster` adds the cluster's to them)."""


def controller_manager_args(
    *,
    files: ControllerManagerFiles,
    port: int,
    timings: NodeHealthTimings,
    extra: Sequence[str] = (),
) -> list[str]:
    """kube-controller-manager flags; `extra` (`--name=value`) adds or overrides."""
    kubeconfig = str(files.kubeconfig)
    flags = {
        "--kubeconfig": kubeconfig,
        "--authentication-kubeconfig": kubeconfig,
        "--authorization-kubeconfig": kubeconfig,
        "--authentication-skip-lookup": "true",
        "--bind-address": "127.0.0.1",
        "--secure-port": str(port),
        "--cert-dir": str(files.cert_dir),
        "--leader-elect": "true",
        # Release the Lease on a clean exit, so that a restarted kube-controller-manager
        # leads at once instead of waiting 15 s for the old Lease to expire (alpha in 1.36).
        "--feature-gates": OWN_GATES,
        "--use-service-account-credentials": "true",
        "--service-account-private-key-file": str(files.pki.sa_private_key),
        "--root-ca-file": str(files.pki.ca_cert),
        "--controllers": ",".join(CONTROLLERS),
        "--cluster-name": "kubesched-local",
        "--node-monitor-period": seconds(timings.monitor_period),
        "--node-monitor-grace-period": seconds(timings.monitor_grace_period),
        "--node-startup-grace-period": seconds(timings.startup_grace_period),
        "--kube-api-qps": "100",
        "--kube-api-burst": "200",
        "--v": "2",
    }
    return merge_flags(flags, extra)


def controller_manager_launch(
    binaries: Binaries,
    *,
    files: ControllerManagerFiles,
    timings: NodeHealthTimings,
    extra: Sequence[str],
) -> Launch:
    """kube-controller-manager on a new free port; ready once /healthz answers and its log
    (from now on) says it acquired its Lease."""
    timings.check()
    offset = files.log.stat().st_size if files.log.exists() else 0

    def launch() -> tuple[list[str], Callable[[], bool]]:
        port = free_ports(1)[0]
        args = controller_manager_args(files=files, port=port, timings=timings, extra=extra)
        endpoint = Endpoint(f"https://127.0.0.1:{port}", verify=False)
        argv = [str(binaries.kube_controller_manager), *args]
        return argv, lambda: get(endpoint, "/healthz")[0] == 200 and log_has(files.log, offset)

    return launch
