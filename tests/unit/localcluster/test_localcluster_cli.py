"""`kubesched dev-cluster`: errors are one line and exit code 1."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from kubesched import cli
from kubesched.cli import devcluster
from kubesched.localcluster import Binaries, LocalClusterError, devstate, paths


@pytest.fixture(autouse=True)
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    return tmp_path


def test_build_error_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(**_: object) -> None:
        raise LocalClusterError("Go toolchain not found: install Go >= 1.26")

    monkeypatch.setattr(devcluster, "ensure_binaries", fail)

    assert devcluster.main(["build"]) == 1

    assert (
        capsys.readouterr().err
        == "kubesched dev-cluster: error: Go toolchain not found: install Go >= 1.26\n"
    )


def test_error_details_follow_the_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail(**_: object) -> None:
        raise LocalClusterError(
            "etcd exited with code 1; log: /x/etcd.log", details="bind: address already in use"
        )

    monkeypatch.setattr(devcluster, "ensure_binaries", fail)

    assert devcluster.main(["build"]) == 1

    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "kubesched dev-cluster: error: etcd exited with code 1; log: /x/etcd.log",
        "bind: address already in use",
    ]


@pytest.mark.parametrize("command", ["env", "status"])
def test_commands_needing_a_running_cluster_say_how_to_start_one(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert devcluster.main([command]) == 1

    assert "start one with `kubesched dev-cluster up`" in capsys.readouterr().err


def test_down_without_a_cluster_is_fine(capsys: pytest.CaptureFixture[str]) -> None:
    assert devcluster.main(["down"]) == 0


def test_env_prints_the_export_line(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    devstate.state_file().parent.mkdir(parents=True)
    devstate.state_file().write_text('{"kubeconfig": "/k/kubeconfig", "processes": {}}')

    assert devcluster.main(["env"]) == 0

    assert capsys.readouterr().out == "export KUBECONFIG=/k/kubeconfig\n"


def test_down_never_signals_a_reused_pid(cache: Path) -> None:
    # pid 1 runs, but not the recorded binary: it must be left alone.
    devstate.state_file().parent.mkdir(parents=True)
    state = {"processes": {"etcd": {"pid": 1, "argv0": "/nonexistent/etcd", "log": "/x"}}}

    assert devstate.processes(state)[0].alive is False
    assert devstate.stop(state) == []


def test_unreadable_state_is_a_one_line_error(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    devstate.state_file().parent.mkdir(parents=True)
    devstate.state_file().write_text("{not json")

    assert devcluster.main(["env"]) == 1
    assert "delete it and run `up` again" in capsys.readouterr().err


def test_cli_dispatches_dev_cluster(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli.main(["dev-cluster", "--help"])

    assert caught.value.code == 0
    assert "demo" in capsys.readouterr().out


class _FakeCluster:
    """Records how `up` configures the cluster; starts nothing."""

    made: ClassVar[list[dict[str, object]]] = []

    def __init__(self, **options: object) -> None:
        self.made.append(options)
        self.server = "https://127.0.0.1:1"
        self.logs_dir = Path("/x/logs")
        self.kubeconfig_path = Path("/x/kubeconfig")

    def start(self) -> None:
        pass

    def start_default_scheduler(self) -> None:
        pass

    def stop(self) -> None:
        pass


@pytest.mark.parametrize(
    ("flags", "wanted"),
    [
        ([], {"controller_manager": False, "kwok": False}),
        (["--controller-manager", "--kwok"], {"controller_manager": True, "kwok": True}),
        (["--kwok"], {"controller_manager": False, "kwok": True}),
    ],
)
def test_up_starts_controller_manager_and_kwok_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    wanted: dict[str, bool],
) -> None:
    _FakeCluster.made = []
    monkeypatch.setattr(devcluster, "LocalCluster", _FakeCluster)
    monkeypatch.setattr(devstate, "save", lambda _cluster: None)

    assert devcluster.main(["up", *flags]) == 0

    (options,) = _FakeCluster.made
    assert {key: options[key] for key in wanted} == wanted
    assert capsys.readouterr().out == "export KUBECONFIG=/x/kubeconfig\n"


def test_build_prints_every_binary_with_its_version(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"]
    found = Binaries(**{n.replace("-", "_"): tmp_path / n for n in [*names, "kwok"]})
    monkeypatch.setattr(devcluster, "ensure_binaries", lambda: found)
    monkeypatch.setattr(Binaries, "versions", lambda self: {n: f"{n} v1" for n in self.as_dict()})

    assert devcluster.main(["build"]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [*names, "kwok"]
    kcm = "kube-controller-manager"
    assert lines[2] == f"{kcm}  {tmp_path}/{kcm}  ({kcm} v1)"


def test_up_dra_starts_the_whole_cluster_and_the_example_driver(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _FakeCluster.made = []
    drivers: list[object] = []
    monkeypatch.setattr(devcluster, "LocalCluster", _FakeCluster)
    monkeypatch.setattr(devcluster, "_start_example_driver", drivers.append)
    monkeypatch.setattr(devstate, "save", lambda _cluster: None)

    assert devcluster.main(["up", "--dra"]) == 0

    (options,) = _FakeCluster.made
    assert (options["controller_manager"], options["kwok"]) == (True, True)
    assert len(drivers) == 1
    assert capsys.readouterr().out == "export KUBECONFIG=/x/kubeconfig\n"


def test_up_without_dra_starts_no_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    drivers: list[object] = []
    monkeypatch.setattr(devcluster, "LocalCluster", _FakeCluster)
    monkeypatch.setattr(devcluster, "_start_example_driver", drivers.append)
    monkeypatch.setattr(devstate, "save", lambda _cluster: None)

    assert devcluster.main(["up", "--kwok"]) == 0

    assert drivers == []


def test_the_dra_driver_refuses_an_unknown_binding_policy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        devcluster.main(["dra-driver", "--binding=sometimes"])

    assert caught.value.code == 2
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err
