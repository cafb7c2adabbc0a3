"""Finding, caching and building the control-plane binaries (no Go build runs here)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kubesched.localcluster import LocalClusterError, binaries, ensure_binaries, gobuild, paths

ALL = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok")


def fake_binaries(folder: Path, names: tuple[str, ...] | list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = folder / name
        path.write_text("#!/bin/sh\necho fake\n")
        path.chmod(0o755)


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for variable in (*binaries.OVERRIDE_ENVS, "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    cache = tmp_path / "cache"
    monkeypatch.setenv(paths.CACHE_ENV, str(cache))
    return cache


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Replace the Go build by one that writes fake binaries; record what was built."""
    calls: list[list[str]] = []

    def fake_build(
        *, module: gobuild.GoModule, names: list[str], outdir: Path, **_: object
    ) -> None:
        calls.append(list(names))
        fake_binaries(outdir, names)

    monkeypatch.setattr(gobuild, "build", fake_build)
    return calls


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(paths.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_dir() == tmp_path / "xdg" / "kubesched"
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path / "own"))
    assert paths.bin_dir() == tmp_path / "own" / "bin"


def test_override_folder_with_all_binaries_builds_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, builds: list[list[str]]
) -> None:
    fake_binaries(tmp_path / "assets", ALL)
    monkeypatch.setenv("KUBESCHED_K8S_BIN", str(tmp_path / "assets"))

    found = ensure_binaries(progress=lambda _: None)

    assert builds == []
    assert found.kube_apiserver == tmp_path / "assets" / "kube-apiserver"
    assert set(found.as_dict()) == set(ALL)


def test_envtest_assets_without_scheduler_build_just_the_missing_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, isolated_env: Path, builds: list[list[str]]
) -> None:
    fake_binaries(tmp_path / "envtest", ["etcd", "kube-apiserver", "kubectl-not-this"])
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(tmp_path / "envtest"))

    found = ensure_binaries(progress=lambda _: None)
    again = ensure_binaries(progress=lambda _: None)

    # once: the second call uses the cache
    assert builds == [["kube-controller-manager", "kube-scheduler", "kubectl"], ["kwok"]]
    version = gobuild.k8s_module().version
    assert found.kube_scheduler == isolated_env / "bin" / f"k8s-{version}" / "kube-scheduler"
    assert found.etcd == tmp_path / "envtest" / "etcd"
    assert again == found


def test_cache_is_keyed_by_version_and_rebuilt_when_stale(
    isolated_env: Path, builds: list[list[str]]
) -> None:
    ensure_binaries(progress=lambda _: None)
    etcd_dir = isolated_env / "bin" / f"etcd-{gobuild.etcd_module().version}"
    (etcd_dir / binaries.STAMP).write_text("an-older-go-mod\n")

    ensure_binaries(progress=lambda _: None)

    k8s = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"]
    assert builds == [["etcd"], k8s, ["kwok"], ["etcd"]]
    assert not list((isolated_env / "bin").glob(".*build-*"))  # staging folders are gone


def test_override_that_is_not_a_folder_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(tmp_path / "missing"))

    with pytest.raises(LocalClusterError, match=r"^KUBEBUILDER_ASSETS=.* is not a folder"):
        binaries.find_overrides(os.environ)


def test_non_executable_files_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "etcd").write_text("not executable")

    assert binaries.find_overrides({"KUBESCHED_K8S_BIN": str(tmp_path)}) == {}


def test_missing_go_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)  # what gobuild looks Go up with

    with pytest.raises(LocalClusterError) as caught:
        ensure_binaries(progress=lambda _: None)

    assert str(caught.value) == (
        "Go toolchain not found: install Go >= 1.26 or set KUBEBUILDER_ASSETS/KUBESCHED_K8S_BIN "
        "to a folder with etcd and kube-apiserver"
    )


def test_helm_is_built_once_on_its_own_and_honours_the_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, isolated_env: Path, builds: list[list[str]]
) -> None:
    first = binaries.ensure_helm(progress=lambda _: None)
    again = binaries.ensure_helm(progress=lambda _: None)
    fake_binaries(tmp_path / "own", ["helm"])
    monkeypatch.setenv("KUBESCHED_K8S_BIN", str(tmp_path / "own"))

    assert builds == [["helm"]]
    assert first == again == isolated_env / "bin" / f"helm-{gobuild.helm_module().version}" / "helm"
    assert binaries.ensure_helm(progress=lambda _: None) == tmp_path / "own" / "helm"
