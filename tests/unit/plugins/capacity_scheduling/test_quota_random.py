"""kubesched's CapacityScheduling, in process, against the reference model of
scheduler-plugins' quota rules (tests/e2e/harness/quota_model.py, written from its
sources) on the random scenarios of the end-to-end quota differential
(tests/e2e/harness/quota_scenario.py): the same pods one after the other, each decision
(bound where, refused, or preempted whom) one the rules allow. The end-to-end test holds
the model to scheduler-plugins' own build; this one runs many more seeds in a second.
"""

from __future__ import annotations

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import CycleState
from kubesched.model import Pod
from kubesched.plugins import in_tree_registry
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS
from kubesched.runtime import FitError, build_framework, schedule_pod
from kubesched.testing import FakeHandle, make_node, make_pod
from tests.e2e.harness.quota_expect import Observed, expect
from tests.e2e.harness.quota_model import ClusterState
from tests.e2e.harness.quota_scenario import GPU, PodSpec, Scenario, generate

SEEDS = range(1, 301)
PROFILE = Profile(
    scheduler_name="capacity-scheduler",
    plugins={
        "multiPoint": PluginSet(enabled=(PluginRef("CapacityScheduling"),)),
        "postFilter": PluginSet(
            enabled=(PluginRef("CapacityScheduling"),), disabled=(PluginRef("*"),)
        ),
        "score": PluginSet(enabled=(PluginRef("NodeResourcesFit", 1),), disabled=(PluginRef("*"),)),
    },
)


class InProcess:
    """The scenario's cluster in a FakeHandle; victims are evicted at once."""

    def __init__(self, scenario: Scenario) -> None:
        nodes = [
            make_node()
            .name(n.name)
            .capacity_named(n.allocatable.as_list(gpu=n.allocatable.gpu > 0))
            .model()
            for n in scenario.nodes
        ]
        quotas = [
            {"metadata": {"namespace": q.namespace, "name": "quota"}, "spec": q.spec()}
            for q in scenario.quotas
        ]
        self.handle = FakeHandle(nodes=nodes, objects=[(ELASTIC_QUOTAS, obj) for obj in quotas])
        self.framework = build_framework(
            profile=PROFILE, registry=in_tree_registry(), handle=self.handle
        )
        self.bound: dict[str, Pod] = {}

    def run(self, spec: PodSpec) -> Observed:
        pod = self._pod(spec)
        try:
            return Observed(self._bind(pod))
        except FitError as error:
            if not self.handle.preemptions:
                return Observed("", message=str(error))
        [preemption] = self.handle.preemptions
        self.handle.preemptions.clear()
        victims = frozenset(victim.name for victim in preemption.victims)
        for name in victims:
            gone = self.bound.pop(name)
            self.handle.listers.pods.on_delete(gone)
            info = self.handle.get_node_info(gone.node_name)
            assert info is not None
            info.remove_pod(gone.uid)
        return Observed(self._bind(self._pod(spec, preemption.node_name)), victims)

    def _bind(self, pod: Pod) -> str:
        nodes = self.handle.list_node_infos()
        node = schedule_pod(self.framework, CycleState(), pod, nodes).suggested_host
        bound = pod.on_node(node)
        self.handle.add_pod(bound)
        self.handle.listers.pods.on_add(bound)
        self.bound[pod.name] = bound
        return node

    @staticmethod
    def _pod(spec: PodSpec, nominated: str = "") -> Pod:
        request = spec.request.as_list(gpu=spec.request.gpu > 0)
        builder = make_pod().name(spec.name).namespace(spec.namespace).req_named(request)
        if nominated:
            builder = builder.nominated_node(nominated)
        if spec.request.gpu:
            builder = builder.req_named({GPU: str(spec.request.gpu)})
        if spec.never:
            builder = builder.preemption_policy("Never")
        return builder.priority(spec.priority).model()


@pytest.mark.parametrize("seed", SEEDS)
def test_kubesched_decides_as_the_quota_rules_allow(seed: int) -> None:
    scenario = generate(seed)
    state, cluster = ClusterState(scenario), InProcess(scenario)
    for spec in scenario.pods:
        expected = expect(state, spec)
        seen = cluster.run(spec)
        assert not expected.check(seen), f"seed {seed} {spec}: {expected.check(seen)}"
        state.apply(spec, seen.node, seen.victims)
