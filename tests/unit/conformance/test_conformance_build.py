"""The test binary of Kubernetes' scheduling e2e specs: its wrapper Go module pins the same
release as the control plane, and it is built with `go test -c` into the binary cache."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from kubesched.localcluster import gobuild
from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.components import Addresses, SchedulerFiles, scheduler_launch
from kubesched.localcluster.controller_manager import CONTROLLERS
from kubesched_conformance.binary import BINARY, MODULE_DIR, conformance_module


def _replaces(go_mod: Path) -> list[str]:
    block = re.search(r"^replace \((.*?)^\)", go_mod.read_text(), re.MULTILINE | re.DOTALL)
    assert block is not None
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_wrapper_module_pins_the_control_planes_release_and_staging_modules() -> None:
    k8s = gobuild.k8s_module()
    module = conformance_module()

    assert module.version == k8s.version
    assert _replaces(MODULE_DIR / "go.mod") == _replaces(k8s.directory / "go.mod")
    assert module.ldflags == k8s.ldflags  # the binary reports the release, as kube-apiserver


def test_it_is_a_test_binary_cached_by_version(tmp_path: Path) -> None:
    module = conformance_module()

    argv = gobuild.build_argv(go=Path("go"), module=module, names=[BINARY], outdir=tmp_path)

    assert argv[:4] == ["go", "test", "-c", "-vet=off"]
    assert argv[-3:] == ["-o", str(tmp_path / BINARY), "."]
    assert module.cache_name == f"conformance-{module.version}"
    assert module.source_hash() != dataclasses.replace(module, test=False).source_hash()


def test_the_suite_imports_the_scheduling_specs_unchanged() -> None:
    suite = (MODULE_DIR / "conformance_test.go").read_text()

    assert '_ "k8s.io/kubernetes/test/e2e/scheduling"' in suite
    assert "framework.AfterReadingAllFlags(&framework.TestContext)" in suite
    assert [path.name for path in MODULE_DIR.rglob("*.go")] == ["conformance_test.go"]


def test_another_command_can_take_kube_schedulers_place(tmp_path: Path) -> None:
    files = SchedulerFiles(
        config=tmp_path / "c.yaml",
        kubeconfig=tmp_path / "k",
        cert_dir=tmp_path / "certs",
        log=tmp_path / "s.log",
    )
    binaries = Binaries(**{name: tmp_path / name for name in Binaries.__dataclass_fields__})
    launch = scheduler_launch(
        binaries, files=files, addresses=Addresses(), extra=(), command=["py", "-m", "x"]
    )
    default = scheduler_launch(binaries, files=files, addresses=Addresses(), extra=())

    argv, _ready = launch()
    assert argv[:3] == ["py", "-m", "x"]
    assert f"--config={files.config}" in argv
    assert default()[0][0] == str(binaries.kube_scheduler)


def test_the_controller_manager_runs_replication_controllers() -> None:
    assert "replicationcontroller-controller" in CONTROLLERS
