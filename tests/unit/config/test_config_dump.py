"""--write-config-to: the completed config in effect as v1 YAML, which loads back to a config
with the same effect (its dump is the same document)."""

import dataclasses
import io
import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.apis.config import (
    EXTENSION_POINTS,
    ClientConnection,
    KubeSchedulerConfiguration,
    LeaderElection,
    PluginRef,
    PluginSet,
    Profile,
)
from kubesched.config import ConfigError, configz, dump_config, load_config, write_config
from tests.unit.config.conftest import Load, WriteFile

# Flags that have no field in the file: they are passed again when the dump is loaded.
COMMAND_LINE_ONLY = ["--master=https://10.0.0.1:6443", "--secure-port=10300", "-v=2"]


def reload(config_text: str, tmp_path: Path, extra: list[str]) -> KubeSchedulerConfiguration:
    path = tmp_path / "dumped.yaml"
    path.write_text(config_text, encoding="utf-8")
    return load_config(["--config", str(path), *extra], environ={}, namespace_file=tmp_path).config


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--leader-elect=true", "--leader-election-resource-name=my-custom-scheduler",
         "--leader-election-resource-namespace=custom-scheduler-ns",
         "--scheduler-name=my-custom-scheduler"],
        ["--leader-elect=false", "--lock-object-name=x", "--lock-object-namespace=y"],
        ["--kubeconfig=/k", "--kube-api-qps=12.5", "--kube-api-burst=7",
         "--pod-initial-backoff-seconds=3", "--pod-max-backoff-seconds=33"],
        ["--leader-elect-lease-duration=1m30s", "--leader-elect-renew-deadline=1m",
         "--leader-elect-retry-period=500ms"],
    ],
)  # fmt: skip
def test_round_trip_from_flags(load: Load, tmp_path: Path, argv: list[str]) -> None:
    first = load([*argv, *COMMAND_LINE_ONLY]).config
    again = reload(dump_config(first), tmp_path, COMMAND_LINE_ONLY)
    assert dump_config(again) == dump_config(first)
    assert dataclasses.replace(again, profiles=first.profiles) == first


def test_round_trip_from_a_full_file(load: Load, write_config: WriteFile, tmp_path: Path) -> None:
    path = write_config("""
        parallelism: 4
        percentageOfNodesToScore: 0
        delayCacheUntilActive: true
        clientConnection: {acceptContentTypes: application/json}
        profiles:
          - schedulerName: a
            percentageOfNodesToScore: 70
            plugins:
              queueSort: {}
              score:
                enabled: [{name: S, weight: 3}, {name: T}]
                disabled: [{name: "*"}]
            pluginConfig:
              - {name: S, args: {nested: {list: [1, 2.5, "yes", null, true]}, date: 2024-01-01}}
          - schedulerName: b
            plugins: {queueSort: {}}
    """)
    first = load(["--config", path]).config
    again = reload(dump_config(first), tmp_path, [])
    assert dump_config(again) == dump_config(first)
    assert dataclasses.replace(again, profiles=first.profiles) == first


def test_dump_is_kube_scheduler_configuration_v1(load: Load) -> None:
    text = dump_config(load(["--lock-object-name=lease-a"]).config)
    document = yaml.safe_load(text)
    assert text.startswith(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    assert document["leaderElection"] == {
        "leaderElect": True,
        "leaseDuration": "15s",
        "renewDeadline": "10s",
        "resourceLock": "leases",
        "resourceName": "lease-a",
        "resourceNamespace": "kube-system",
        "retryPeriod": "2s",
    }
    (profile,) = document["profiles"]
    assert profile["schedulerName"] == "kubesched"
    assert [p["name"] for p in profile["plugins"]["multiPoint"]["enabled"]][:4] == [
        "SchedulingGates",
        "PrioritySort",
        "NodeName",
        "NodeUnschedulable",
    ]
    assert {"name": "TaintToleration", "weight": 3} in profile["plugins"]["multiPoint"]["enabled"]
    fit = next(c for c in profile["pluginConfig"] if c["name"] == "NodeResourcesFit")
    assert fit["args"] == {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "NodeResourcesFitArgs",
        "scoringStrategy": {
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            "type": "LeastAllocated",
        },
    }
    assert "percentageOfNodesToScore" not in document


def test_user_args_are_written_over_the_defaults(load: Load, write_config: WriteFile) -> None:
    path = write_config("""
        profiles:
          - schedulerName: a
            pluginConfig:
              - name: NodeResourcesFit
                args: {scoringStrategy: {type: MostAllocated}}
    """)
    document = yaml.safe_load(dump_config(load(["--config", path]).config))
    fit = next(
        c for c in document["profiles"][0]["pluginConfig"] if c["name"] == "NodeResourcesFit"
    )
    assert fit["args"]["scoringStrategy"] == {
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        "type": "MostAllocated",
    }


def test_configz_is_json_under_componentconfig(load: Load) -> None:
    config = load([]).config
    assert json.loads(configz(config)) == {"componentconfig": yaml.safe_load(dump_config(config))}


def test_write_config_to_stdout_and_file(load: Load, tmp_path: Path) -> None:
    config = load([]).config
    out = io.StringIO()
    write_config(config, path="-", stdout=out)
    assert out.getvalue() == dump_config(config)
    write_config(config, path=str(tmp_path / "c.yaml"))
    assert (tmp_path / "c.yaml").read_text() == dump_config(config)


def test_write_config_to_an_unwritable_path(load: Load, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        write_config(load([]).config, path=str(tmp_path / "missing-dir" / "c.yaml"))
    assert caught.value.errors == (
        (
            f"--write-config-to: cannot write {tmp_path / 'missing-dir' / 'c.yaml'}: "
            f"No such file or directory; create {tmp_path / 'missing-dir'} first or pass a "
            "path in an existing directory"
        ),
    )


# -- property: any valid completed config survives the round trip -------------------------

names = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), max_size=10)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
plugin_refs = st.builds(PluginRef, name=names, weight=st.none() | st.integers(-(2**31), 2**31 - 1))
plugin_sets = st.builds(
    PluginSet,
    enabled=st.lists(plugin_refs, max_size=3).map(tuple),
    disabled=st.lists(plugin_refs, max_size=3).map(tuple),
)
percentages = st.none() | st.integers(0, 100)


@st.composite
def leader_elections(draw: st.DrawFn) -> LeaderElection:
    retry_ms = draw(st.integers(1, 10_000))
    renew_ms = math.floor(1.2 * retry_ms) + draw(st.integers(1, 10_000))
    lease_ms = renew_ms + draw(st.integers(1, 100_000))
    return LeaderElection(
        leader_elect=draw(st.booleans()),
        lease_duration=lease_ms / 1000,
        renew_deadline=renew_ms / 1000,
        retry_period=retry_ms / 1000,
        resource_name=draw(names),
        resource_namespace=draw(names),
    )


@st.composite
def configurations(draw: st.DrawFn) -> KubeSchedulerConfiguration:
    scheduler_names = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    queue_sort = draw(st.none() | plugin_sets.filter(lambda s: len(s.enabled) <= 1))
    profiles = tuple(draw(profile_for(name, queue_sort)) for name in scheduler_names)
    initial = draw(st.integers(1, 100))
    return KubeSchedulerConfiguration(
        profiles=profiles,
        leader_election=draw(leader_elections()),
        client_connection=ClientConnection(
            kubeconfig=draw(st.text(max_size=10)),
            qps=draw(st.floats(0.001, 1e6)),
            burst=draw(st.integers(1, 2**31 - 1)),
            accept_content_types=draw(st.sampled_from(["", "application/json"])),
        ),
        parallelism=draw(st.integers(1, 2**31 - 1)),
        percentage_of_nodes_to_score=draw(percentages),
        pod_initial_backoff_seconds=float(initial),
        pod_max_backoff_seconds=float(initial + draw(st.integers(0, 100))),
        delay_cache_until_active=draw(st.booleans()),
    )


@st.composite
def profile_for(draw: st.DrawFn, name: str, queue_sort: PluginSet | None) -> Profile:
    points = [point for point in EXTENSION_POINTS if point != "queueSort"]
    plugins = draw(st.dictionaries(st.sampled_from(points), plugin_sets, max_size=3))
    if queue_sort is not None:
        plugins["queueSort"] = queue_sort
    # `kind` and `apiVersion` are the args' type meta, which loading checks and fills in
    # (`<Plugin>Args`): not free keys.
    keys = st.text(max_size=5).filter(lambda key: key not in {"kind", "apiVersion"})
    args = st.dictionaries(keys, json_values, max_size=3)
    return Profile(
        scheduler_name=name,
        plugins=plugins,
        plugin_config=draw(st.dictionaries(names.map(lambda n: n + "-args"), args, max_size=2)),
        percentage_of_nodes_to_score=draw(percentages),
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(config=configurations())
def test_any_valid_config_round_trips(tmp_path: Path, config: KubeSchedulerConfiguration) -> None:
    again = reload(dump_config(config), tmp_path, [])
    assert dump_config(again) == dump_config(config)
    assert dataclasses.replace(again, profiles=config.profiles) == config
