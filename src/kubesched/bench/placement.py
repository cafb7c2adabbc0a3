"""A scripted case's end-of-run check (`bench.script`): every measured pod is on a node
that is valid for it as the cluster ends, as far as the node alone decides: the node is
not unschedulable unless the pod tolerates `node.kubernetes.io/unschedulable`, every
NoSchedule/NoExecute taint of the node is tolerated, and the node matches the pod's
nodeSelector and required node affinity. (Room on the node is `checks`' overcommit
check; the pod-to-pod constraints depend on the order of the binds, not on the end.)"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all
from kubesched.model import Node, Pod
from kubesched.model.node import Taint
from kubesched.model.nodeselector import compile_selector, selector_matches
from kubesched.model.pod import Toleration

LIST_TIMEOUT_SECONDS = 120.0
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
_HOLDING = frozenset({"NoSchedule", "NoExecute"})


def tolerates(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    """Whether one of `tolerations` tolerates `taint` (v1 `Toleration.ToleratesTaint`)."""
    for toleration in tolerations:
        if toleration.effect and toleration.effect != taint.effect:
            continue
        if toleration.operator == "Exists":
            if not toleration.key or toleration.key == taint.key:
                return True
        elif toleration.key == taint.key and toleration.value == taint.value:
            return True
    return False


def misplaced(pod: Pod, node: Node) -> str:
    """Why `node` is not valid for `pod`; empty when it is."""
    if node.unschedulable and not tolerates(pod.tolerations, UNSCHEDULABLE_TAINT):
        return "the node is unschedulable"
    for taint in node.taints:
        if taint.effect in _HOLDING and not tolerates(pod.tolerations, taint):
            return f"taint {taint.key}:{taint.effect} not tolerated"
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return "nodeSelector does not match"
    affinity = pod.affinity.node_affinity if pod.affinity is not None else None
    if affinity is not None and affinity.required is not None:
        terms = compile_selector(affinity.required)
        if not selector_matches(terms, node):
            return "required node affinity does not match"
    return ""


async def placement_problems(
    client: KubeClient, namespaces: Sequence[str], labels: Mapping[str, str]
) -> list[str]:
    """Every measured pod (of `namespaces`, carrying `labels`) on a node not valid for it,
    the first three named."""
    nodes = {
        obj["metadata"]["name"]: Node.from_json(obj)
        for obj in await list_all(client, "/api/v1/nodes", timeout=LIST_TIMEOUT_SECONDS)
    }
    bad: list[str] = []
    for obj in await list_all(client, "/api/v1/pods", timeout=LIST_TIMEOUT_SECONDS):
        pod = Pod.from_json(obj)
        if pod.namespace not in namespaces or not pod.node_name:
            continue
        if any(pod.labels.get(k) != v for k, v in labels.items()):
            continue
        node = nodes.get(pod.node_name)
        why = misplaced(pod, node) if node is not None else "the node does not exist"
        if why:
            bad.append(f"pod {pod.key} on {pod.node_name}: {why}")
    if not bad:
        return []
    return [f"{len(bad)} measured pod(s) on a node not valid for them, e.g. {'; '.join(bad[:3])}"]
