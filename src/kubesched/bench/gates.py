"""A test case's feature gates (upstream's `featureGates` in performance-config.yaml): on in
the contender's kube-apiserver, kube-controller-manager and both schedulers, as
scheduler_perf turns them on for its one process.

    cluster = LocalCluster(**cluster_options(workload.feature_gates))
    flags = (*scheduler_gate_flags(workload.feature_gates), *settings.scheduler_flags)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

GENERIC_WORKLOAD = "GenericWorkload"
TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"


def _gate_flag(gates: Sequence[str]) -> str:
    return "--feature-gates=" + ",".join(f"{gate}=true" for gate in gates)


def cluster_options(gates: Sequence[str]) -> dict[str, Any]:
    """`LocalCluster` keyword arguments for a control plane with `gates` on in every
    component: kube-apiserver (which then serves `scheduling.k8s.io/v1beta1` with
    GenericWorkload, and keeps a PodGroup's `schedulingConstraints` only with
    TopologyAwareWorkloadScheduling, its `resourceClaims` only with
    DRAWorkloadResourceClaims) and kube-controller-manager (whose resourceclaim controller
    makes a PodGroup's claims from their templates only with DRAWorkloadResourceClaims)."""
    if not gates:
        return {}
    return {"gates": dict.fromkeys(gates, True)}


def scheduler_gate_flags(gates: Sequence[str]) -> tuple[str, ...]:
    """The flag that turns `gates` on in kube-scheduler (and kubesched, which takes it)."""
    return (_gate_flag(gates),) if gates else ()
