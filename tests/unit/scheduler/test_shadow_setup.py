"""`--shadow-scheduler-name` from the command line to the process's parts: the completed
config carries it, bad values are refused in one line, the profile is renamed to the shadowed
scheduler with leader election off, and every API client is read-only."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kubesched.config import ConfigError, load_config
from kubesched.kube.dial import Route
from kubesched.kube.read_only import ReadOnlyKubeClient
from kubesched.server.components import build
from kubesched.server.shadow_setup import ELECTION_OFF, shadow_setup


def test_the_flag_is_a_completed_config_field(tmp_path: Path) -> None:
    config = load_config(
        ["--shadow-scheduler-name=default-scheduler"],
        environ={},
        namespace_file=tmp_path / "none",
    ).config
    assert config.shadow_scheduler_name == "default-scheduler"
    assert config.scheduler_names == ("kubesched",)  # the profile keeps its name


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--shadow-scheduler-name=Not_A_Name"], "is not a scheduler name"),
    ],
)
def test_bad_values_are_refused_in_one_line(argv: list[str], problem: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(argv, environ={}, namespace_file=tmp_path / "none")
    [line] = refused.value.errors
    assert line.startswith("--shadow-scheduler-name: ")
    assert problem in line


def test_several_profiles_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: a\n- schedulerName: b\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as refused:
        load_config(
            ["--config", str(path), "--shadow-scheduler-name=default-scheduler"],
            environ={},
            namespace_file=tmp_path / "none",
        )
    expected = (
        "--shadow-scheduler-name: the configuration defines 2 profiles; shadow mode "
        "compares one profile's decisions: keep one profile"
    )
    assert refused.value.errors == (expected,)


def test_the_shadow_process_is_renamed_election_off_and_read_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = load_config(
        ["--shadow-scheduler-name=default-scheduler", "--leader-elect=true"],
        environ={},
        namespace_file=tmp_path / "none",
    ).config
    caplog.set_level("INFO")
    setup = shadow_setup(config)
    assert setup is not None
    assert setup.profile == "kubesched"
    assert setup.config.scheduler_names == ("default-scheduler",)
    assert not setup.config.leader_election.leader_elect
    assert [r.getMessage() for r in caplog.records].count(ELECTION_OFF) == 1
    connection = SimpleNamespace(server="https://127.0.0.1:6443", route=_route)
    components = build(config, connection=connection)  # type: ignore[arg-type]
    assert components.shadow is not None
    assert components.elector is None
    clients = [components.client, components.election_client, components.event_client]
    clients.append(components.auth_client)
    assert all(isinstance(client, ReadOnlyKubeClient) for client in clients)


def test_off_without_the_flag(tmp_path: Path) -> None:
    config = load_config([], environ={}, namespace_file=tmp_path / "none").config
    assert shadow_setup(config) is None


def _route() -> Route:
    return Route("127.0.0.1", 6443)
