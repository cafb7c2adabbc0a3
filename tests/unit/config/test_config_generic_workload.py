"""`--feature-gates=GenericWorkload=true` is a real switch: every profile schedules native
PodGroups, GangScheduling is appended to the default multiPoint (as upstream), and no
"no switch" notice is printed for it."""

from pathlib import Path

import yaml

from kubesched.apis.config import MULTI_POINT
from kubesched.apis.defaults import default_plugins
from kubesched.config import dump_config
from tests.unit.config.conftest import Load


def test_the_gate_turns_native_gang_scheduling_on(load: Load) -> None:
    result = load(["--feature-gates=GenericWorkload=true"])
    assert result.config.generic_workload
    assert all(profile.generic_workload for profile in result.config.profiles)
    assert not any("GenericWorkload" in notice for notice in result.notices)


def test_off_by_default_and_when_set_false(load: Load) -> None:
    assert not load([]).config.generic_workload
    result = load(["--feature-gates=GenericWorkload=false"])
    assert not result.config.generic_workload


def test_other_gates_keep_their_notice(load: Load) -> None:
    result = load(["--feature-gates=GenericWorkload=true,PodGroupPreemptionPolicy=true"])
    assert [n for n in result.notices if "PodGroupPreemptionPolicy" in n]
    assert not [n for n in result.notices if "GenericWorkload" in n]


def test_gang_scheduling_is_the_last_default_plugin() -> None:
    assert "GangScheduling" not in {ref.name for ref in default_plugins()[MULTI_POINT].enabled}
    enabled = default_plugins(generic_workload=True)[MULTI_POINT].enabled
    assert enabled[-1].name == "GangScheduling"


def test_the_config_dump_lists_gang_scheduling(load: Load) -> None:
    document = yaml.safe_load(dump_config(load(["--feature-gates=GenericWorkload=true"]).config))
    multi = document["profiles"][0]["plugins"]["multiPoint"]["enabled"]
    assert multi[-1]["name"] == "GangScheduling"


def test_a_profile_may_disable_gang_scheduling(load: Load, tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: s\n  plugins:\n"
        "    multiPoint: {disabled: [{name: GangScheduling}]}\n"
    )
    result = load([f"--config={config}", "--feature-gates=GenericWorkload=true"])
    document = yaml.safe_load(dump_config(result.config))
    names = [p["name"] for p in document["profiles"][0]["plugins"]["multiPoint"]["enabled"]]
    assert "GangScheduling" not in names
