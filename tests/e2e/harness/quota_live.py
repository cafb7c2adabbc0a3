"""One scheduler's run of a quota scenario (harness/quota_scenario.py) on the real cluster.

    side = LiveSide(api, "sp-quota", scenario, namespaces, classes)
    observed = side.run()   # one `Observed` per pod, in the scenario's order

The side creates the scenario's ElasticQuotas in its namespaces (logical name -> real), then
the pods one at a time, each after the previous one settled: bound (after evicting the
victims it preempted, if any), or refused with PodScheduled=False and no nominated node.
A refused pod is deleted at once (it gives up), so that no later event lets it in behind
the next pod's back. At the end every pod and quota of the side is deleted, so the other
scheduler's run starts from the same empty cluster.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

from kubesched.testing import make_pod
from tests.e2e.harness.api import ApiClient, Event
from tests.e2e.harness.quota_expect import Observed
from tests.e2e.harness.quota_scenario import GPU, PodSpec, Scenario
from tests.e2e.harness.waiting import is_bound, node_name, unschedulable_message, wait_for

EQ_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/elasticquotas"
SIDE_LABEL = "quota-diff.kubesched.io/side"
INFORMERS_CATCH_UP = 1.0
"""Seconds for both schedulers' informers to see quotas created or deleted."""


@dataclass
class LiveSide:
    api: ApiClient
    scheduler: str
    scenario: Scenario
    namespaces: dict[str, str]
    """Logical namespace (the scenario's) -> this side's real one."""
    classes: dict[str, str]
    """Priority short name -> this test's PriorityClass."""
    bound: dict[str, str] = field(default_factory=dict)

    def run(self) -> list[Observed]:
        for quota in self.scenario.quotas:
            body = {
                "apiVersion": "scheduling.x-k8s.io/v1alpha1",
                "kind": "ElasticQuota",
                "metadata": {"name": "quota"},
                "spec": quota.spec(),
            }
            self.api.request("POST", EQ_PATH.format(ns=self.namespaces[quota.namespace]), body=body)
        time.sleep(INFORMERS_CATCH_UP)
        try:
            seen = [self._step(pod) for pod in self.scenario.pods]
            first = self._first_failures()
            return [
                replace(s, first_failure=first.get(p.name, ""))
                for p, s in zip(self.scenario.pods, seen, strict=True)
            ]
        finally:
            self.clear()

    def _first_failures(self) -> dict[str, str]:
        """Each pod's first FailedScheduling note (normalized): its first attempt's text."""
        first: dict[str, tuple[str, str]] = {}
        for namespace in self.namespaces.values():
            for event in self.api.events(namespace, reason="FailedScheduling"):
                when = str(event.raw.get("eventTime") or event.raw["metadata"]["creationTimestamp"])
                name = event.regarding_name
                if name not in first or when < first[name][0]:
                    first[name] = (when, self.normalize(event.note))
        return {name: note for name, (_, note) in first.items()}

    def normalize(self, text: str) -> str:
        for logical, real in self.namespaces.items():
            text = text.replace(real, logical)
        return text

    def _pods(self) -> dict[str, dict[str, Any]]:
        found = self.api.list("Pod", label_selector=f"{SIDE_LABEL}={self.scheduler}")
        return {p["metadata"]["name"]: p for p in found}

    def _create(self, pod: PodSpec) -> None:
        request = pod.request.as_list(gpu=pod.request.gpu > 0)
        body = (
            make_pod()
            .name(pod.name)
            .scheduler(self.scheduler)
            .label(SIDE_LABEL, self.scheduler)
            .req_named(request)
            .obj()
        )
        if pod.request.gpu:
            body["spec"]["containers"][0]["resources"]["limits"] = {GPU: str(pod.request.gpu)}
        if pod.class_name:
            body["spec"]["priorityClassName"] = self.classes[pod.class_name]
        body["spec"]["terminationGracePeriodSeconds"] = 0  # no kubelet finishes a deletion
        self.api.create(body, namespace=self.namespaces[pod.namespace])

    def _step(self, pod: PodSpec) -> Observed:
        self._create(pod)
        waited: list[bool] = []

        def settled(pods: dict[str, dict[str, Any]]) -> bool:
            mine = pods.get(pod.name)
            if mine is None or is_bound(mine):
                return mine is not None
            message = unschedulable_message(mine)
            waited.append(bool(message))
            return bool(message) and not mine.get("status", {}).get("nominatedNodeName")

        pods = wait_for(
            self._pods, until=settled, timeout=40, message=f"{self.scheduler}: {pod.name} settled"
        )
        mine = pods[pod.name]
        namespace = self.namespaces[pod.namespace]
        if not is_bound(mine):
            self.api.delete("Pod", pod.name, namespace=namespace, grace_period=0)
            wait_for(self._pods, until=lambda now: pod.name not in now, message="refused pod gone")
            return Observed("", message=self.normalize(unschedulable_message(mine)))
        if any(waited):  # it preempted: let every eviction land before counting victims
            time.sleep(0.5)
            pods = self._pods()
        victims = frozenset(name for name in self.bound if name not in pods)
        for name in victims:
            del self.bound[name]
        self.bound[pod.name] = node_name(mine)
        return Observed(node_name(mine), victims, rounds=self._rounds(victims))

    def _rounds(self, victims: frozenset[str]) -> tuple[tuple[str, frozenset[str]], ...]:
        """The victims grouped by the node their `Preempted` event names, in event order."""
        if not victims:
            return ()

        def preempted() -> dict[str, Event]:
            events = (
                event
                for namespace in self.namespaces.values()
                for event in self.api.events(namespace, reason="Preempted")
            )
            return {e.regarding_name: e for e in events if e.regarding_name in victims}

        found = wait_for(
            preempted, until=lambda seen: set(seen) >= victims, message="Preempted events"
        )
        by_node: dict[str, list[tuple[str, str]]] = {}
        for name, event in found.items():
            match = re.search(r"on node (\S+)$", event.note)
            assert match, event.note
            when = event.raw.get("eventTime") or event.raw["metadata"]["creationTimestamp"]
            by_node.setdefault(match[1], []).append((str(when), name))
        ordered = sorted(by_node.items(), key=lambda item: min(item[1]))
        return tuple((node, frozenset(name for _, name in names)) for node, names in ordered)

    def clear(self) -> None:
        """Delete every pod and quota of this side; wait until the pods are gone."""
        for namespace in self.namespaces.values():
            self.api.delete_all("Pod", namespace=namespace, grace_period=0)
        wait_for(self._pods, until=lambda pods: not pods, message=f"{self.scheduler}: pods gone")
        for quota in self.scenario.quotas:
            path = EQ_PATH.format(ns=self.namespaces[quota.namespace]) + "/quota"
            self.api.request("DELETE", path)
        self.bound.clear()
        time.sleep(INFORMERS_CATCH_UP)
