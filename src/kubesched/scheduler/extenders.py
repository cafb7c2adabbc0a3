"""kube-scheduler's extenders (upstream `HTTPExtender`): what is sent to each verb and what
its answer means. The HTTP calls are `kubesched.kube.extender_http`'s; the cycle that uses
them is `kubesched.scheduler.extender_cycle`.

Bodies and answers are the `k8s.io/kube-scheduler/extender/v1` types in their JSON form (Go
field names as keys; answers are read case-insensitively, as Go's decoder does):
`ExtenderArgs` {Pod, Nodes | NodeNames}, `ExtenderFilterResult` {Nodes | NodeNames,
FailedNodes, FailedAndUnresolvableNodes, Error}, `HostPriorityList` [{Host, Score}],
`ExtenderBindingArgs` {PodName, PodNamespace, PodUID, Node} -> {Error}.

A node sent whole (an extender without `nodeCacheCapable`) carries the fields kubesched
keeps of it (`node_document`): name, uid, resourceVersion, labels, taints,
unschedulable, allocatable and images.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.apis.extenders import Extender
from kubesched.apis.gotext import go_quote
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.kube.extender_http import ExtenderCallError, ExtenderClient
from kubesched.model import Node, Pod
from kubesched.model.resources import Resource


class ExtenderAnswerError(ExtenderCallError):
    """An extender answered, but with an error or an answer that cannot be used."""


@dataclass(frozen=True, slots=True)
class FilterAnswer:
    """What an extender's filter verb said about the nodes it was sent."""

    nodes: list[NodeInfo]
    """The nodes that passed, in the extender's order."""
    failed: dict[str, str] = field(default_factory=dict)
    """Node -> why it failed (the pod could fit after a change: preemption may help)."""
    unresolvable: dict[str, str] = field(default_factory=dict)
    """Node -> why it failed for good (takes precedence over `failed`)."""


class HttpExtender:
    """One configured extender and its client."""

    def __init__(self, config: Extender, client: ExtenderClient) -> None:
        self.config = config
        self.client = client
        self._managed = frozenset(r.name for r in config.managed_resources)

    @property
    def name(self) -> str:
        """Upstream names an extender by its URL prefix."""
        return self.config.url_prefix

    @property
    def is_filter(self) -> bool:
        return bool(self.config.filter_verb)

    @property
    def is_prioritizer(self) -> bool:
        return bool(self.config.prioritize_verb)

    @property
    def is_binder(self) -> bool:
        return bool(self.config.bind_verb)

    @property
    def supports_preemption(self) -> bool:
        return bool(self.config.preempt_verb)

    @property
    def ignorable(self) -> bool:
        return self.config.ignorable

    def is_interested(self, pod: Pod) -> bool:
        """Upstream `IsInterested`: every pod when it manages no resource, else a pod whose
        containers request one of them (the API server copies an extended resource's limit
        to its request, so the requests hold every such name)."""
        if not self._managed:
            return True
        return not self._managed.isdisjoint(pod.requests.scalar)

    def _args(self, pod_json: Mapping[str, Any], nodes: Sequence[NodeInfo]) -> dict[str, Any]:
        if self.config.node_cache_capable:
            return {"Pod": pod_json, "Nodes": None, "NodeNames": [n.name for n in nodes]}
        items = [node_document(n.node) for n in nodes]
        return {"Pod": pod_json, "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}

    async def filter(self, pod_json: Mapping[str, Any], nodes: Sequence[NodeInfo]) -> FilterAnswer:
        """Upstream `Filter`: the nodes that pass and why the others failed."""
        if not self.is_filter:
            return FilterAnswer(list(nodes))
        answer = _object(
            await self.client.post(self.config.filter_verb, self._args(pod_json, nodes))
        )
        error = get_field(answer, "Error")
        if error:
            raise ExtenderAnswerError(str(error))
        passed: list[NodeInfo] = []
        names = get_field(answer, "NodeNames")
        listed = get_field(answer, "Nodes")
        if self.config.node_cache_capable and names is not None:
            passed = self._known(nodes, _strings(names))
        elif listed is not None:
            passed = [_bare_node_info(item) for item in _items(listed)]
        return FilterAnswer(
            passed,
            _failed_map(get_field(answer, "FailedNodes")),
            _failed_map(get_field(answer, "FailedAndUnresolvableNodes")),
        )

    def _known(self, nodes: Sequence[NodeInfo], names: Iterable[str]) -> list[NodeInfo]:
        by_name = {node.name: node for node in nodes}
        passed = []
        for name in names:
            node = by_name.get(name)
            if node is None:
                msg = (
                    f"extender {go_quote(self.name)} claims a filtered node {go_quote(name)} "
                    "which is not found in the input node list"
                )
                raise ExtenderAnswerError(msg)
            passed.append(node)
        return passed

    async def prioritize(
        self, pod_json: Mapping[str, Any], nodes: Sequence[NodeInfo]
    ) -> tuple[list[tuple[str, int]], int]:
        """Upstream `Prioritize`: (host, score) pairs and this extender's weight."""
        if not self.is_prioritizer:
            return [(node.name, 0) for node in nodes], 0
        verb = self.config.prioritize_verb
        answer = await self.client.post(verb, self._args(pod_json, nodes))
        if answer is None:
            return [], self.config.weight
        if not isinstance(answer, list):
            raise ExtenderAnswerError(f"{verb}: expected a list of {{Host, Score}}, got {answer!r}")
        return [_host_priority(item) for item in answer], self.config.weight

    async def bind(self, pod: Pod, node_name: str) -> None:
        """Upstream `Bind`: the extender binds `pod` to `node_name` (raises on failure)."""
        args = {
            "PodName": pod.name,
            "PodNamespace": pod.namespace,
            "PodUID": pod.uid,
            "Node": node_name,
        }
        answer = await self.client.post(self.config.bind_verb, args)
        error = get_field(_object(answer), "Error") if answer is not None else None
        if error:
            raise ExtenderAnswerError(str(error))


def node_document(node: Node) -> dict[str, Any]:
    """A v1 Node as kubesched keeps it (what an extender without a node cache is sent)."""
    spec: dict[str, Any] = {}
    if node.unschedulable:
        spec["unschedulable"] = True
    if node.taints:
        spec["taints"] = [
            {"key": t.key, **({"value": t.value} if t.value else {}), "effect": t.effect}
            for t in node.taints
        ]
    status: dict[str, Any] = {"allocatable": resource_list(node.allocatable)}
    if node.images:
        status["images"] = [
            {"names": list(image.names), "sizeBytes": image.size_bytes} for image in node.images
        ]
    metadata: dict[str, Any] = {"name": node.name}
    if node.uid:
        metadata["uid"] = node.uid
    if node.resource_version:
        metadata["resourceVersion"] = node.resource_version
    if node.labels:
        metadata["labels"] = dict(node.labels)
    return {"metadata": metadata, "spec": spec, "status": status}


def resource_list(resource: Resource) -> dict[str, str]:
    """A `ResourceList` of `resource` (canonical quantities: milli-CPU as `<n>m`)."""
    listed = {
        "cpu": f"{resource.milli_cpu}m",
        "memory": str(resource.memory),
        "ephemeral-storage": str(resource.ephemeral_storage),
        "pods": str(resource.allowed_pods),
    }
    listed.update((name, str(amount)) for name, amount in resource.scalar.items())
    return listed


def _bare_node_info(item: object) -> NodeInfo:
    """A node an extender returned whole, as upstream takes it: a fresh NodeInfo holding the
    node alone (no pods counted)."""
    if not isinstance(item, dict):
        raise ExtenderAnswerError(f"filter: expected a Node, got {item!r}")
    return NodeInfo(node=Node.from_json(item))


def get_field(answer: Mapping[str, Any], key: str) -> Any:
    """`answer[key]`, the key matched without case as Go's JSON decoder does."""
    if key in answer:
        return answer[key]
    lowered = key.lower()
    return next((value for name, value in answer.items() if name.lower() == lowered), None)


def _object(answer: object) -> dict[str, Any]:
    if not isinstance(answer, dict):
        raise ExtenderAnswerError(f"expected a JSON object, got {answer!r}")
    return answer


def _strings(value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ExtenderAnswerError(f"NodeNames: expected a list of names, got {value!r}")
    return value


def _items(value: object) -> list[Any]:
    items = get_field(_object(value), "items")
    return list(items or [])


def _failed_map(value: object) -> dict[str, str]:
    if value is None:
        return {}
    return {str(node): str(reason) for node, reason in _object(value).items()}


def _host_priority(item: object) -> tuple[str, int]:
    entry = _object(item)
    score = get_field(entry, "Score") or 0
    if isinstance(score, bool) or not isinstance(score, int):
        raise ExtenderAnswerError(f"prioritize: Score must be a whole number, got {score!r}")
    return str(get_field(entry, "Host") or ""), score
