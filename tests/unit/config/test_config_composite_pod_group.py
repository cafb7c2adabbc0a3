"""`--feature-gates=CompositePodGroup=true` (alpha, off): a real switch that needs
GenericWorkload and TopologyAwareWorkloadScheduling, as kube-scheduler v1.37.2's
`defaultKubernetesFeatureGateDependencies`; with it CompositePodGroups are watched."""

from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS
from kubesched.framework.resources import cluster_resources
from kubesched.plugins import in_tree_registry
from tests.unit.config.conftest import Load, LoadErrors

ALL = "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true"


def _watched(load: Load, flags: list[str]) -> bool:
    config = load(flags).config
    specs = cluster_resources(config, in_tree_registry())
    return any(spec.same_resource(SCHEDULING_COMPOSITEPODGROUPS) for spec in specs)


def test_the_gate_needs_both_workload_gates(load_errors: LoadErrors) -> None:
    errors = load_errors(["--feature-gates=GenericWorkload=true,CompositePodGroup=true"])
    assert any(
        "CompositePodGroup is enabled, but depends on features that are disabled: "
        "[TopologyAwareWorkloadScheduling]" in error
        for error in errors
    )


def test_with_its_dependencies_every_profile_reads_the_trees(load: Load) -> None:
    result = load([f"{ALL},CompositePodGroup=true"])
    assert result.config.composite_pod_group
    assert all(profile.composite_pod_group for profile in result.config.profiles)
    assert not any("CompositePodGroup" in notice for notice in result.notices)
    assert _watched(load, [f"{ALL},CompositePodGroup=true"])


def test_off_by_default_nothing_is_watched(load: Load) -> None:
    assert not load([ALL]).config.composite_pod_group
    assert not _watched(load, [ALL])
