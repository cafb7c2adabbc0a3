"""A real local control plane: etcd + kube-apiserver (+ kube-scheduler) on 127.0.0.1.

    from kubesched.localcluster import LocalCluster

    with LocalCluster() as cluster:          # builds the binaries once, then reuses them
        cluster.start_default_scheduler()
        cluster.kubectl("get", "nodes")

Binaries come from `KUBESCHED_K8S_BIN` / `KUBEBUILDER_ASSETS` folders, else are built from
the pinned wrapper Go modules in `gobuild/` into `<cache>/bin/<component>-<version>/`.
"""

from kubesched.localcluster.binaries import (
    Binaries,
    ensure_binaries,
    ensure_crane,
    ensure_helm,
    ensure_promtool,
)
from kubesched.localcluster.cluster import LocalCluster
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.process import Process

__all__ = [
    "Binaries",
    "LocalCluster",
    "LocalClusterError",
    "Process",
    "ensure_binaries",
    "ensure_crane",
    "ensure_helm",
    "ensure_promtool",
]
