"""`build` with scheduler-plugins' CapacityScheduling profile (DefaultPreemption off at
PostFilter, CapacityScheduling alone there): the ElasticQuota informer feeds its lister and
the queue (the plugin requeues on any ElasticQuota change), and the PodDisruptionBudget
informer runs, since CapacityScheduling's preemption reads the budgets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kubesched.config import load_config
from kubesched.kube.connection import Connection
from kubesched.server.components import Components, build
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


class TokenConfiguration:
    async def get_api_key_with_prefix(self, name: str) -> str:
        return "Bearer unused"


@pytest.fixture
async def components(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Components]:
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        f"profiles:\n- schedulerName: s\n  plugins: {request.param}\n"
    )
    loaded = load_config([f"--config={path}"], environ={}, namespace_file=tmp_path / "none")
    built = build(
        loaded.config, connection=Connection("https://127.0.0.1:1", False, TokenConfiguration())
    )
    yield built
    for client in built.clients():
        await client.close()


@pytest.mark.parametrize("components", [CAPACITY], indirect=True)
def test_capacity_scheduling_watches_quotas_and_budgets(components: Components) -> None:
    declared = components.informers.declared
    assert isinstance(declared[QUOTAS]._handler, DeclaredResourceEvents)
    assert {QUOTAS, BUDGETS} <= set(components.informers.named())


@pytest.mark.parametrize("components", [NO_POST_FILTER], indirect=True)
def test_without_its_post_filter_no_budget_is_read(components: Components) -> None:
    assert QUOTAS in components.informers.named()
    assert BUDGETS not in components.informers.named()
