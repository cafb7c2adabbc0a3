"""The storage informers: their stores back the volume listers, their events move pods."""

from __future__ import annotations

from typing import Any

from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.server.volume_informers import volume_informers


class NoApi:
    """Informers are only made here, never run: no request is sent."""

    async def get(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("no request expected")

    post = put = patch = delete = get

    def watch(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no watch expected")


def test_stores_back_the_listers_and_events_become_cluster_events() -> None:
    moved: list[ClusterEvent] = []
    informers = volume_informers(NoApi(), move=lambda event, old, new: moved.append(event))
    assert set(informers.reflectors) == {
        "persistentvolumeclaims",
        "persistentvolumes",
        "storageclasses",
        "csinodes",
        "csidrivers",
        "csistoragecapacities",
        "volumeattachments",
    }
    claims = informers.reflectors["persistentvolumeclaims"]
    claim = claims._safe_decode({"metadata": {"name": "c", "namespace": "ns"}})
    assert claim is not None
    claims.store["ns/c"] = claim
    assert informers.listers.claim("ns", "c") is claim
    claims._handler.on_add(claim)
    claims._handler.on_update(claim, claim)  # unchanged: nothing moves
    assert moved == [ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)]
    assert moved[0].label == "PersistentVolumeClaimAdd"
