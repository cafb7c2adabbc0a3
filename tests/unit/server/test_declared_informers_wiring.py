"""`build` runs one informer per resource the enabled plugins declare: the built-in ones of
the default profile (namespaces, Services and controllers, PodDisruptionBudgets) feed only
their listers, and a plugin disabled takes its informers away."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kubesched.config import load_config
from kubesched.framework.listers import IndexedStore
from kubesched.kube.connection import Connection
from kubesched.server.components import Components, build
from kubesched.server.informers import DeclaredResourceEvents

BUILT_IN = {
    "namespaces",
    "services",
    "replicationcontrollers",
    "replicasets.v1.apps",
    "statefulsets.v1.apps",
    "poddisruptionbudgets.v1.policy",
}


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


@pytest.mark.parametrize("components", ["{}"], indirect=True)
def test_the_default_profile_lists_the_built_in_resources_for_no_queue(
    components: Components,
) -> None:
    declared = components.informers.declared
    assert set(declared) >= BUILT_IN
    for name in BUILT_IN:
        handler = declared[name]._handler
        assert isinstance(handler, IndexedStore), name
        assert not isinstance(handler, DeclaredResourceEvents)
    assert {"pods", "nodes"} | BUILT_IN <= set(components.informers.named())


@pytest.mark.parametrize(
    "components",
    [
        (
            "{multiPoint: {disabled: [{name: InterPodAffinity}, {name: PodTopologySpread}]},"
            " postFilter: {disabled: [{name: DefaultPreemption}]}}"
        )
    ],
    indirect=True,
)
def test_disabled_plugins_take_their_informers_away(components: Components) -> None:
    """PodDisruptionBudgets too, though DefaultPreemption still runs at PreEnqueue: only its
    PostFilter reads them (and RBAC grants them only then)."""
    assert not BUILT_IN & set(components.informers.named())
