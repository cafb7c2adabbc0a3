"""`build` runs one informer per resource the enabled plugins declare: the built-in ones of
the default profile (namespaces, Services and controllers, PodDisruptionBudgets) feed only
their listers, and a plugin disabled takes its informers away."""

from __future__ import annotations

import pytest

from kubesched.framework.listers import IndexedStore
from kubesched.server.components import Components
from kubesched.server.informers import DeclaredResourceEvents

BUILT_IN = {
    "namespaces",
    "services",
    "replicationcontrollers",
    "replicasets.v1.apps",
    "statefulsets.v1.apps",
    "poddisruptionbudgets.v1.policy",
}


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
