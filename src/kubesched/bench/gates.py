"""A test case's feature gates (upstream's `featureGates` in performance-config.yaml): on in
the contender's kube-apiserver and in both schedulers, as scheduler_perf turns them on for
its one process.

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
    """`LocalCluster` keyword arguments for a control plane with `gates` on: with
    GenericWorkload, `scheduling.k8s.io/v1beta1` is served (PodGroups); every gate is on in
    kube-apiserver (which keeps a PodGroup's `schedulingConstraints` only with
    TopologyAwareWorkloadScheduling)."""
    if not gates:
        return {}
    return {
        "generic_workload": GENERIC_WORKLOAD in gates,
        "apiserver_args": (_gate_flag(gates),),
    }


def scheduler_gate_flags(gates: Sequence[str]) -> tuple[str, ...]:
    """The flag that turns `gates` on in kube-scheduler (and kubesched, which takes it)."""
    return (_gate_flag(gates),) if gates else ()
