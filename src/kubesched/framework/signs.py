"""Pod signatures (upstream `SignPlugin` and its signers in k8s.io/kube-scheduler/framework):
what of a pod a plugin's Filter and Score read, as a hashable value.

A plugin that serves Filter or Score may implement `sign_pod(pod)`, returning a tuple of
hashable fragments (empty when nothing of the pod matters to it) or None when it cannot sign
this pod (its verdict depends on more than the pod and the node, e.g. on other pods). It
promises: for the same NodeInfo object and pods with equal signatures, `filter()` and
`score()` return the same values (including what its PreFilter/PreScore derived and wrote
to the CycleState). kubesched then reuses a node's Filter and Score results for the next pod
with the same combined signature (`kubesched.runtime.memo`), and OpportunisticBatching tries
the previous pod's next best node first for a pod signed like it (`kubesched.runtime.batch`;
only in a profile whose PreFilter, Filter, PreScore and Score plugins all sign, as upstream's).
The signers below are the building blocks of the default plugins' signatures (upstream's
`TolerationsSigner`, `HostPortsSigner`, ...).
"""

from __future__ import annotations

from collections.abc import Hashable

from kubesched.model import Pod, Resource


def tolerations_sign(pod: Pod) -> Hashable:
    """The pod's tolerations (TaintToleration, NodeUnschedulable)."""
    return pod.tolerations


def host_ports_sign(pod: Pod) -> Hashable:
    """The host ports the pod's containers ask for (NodePorts)."""
    return pod.host_ports


def node_affinity_sign(pod: Pod) -> Hashable:
    """The pod's node selector and affinity (NodeAffinity)."""
    selector = tuple(sorted(pod.node_selector.items())) if pod.node_selector else ()
    return (selector, repr(pod.affinity) if pod.affinity else None)


def node_name_sign(pod: Pod) -> Hashable:
    """`spec.nodeName` (NodeName)."""
    return pod.node_name


def _resource(resource: Resource) -> Hashable:
    scalar = tuple(resource.scalar.items()) if resource.scalar else ()
    return (resource.milli_cpu, resource.memory, resource.ephemeral_storage, scalar)


def resources_sign(pod: Pod) -> Hashable:
    """The pod's requests as the resource plugins read them: the requests, the spec's own
    when they differ (Fit's Filter reads those), the non-zero requests and the requests
    Score uses (NodeResourcesFit, NodeResourcesBalancedAllocation)."""
    score = None
    if pod.container_non_zero_requests is not None:
        score = (pod.fit_score_requests.milli_cpu, pod.fit_score_requests.memory)
    spec = None if pod.spec_requests is None else _resource(pod.spec_requests)
    return (_resource(pod.requests), spec, _resource(pod.non_zero_requests), score)
