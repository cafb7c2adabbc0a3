"""`OfflineHandle`: the Handle the start-up checks build every profile's plugins over (an
empty cluster, no test fake): reads answer from nothing, writes are refused."""

from __future__ import annotations

import pytest

from kubesched.apis.config import Profile
from kubesched.framework import ResourceSpec
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import declared_resources
from kubesched.model import ApiObject
from kubesched.plugins import in_tree_registry
from kubesched.runtime import build_framework
from kubesched.runtime.offline import OfflineError, OfflineHandle
from kubesched.testing import make_pod

CONFIGMAPS = ResourceSpec("", "v1", "configmaps", writes=True)


def test_an_offline_handle_is_an_empty_cluster() -> None:
    handle = OfflineHandle(ClusterListers([CONFIGMAPS]))
    assert list(handle.list_node_infos()) == []
    assert handle.get_node_info("n1") is None
    assert handle.lister(CONFIGMAPS).list() == []
    assert not handle.has_nominated_pods()
    assert handle.shared_dra_manager().all_claims() == []
    assert handle.shared_dra_manager().slices_with_taint_rules() == []


async def test_an_offline_handle_refuses_every_write() -> None:
    handle = OfflineHandle(ClusterListers([CONFIGMAPS]))
    pod = make_pod().name("p").model()
    obj = ApiObject.from_json({"metadata": {"name": "c", "namespace": "default"}})
    with pytest.raises(OfflineError, match="never writes to the cluster"):
        await handle.bind(pod, "n1")
    with pytest.raises(OfflineError, match="never writes objects"):
        await handle.patch_object(CONFIGMAPS, obj, {})
    with pytest.raises(OfflineError, match="never creates objects"):
        await handle.create_object(CONFIGMAPS, "default", {})
    with pytest.raises(OfflineError, match="never deletes objects"):
        await handle.delete_object(CONFIGMAPS, obj)
    handle.record_event(pod, event_type="Normal", reason="R", action="A", note="n")
    handle.activate([pod])
    handle.patch_status(CONFIGMAPS, obj, {})


def test_the_default_profile_builds_over_an_offline_handle() -> None:
    registry = in_tree_registry()
    profile = Profile(scheduler_name="default-scheduler")
    handle = OfflineHandle(ClusterListers(declared_resources([profile], registry)))
    framework = build_framework(profile=profile, registry=registry, handle=handle)
    assert "DynamicResources" in {
        name.partition(":")[0] for names in framework.list_plugins().values() for name in names
    }
