"""`--feature-gates=DRAWorkloadResourceClaims=true` (beta, off by default in v1.37, needs
GenericWorkload as upstream's `kube_features.go` says) reaches DynamicResources: the
framework builder sets the plugin's switch only in a profile with the gate on."""

from __future__ import annotations

from kubesched.apis.config import Profile
from kubesched.plugins import in_tree_registry
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.runtime import build_framework
from kubesched.testing import FakeHandle
from tests.unit.config.conftest import Load, LoadErrors

GATES = "--feature-gates=GenericWorkload=true,DRAWorkloadResourceClaims=true"


def _dynamic_resources(profile: Profile) -> DynamicResources:
    fw = build_framework(profile=profile, registry=in_tree_registry(), handle=FakeHandle())
    found = [pl for pl in fw.plugins.pre_filter if isinstance(pl, DynamicResources)]
    assert len(found) == 1
    return found[0]


def test_the_gate_reaches_dynamic_resources(load: Load) -> None:
    result = load([GATES])
    assert all(profile.dra_workload_resource_claims for profile in result.config.profiles)
    assert not [n for n in result.notices if "DRAWorkloadResourceClaims" in n]


def test_off_by_default(load: Load) -> None:
    assert (
        not load(["--feature-gates=GenericWorkload=true"])
        .config.profiles[0]
        .dra_workload_resource_claims
    )


def test_the_builder_sets_the_plugins_switch_from_the_profile() -> None:
    # (GangScheduling left out: this FakeHandle serves no PodGroups.)
    assert _dynamic_resources(Profile(dra_workload_resource_claims=True)).workload_resource_claims
    assert not _dynamic_resources(Profile()).workload_resource_claims


def test_the_gate_needs_generic_workload(load_errors: LoadErrors) -> None:
    errors = load_errors(["--feature-gates=DRAWorkloadResourceClaims=true"])
    expected = (
        "--feature-gates: DRAWorkloadResourceClaims is enabled, but depends on features "
        "that are disabled: [GenericWorkload]; add GenericWorkload=true"
    )
    assert errors == (expected,)
