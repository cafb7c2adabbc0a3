"""The chart's ClusterRole follows its plugins as `kubesched manifests` does: for each config of
a table, `helm template` with the config's profiles (and flags as `extraArgs`, or gates as
`featureGates`) renders exactly the rules `kubesched manifests --config` prints. This
equality keeps the two derivations (Python in kubesched.manifests.rbac, Go template in the
chart) one. And `rbac.extraRules`: appended, schema-checked, and written by `--helm-chart`
for what a plugin module declares."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from kubesched.cli import manifests
from tests.unit.manifests.chart_render import (
    cluster_role_rules,
    helm_refusal,
    helm_template,
    manifests_objects,
)

EXAMPLES = Path(__file__).parents[3] / "examples"
COSCHEDULING: dict[str, Any] = {
    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
    "queueSort": {"disabled": [{"name": "PrioritySort"}]},
}
NO_VOLUMES: dict[str, Any] = {
    "filter": {
        "disabled": [
            {"name": name}
            for name in ("VolumeBinding", "VolumeRestrictions", "VolumeZone", "NodeVolumeLimits")
        ]
    }
}
# Coscheduling without its QueueSort: profiles must share one (the first profile's).
GANG_POINTS: dict[str, Any] = {
    point: {"enabled": [{"name": "Coscheduling"}]} for point in ("preFilter", "permit", "reserve")
}
# scheduler-plugins' example profile: CapacityScheduling everywhere, alone at PostFilter.
CAPACITY: dict[str, Any] = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
}
GATE = "--feature-gates=GenericWorkload=true"
NATIVE, X_K8S = "scheduling.k8s.io", "scheduling.x-k8s.io"
VOLUMES, PREEMPTION = "persistentvolumes", "poddisruptionbudgets"
QUOTAS = "elasticquotas"
TOPOLOGIES = "noderesourcetopologies"
COMPOSITES = "compositepodgroups"
COMPOSITE_GATES = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"


def _profile(name: str = "kubesched", **plugins: Any) -> dict[str, Any]:
    return {"schedulerName": name, "plugins": plugins} if plugins else {"schedulerName": name}


class Case(NamedTuple):
    profiles: list[dict[str, Any]] | None
    """The config's profiles; None: the chart's defaults."""
    flags: list[str]
    """Flags of `kubesched manifests`, the chart's `extraArgs`."""
    values: list[str]
    """`--set=featureGates.<gate>` of helm, `--feature-gates=<gate>` of manifests."""
    kinds: set[str]
    """Which of the config-dependent rules must be there."""


CASES = [
    pytest.param(Case(None, [], [], {VOLUMES, PREEMPTION}), id="defaults"),
    pytest.param(
        Case([_profile(**COSCHEDULING)], [], [], {X_K8S, VOLUMES, PREEMPTION}), id="cosched"
    ),
    pytest.param(
        Case(
            [_profile(permit={"enabled": [{"name": "Coscheduling"}]})],
            [],
            [],
            {X_K8S, VOLUMES, PREEMPTION},
        ),
        id="cosched-at-permit-only",
    ),
    pytest.param(
        Case([_profile(), _profile("gang", **GANG_POINTS)], [], [], {X_K8S, VOLUMES, PREEMPTION}),
        id="cosched-in-second-profile",
    ),
    pytest.param(
        Case([_profile(**CAPACITY)], [], [], {QUOTAS, VOLUMES, PREEMPTION}), id="capacity"
    ),
    pytest.param(
        Case(
            [
                _profile(
                    multiPoint={"enabled": [{"name": "CapacityScheduling"}]},
                    postFilter={"disabled": [{"name": "DefaultPreemption"}]},
                )
            ],
            [],
            [],
            {QUOTAS, VOLUMES, PREEMPTION},
        ),
        id="capacity-preempts-from-multipoint",
    ),
    pytest.param(
        Case(
            [
                _profile(
                    multiPoint={"enabled": [{"name": "CapacityScheduling"}]},
                    postFilter={"disabled": [{"name": "*"}]},
                )
            ],
            [],
            [],
            {QUOTAS, VOLUMES},
        ),
        id="capacity-without-post-filter",
    ),
    pytest.param(
        Case(
            [_profile(multiPoint={"enabled": [{"name": "NodeResourceTopologyMatch"}]})],
            [],
            [],
            {TOPOLOGIES, VOLUMES, PREEMPTION},
        ),
        id="node-resource-topology",
    ),
    pytest.param(
        Case(
            [
                _profile(),
                _profile("numa", filter={"enabled": [{"name": "NodeResourceTopologyMatch"}]}),
            ],
            [],
            [],
            {TOPOLOGIES, VOLUMES, PREEMPTION},
        ),
        id="node-resource-topology-in-second-profile",
    ),
    pytest.param(Case(None, [GATE], [], {NATIVE, VOLUMES, PREEMPTION}), id="gate"),
    pytest.param(
        Case(None, ["--feature-gates", "GenericWorkload=t"], [], {NATIVE, VOLUMES, PREEMPTION}),
        id="gate-as-two-args",
    ),
    pytest.param(
        Case(
            None,
            ["--feature-gates=NominatedNodeNameForExpectation=false, GenericWorkload=True"],
            [],
            {NATIVE, VOLUMES, PREEMPTION},
        ),
        id="gate-among-others",
    ),
    pytest.param(
        Case(None, [GATE, "--feature-gates=GenericWorkload=false"], [], {VOLUMES, PREEMPTION}),
        id="gate-turned-off-again",
    ),
    pytest.param(
        Case(
            [_profile(multiPoint={"disabled": [{"name": "GangScheduling"}]})],
            [GATE],
            [],
            {NATIVE, VOLUMES, PREEMPTION},
        ),
        id="gate-without-gang-plugin",  # the pod-group cycle still reads PodGroups
    ),
    pytest.param(
        Case(
            [_profile(multiPoint={"enabled": [{"name": "GangScheduling"}]})],
            [],
            [],
            {NATIVE, VOLUMES, PREEMPTION},
        ),
        id="gang-plugin-without-gate",
    ),
    pytest.param(
        Case(
            [_profile("native"), _profile("gang", **GANG_POINTS)],
            [GATE],
            [],
            {NATIVE, X_K8S, VOLUMES, PREEMPTION},
        ),
        id="gate-and-cosched",
    ),
    pytest.param(
        Case(None, [], ["--set=featureGates.GenericWorkload=true"], {NATIVE, VOLUMES, PREEMPTION}),
        id="gate-in-values",
    ),
    pytest.param(
        Case(
            None,
            [f"--feature-gates={COMPOSITE_GATES}"],
            [],
            {NATIVE, COMPOSITES, VOLUMES, PREEMPTION},
        ),
        id="composite-gate",
    ),
    pytest.param(
        Case(
            None,
            [],
            [
                "--set=featureGates.GenericWorkload=true",
                "--set=featureGates.TopologyAwareWorkloadScheduling=true",
                "--set=featureGates.CompositePodGroup=true",
            ],
            {NATIVE, COMPOSITES, VOLUMES, PREEMPTION},
        ),
        id="composite-gate-in-values",
    ),
    pytest.param(
        Case(
            [_profile(**NO_VOLUMES, postFilter={"disabled": [{"name": "DefaultPreemption"}]})],
            [],
            [],
            set(),
        ),
        id="no-volumes-no-preemption",
    ),
    pytest.param(
        Case(
            [_profile(multiPoint={"disabled": [{"name": "VolumeBinding"}]}, **NO_VOLUMES)],
            [],
            [],
            {PREEMPTION},
        ),
        id="volumes-off-in-both-ways",
    ),
    pytest.param(
        Case([_profile(**NO_VOLUMES), _profile("second")], [], [], {VOLUMES, PREEMPTION}),
        id="volumes-in-one-profile",
    ),
    pytest.param(
        Case(
            [
                _profile(
                    multiPoint={
                        "disabled": [{"name": "*"}],
                        "enabled": [
                            {"name": "Coscheduling"},
                            {"name": "NodeResourcesFit"},
                            {"name": "DefaultBinder"},
                        ],
                    }
                )
            ],
            [],
            [],
            {X_K8S},
        ),
        id="wildcard-disabled",
    ),
    pytest.param(
        Case(
            [
                _profile(
                    filter={"enabled": [{"name": "VolumeZone"}]},
                    multiPoint={
                        "disabled": [{"name": "*"}],
                        "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                    },
                )
            ],
            [],
            [],
            {VOLUMES},
        ),
        id="volume-plugin-enabled-at-filter",
    ),
]


def _config(tmp_path: Path, profiles: list[dict[str, Any]] | None) -> list[str]:
    if profiles is None:
        return []
    path = tmp_path / "config.yaml"
    document = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": profiles,
    }
    path.write_text(yaml.safe_dump(document))
    return [f"--config={path}"]


def _kinds(rules: list[dict[str, Any]]) -> set[str]:
    """Which config-dependent rules are there."""
    found = set()
    for rule in rules:
        resources = set(rule.get("resources", ()))
        if "podgroups" in resources:
            found.add(rule["apiGroups"][0])
        found |= resources & {VOLUMES, PREEMPTION, QUOTAS, TOPOLOGIES, COMPOSITES}
    return found


@pytest.mark.parametrize("case", CASES)
def test_the_chart_grants_exactly_what_manifests_grants(
    helm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: Case
) -> None:
    profiles, flags, values, kinds = case
    gate_flags = [f"--feature-gates={v.removeprefix('--set=featureGates.')}" for v in values]
    expected = cluster_role_rules(
        manifests_objects(capsys, *_config(tmp_path, profiles), *flags, *gate_flags)
    )
    sets = [f"--set-json=extraArgs={json.dumps(flags)}", *values]
    if profiles is not None:
        sets.append(f"--set-json=profiles={json.dumps(profiles)}")
    rendered = cluster_role_rules(helm_template(helm, *sets, show="clusterrole.yaml"))

    assert rendered == expected
    assert _kinds(rendered) == kinds


EXTRA = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}


def test_extra_rules_are_appended(helm: Path) -> None:
    plain = cluster_role_rules(helm_template(helm, show="clusterrole.yaml"))
    rules = cluster_role_rules(
        helm_template(
            helm, f"--set-json=rbac.extraRules=[{json.dumps(EXTRA)}]", show="clusterrole.yaml"
        )
    )

    assert rules == [*plain, EXTRA]


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        pytest.param({"resources": ["configmaps"]}, "missing property 'verbs'", id="no-verbs"),
        pytest.param({"verbs": []}, "minItems", id="empty-verbs"),
        pytest.param(
            {"verbs": ["get"], "resource": ["configmaps"]},
            "additional properties 'resource' not allowed",
            id="typo",
        ),
    ],
)
def test_the_schema_refuses_bad_extra_rules(helm: Path, rule: dict[str, Any], message: str) -> None:
    error = helm_refusal(helm, f"--set-json=rbac.extraRules=[{json.dumps(rule)}]")

    assert "at '/rbac/extraRules/0" in error
    assert message in error


def test_a_plugin_module_s_resources_become_the_generated_chart_s_extra_rules(
    helm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--helm-chart` with `--plugin-module`: the chart cannot import the module, so the rules
    of what it declares (TeamZones reads ConfigMaps) are the default `rbac.extraRules`, and
    the chart renders the rules `kubesched manifests` prints for the same flags."""
    monkeypatch.syspath_prepend(str(EXAMPLES / "configmap_rule"))
    flags = [
        "--plugin-module=team_zones",
        *_config(tmp_path, [_profile(filter={"enabled": [{"name": "TeamZones"}]})]),
    ]
    chart = tmp_path / "chart"
    assert manifests.main([*flags, f"--helm-chart={chart}"]) == 0
    values = yaml.safe_load((chart / "values.yaml").read_text())
    expected = cluster_role_rules(manifests_objects(capsys, *flags))

    assert values["rbac"]["extraRules"] == [EXTRA]
    rendered = cluster_role_rules(helm_template(helm, chart=chart, show="clusterrole.yaml"))
    assert sorted(map(json.dumps, rendered)) == sorted(map(json.dumps, expected))
    assert EXTRA in rendered
