"""Preemption's permissions follow the profiles: DefaultPreemption is a default plugin, so
the generated RBAC grants `delete` on pods and reading PodDisruptionBudgets unless every
profile disables it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.manifests.preemption import preemption_enabled
from tests.unit.manifests.manifests_helpers import Build, config_for, one, rules_granting


def config_file(tmp_path: Path, *profiles: dict[str, Any]) -> str:
    path = tmp_path / "config.yaml"
    document = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": list(profiles),
    }
    path.write_text(yaml.safe_dump(document))
    return f"--config={path}"


def grants(objects: list[dict[str, Any]]) -> dict[str, bool]:
    rules = one(objects, "ClusterRole")["rules"]
    return {
        "delete pods": bool(rules_granting(rules, group="", resource="pods", verb="delete")),
        "list pdbs": bool(
            rules_granting(rules, group="policy", resource="poddisruptionbudgets", verb="list")
        ),
        "watch pdbs": bool(
            rules_granting(rules, group="policy", resource="poddisruptionbudgets", verb="watch")
        ),
    }


ON = {"delete pods": True, "list pdbs": True, "watch pdbs": True}
OFF = {"delete pods": False, "list pdbs": False, "watch pdbs": False}


def test_default_profile_preempts(build: Build) -> None:
    assert grants(build("--scheduler-name=my-scheduler")) == ON


@pytest.mark.parametrize(
    ("plugins", "preempts"),
    [
        ({"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}, False),
        ({"postFilter": {"disabled": [{"name": "*"}]}}, False),
        ({"multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}, False),
        ({"multiPoint": {"disabled": [{"name": "*"}]}}, False),
        (
            {
                "postFilter": {
                    "disabled": [{"name": "*"}],
                    "enabled": [{"name": "DefaultPreemption"}],
                }
            },
            True,
        ),
        (
            {
                "multiPoint": {
                    "disabled": [{"name": "*"}],
                    "enabled": [{"name": "DefaultPreemption"}],
                }
            },
            True,
        ),
        ({"filter": {"disabled": [{"name": "*"}]}}, True),
    ],
)
def test_profiles_that_disable_default_preemption(
    build: Build, tmp_path: Path, plugins: dict[str, Any], preempts: bool
) -> None:
    flag = config_file(tmp_path, {"schedulerName": "s", "plugins": plugins})
    assert preemption_enabled(config_for([flag], tmp_path=tmp_path)) is preempts
    assert grants(build(flag)) == (ON if preempts else OFF)


def test_one_preempting_profile_is_enough(build: Build, tmp_path: Path) -> None:
    quiet = {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}
    flag = config_file(
        tmp_path, {"schedulerName": "quiet", "plugins": quiet}, {"schedulerName": "preempting"}
    )
    assert grants(build(flag)) == ON


def test_an_explicit_option_wins(build: Build) -> None:
    assert grants(build(preemption=False)) == OFF
    assert grants(build(preemption=True)) == ON


@pytest.mark.parametrize(
    ("plugins", "preempts"),
    [
        (
            {
                "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
                "postFilter": {
                    "enabled": [{"name": "CapacityScheduling"}],
                    "disabled": [{"name": "*"}],
                },
            },
            True,
        ),
        (
            {
                "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
                "postFilter": {"disabled": [{"name": "DefaultPreemption"}]},
            },
            True,
        ),
        (
            {
                "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
                "postFilter": {"disabled": [{"name": "*"}]},
            },
            False,
        ),
        ({"postFilter": {"disabled": [{"name": "*"}]}}, False),
    ],
    ids=["example-profile", "from-multipoint", "post-filter-off", "not-enabled"],
)
def test_capacity_scheduling_preempts_where_it_runs_at_post_filter(
    build: Build, tmp_path: Path, plugins: dict[str, Any], preempts: bool
) -> None:
    flag = config_file(tmp_path, {"schedulerName": "s", "plugins": plugins})
    assert preemption_enabled(config_for([flag], tmp_path=tmp_path)) is preempts
    assert grants(build(flag)) == (ON if preempts else OFF)
