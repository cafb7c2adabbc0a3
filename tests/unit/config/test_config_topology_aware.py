"""`--feature-gates=TopologyAwareWorkloadScheduling=true` (with GenericWorkload) is a real
switch: TopologyPlacementGenerator and PodGroupPodsCount (weight 1) follow GangScheduling in
the default multiPoint, as upstream's `applyTopologyAwareWorkloadScheduling`; alone, it is
refused as kube-scheduler refuses a gate whose dependency is off."""

from __future__ import annotations

import yaml

from kubesched.apis.config import MULTI_POINT
from kubesched.apis.defaults import default_plugins
from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.config import dump_config
from kubesched.framework.listers import ClusterListers
from kubesched.runtime import build_framework
from kubesched.testing import FakeHandle
from tests.unit.config.conftest import Load, LoadErrors, WriteFile

BOTH = "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true"


def test_the_gate_turns_topology_aware_placement_on(load: Load) -> None:
    result = load([BOTH])
    assert all(p.topology_aware_workload_scheduling for p in result.config.profiles)
    assert not any("TopologyAwareWorkloadScheduling" in n for n in result.notices)
    assert (
        not load(["--feature-gates=GenericWorkload=true"])
        .config.profiles[0]
        .topology_aware_workload_scheduling
    )


def test_without_generic_workload_the_gate_is_refused(load_errors: LoadErrors) -> None:
    errors = load_errors(["--feature-gates=TopologyAwareWorkloadScheduling=true"])
    expected = (
        "--feature-gates: TopologyAwareWorkloadScheduling is enabled, but depends on features "
        "that are disabled: [GenericWorkload]; add GenericWorkload=true"
    )
    assert errors == (expected,)


def test_the_placement_plugins_follow_gang_scheduling() -> None:
    enabled = default_plugins(generic_workload=True, topology_aware=True)[MULTI_POINT].enabled
    tail = [(ref.name, ref.weight) for ref in enabled[-3:]]
    assert tail == [
        ("GangScheduling", None),
        ("TopologyPlacementGenerator", None),
        ("PodGroupPodsCount", 1),
    ]
    off = {ref.name for ref in default_plugins(generic_workload=True)[MULTI_POINT].enabled}
    assert not off & {"TopologyPlacementGenerator", "PodGroupPodsCount"}


def test_the_config_dump_lists_them(load: Load) -> None:
    document = yaml.safe_load(dump_config(load([BOTH]).config))
    multi = document["profiles"][0]["plugins"]["multiPoint"]["enabled"]
    assert [p["name"] for p in multi[-2:]] == ["TopologyPlacementGenerator", "PodGroupPodsCount"]


def test_the_framework_gets_the_placement_points(load: Load) -> None:
    from kubesched.plugins import in_tree_registry  # noqa: PLC0415 - the full registry

    profile = load([BOTH]).config.profiles[0]
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    fw = build_framework(profile=profile, registry=in_tree_registry(), handle=handle)
    assert fw.topology_aware
    assert [pl.name for pl in fw.plugins.placement_generate] == ["TopologyPlacementGenerator"]
    assert [pl.name for pl in fw.plugins.placement_score] == ["PodGroupPodsCount"]
    assert fw.placement_score_weights == {"PodGroupPodsCount": 1}
    listed = fw.list_plugins()
    assert listed["placementGenerate"] == ["TopologyPlacementGenerator"]
    assert listed["placementScore"] == ["PodGroupPodsCount:1"]
    gated_off = load(["--feature-gates=GenericWorkload=true"]).config.profiles[0]
    plain = build_framework(profile=gated_off, registry=in_tree_registry(), handle=handle)
    assert not plain.topology_aware
    assert not plain.plugins.placement_generate
    assert not plain.plugins.placement_score


def test_a_profile_may_set_the_placement_points(load: Load, write_config: WriteFile) -> None:
    from kubesched.plugins import in_tree_registry  # noqa: PLC0415 - the full registry

    path = write_config(
        """
        profiles:
        - schedulerName: s
          plugins:
            placementScore:
              enabled: [{name: PodGroupPodsCount, weight: 3}]
            placementGenerate:
              disabled: [{name: TopologyPlacementGenerator}]
        """
    )
    profile = load([f"--config={path}", BOTH]).config.profiles[0]
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    fw = build_framework(profile=profile, registry=in_tree_registry(), handle=handle)
    assert fw.plugins.placement_generate == []
    assert fw.placement_score_weights == {"PodGroupPodsCount": 3}
    document = yaml.safe_load(dump_config(load([f"--config={path}", BOTH]).config))
    plugins = document["profiles"][0]["plugins"]
    assert plugins["placementScore"] == {
        "enabled": [{"name": "PodGroupPodsCount", "weight": 3}],
    }


def test_pod_group_post_filter_plugins_are_still_refused(
    load_errors: LoadErrors, write_config: WriteFile
) -> None:
    path = write_config(
        """
        profiles:
        - schedulerName: s
          plugins:
            podGroupPostFilter: {enabled: [{name: DefaultPreemption}]}
        """
    )
    (error,) = load_errors([f"--config={path}", BOTH])
    assert "podGroupPostFilter" in error
    assert "kubesched has no such extension point" in error
