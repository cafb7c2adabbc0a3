"""`build` with scheduler-plugins' CapacityScheduling profile (DefaultPreemption off at
PostFilter, CapacityScheduling alone there): the ElasticQuota informer feeds its lister and
the queue (the plugin requeues on any ElasticQuota change), and the PodDisruptionBudget
informer runs, since CapacityScheduling's preemption reads the budgets."""

from __future__ import annotations

import pytest

from kubesched.server.components import Components
from kubesched.server.informers import DeclaredResourceEvents

CAPACITY = (
    "{multiPoint: {enabled: [{name: CapacityScheduling}]},"
    " postFilter: {enabled: [{name: CapacityScheduling}], disabled: [{name: '*'}]}}"
)
NO_POST_FILTER = (
    "{multiPoint: {enabled: [{name: CapacityScheduling}]}, postFilter: {disabled: [{name: '*'}]}}"
)
QUOTAS = "elasticquotas.v1alpha1.scheduling.x-k8s.io"
BUDGETS = "poddisruptionbudgets.v1.policy"


@pytest.mark.parametrize("components", [CAPACITY], indirect=True)
def test_capacity_scheduling_watches_quotas_and_budgets(components: Components) -> None:
    declared = components.informers.declared
    assert isinstance(declared[QUOTAS]._handler, DeclaredResourceEvents)
    assert {QUOTAS, BUDGETS} <= set(components.informers.named())


@pytest.mark.parametrize("components", [NO_POST_FILTER], indirect=True)
def test_without_its_post_filter_no_budget_is_read(components: Components) -> None:
    assert QUOTAS in components.informers.named()
    assert BUDGETS not in components.informers.named()
