"""The Go build command and the diagnosis of its failures."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from kubesched.localcluster import gobuild


def test_versions_come_from_the_wrapper_go_mod() -> None:
    assert gobuild.k8s_module().version.startswith("v1.")
    assert gobuild.etcd_module().version.startswith("v3.6.")
    assert gobuild.k8s_module().cache_name == f"k8s-{gobuild.k8s_module().version}"


def test_kwok_is_its_own_pinned_module_with_its_version_stamped() -> None:
    module = gobuild.kwok_module()

    assert module.version.startswith("v0.")
    assert module.cache_name == f"kwok-{module.version}"
    assert module.packages == {"kwok": "sigs.k8s.io/kwok/cmd/kwok"}
    assert f"-X sigs.k8s.io/kwok/pkg/consts.Version={module.version}" in module.ldflags
    assert "kube-controller-manager" in gobuild.k8s_module().packages


def test_required_version_reads_both_require_forms(tmp_path: Path) -> None:
    go_mod = tmp_path / "go.mod"
    go_mod.write_text(
        "module x\n\nrequire a.io/b v1.2.3\n\nrequire (\n\tc.io/d v0.1.0 // indirect\n)\n"
    )

    assert gobuild.required_version(go_mod, "a.io/b") == "v1.2.3"
    assert gobuild.required_version(go_mod, "c.io/d") == "v0.1.0"


def test_ldflags_stamp_the_real_version() -> None:
    flags = gobuild.k8s_ldflags("v1.37.2")

    assert flags.startswith("-s -w ")
    assert "-X k8s.io/component-base/version.gitVersion=v1.37.2" in flags
    assert "-X k8s.io/client-go/pkg/version.gitMinor=37" in flags
    assert "-X k8s.io/component-base/version.gitMajor=1" in flags


def test_build_argv_names_a_single_binary_and_puts_several_in_a_folder(tmp_path: Path) -> None:
    k8s, etcd = gobuild.k8s_module(), gobuild.etcd_module()
    go = Path("/usr/bin/go")

    single = gobuild.build_argv(go=go, module=etcd, names=["etcd"], outdir=tmp_path)
    several = gobuild.build_argv(
        go=go, module=k8s, names=["kube-scheduler", "kubectl"], outdir=tmp_path
    )

    assert single[-3:] == ["-o", str(tmp_path / "etcd"), "."]
    assert several[-4:] == [
        "-o",
        f"{tmp_path}/",
        "k8s.io/kubernetes/cmd/kube-scheduler",
        "k8s.io/kubernetes/cmd/kubectl",
    ]
    assert "-trimpath" in several


def test_source_hash_changes_with_go_sum(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "go.sum").write_text("a\n")
    module = gobuild.GoModule("x", tmp_path, "v1", {"x": "."}, "-s -w")
    before = module.source_hash()

    (tmp_path / "go.sum").write_text("b\n")

    assert module.source_hash() != before


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            (
                'go: k8s.io/api@v0.37.2: Get "https://mirror.invalid/k8s.io/api/@v/v0.37.2.zip": '
                "dial tcp: lookup mirror.invalid: no such host"
            ),
            "cannot download Go modules from the module proxy",
        ),
        (
            "go: go.mod requires go >= 1.26.0 (running go 1.22.1; GOTOOLCHAIN=local)",
            "Go toolchain too old",
        ),
        ("write /root/.cache/go-build/x: no space left on device", "out of disk space"),
        ("compile: signal: killed", "killed (out of memory?"),
    ],
)
def test_build_failures_become_one_line_advice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, output: str, expected: str
) -> None:
    monkeypatch.setenv("GOPROXY", "https://mirror.invalid")
    monkeypatch.setattr(gobuild, "find_go", lambda: (_ for _ in ()).throw(OSError("no go")))

    error = gobuild.diagnose(
        output=output, code=1, label="building etcd v3", log_path=tmp_path / "b.log"
    )

    assert expected in str(error)
    assert "\n" not in str(error)
    assert output in error.details


def test_other_build_failures_name_the_log(tmp_path: Path) -> None:
    error = gobuild.diagnose(
        output="x.go:1: syntax error", code=2, label="building etcd", log_path=tmp_path / "b.log"
    )

    assert str(error) == f"building etcd failed (go exit 2); build log: {tmp_path / 'b.log'}"
    assert error.details == "x.go:1: syntax error"


def test_helm_is_its_own_pinned_module_stamped_like_upstream() -> None:
    module = gobuild.helm_module()

    assert module.version.startswith("v3.")
    assert module.packages == {"helm": "helm.sh/helm/v3/cmd/helm"}
    assert f"-X helm.sh/helm/v3/internal/version.version={module.version}" in module.ldflags
    # helm's default kubeVersion: that of the client-go it is built with (1.37 for v0.37.x)
    assert "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1" in module.ldflags
    assert "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=" in module.ldflags


def test_promtool_is_its_own_pinned_module_built_without_service_discovery(
    tmp_path: Path,
) -> None:
    module = gobuild.promtool_module()
    argv = gobuild.build_argv(go=Path("go"), module=module, names=["promtool"], outdir=tmp_path)

    assert module.version.startswith("v0.3")  # Prometheus 3.x's Go module versions
    assert module.packages == {"promtool": "github.com/prometheus/prometheus/cmd/promtool"}
    release = gobuild.prometheus_release(module.version)
    assert f"-X github.com/prometheus/common/version.Version={release}" in module.ldflags
    assert argv[-3:] == ["-tags", "netgo,remove_all_sd", module.packages["promtool"]]
    assert (module.cache_name, gobuild.prometheus_release("v0.316.0")) == (
        f"promtool-{module.version}",
        "3.16.0",
    )


def test_modules_without_tags_keep_their_cache_keys() -> None:
    """Build tags enter the source hash only when a module has some: the caches of the
    modules built before tags existed stay valid."""
    helm = gobuild.helm_module()
    tagged = dataclasses.replace(helm, tags="netgo")

    assert "-tags" not in gobuild.build_argv(
        go=Path("go"), module=helm, names=["helm"], outdir=Path("out")
    )
    digest = hashlib.sha256(helm.ldflags.encode())
    for path in sorted(helm.directory.iterdir()):
        if path.name in ("go.mod", "go.sum") or path.suffix == ".go":
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    assert helm.source_hash() == digest.hexdigest()[:16]
    assert tagged.source_hash() != helm.source_hash()


def test_crane_is_its_own_pinned_module_stamped_with_its_version(tmp_path: Path) -> None:
    module = gobuild.crane_module()
    argv = gobuild.build_argv(go=Path("go"), module=module, names=["crane"], outdir=tmp_path)

    go_mod = (gobuild.GOBUILD_DIR / "crane" / "go.mod").read_text()
    assert f"require {gobuild.CRANE_MODULE} {module.version}" in go_mod
    assert module.packages == {"crane": f"{gobuild.CRANE_MODULE}/cmd/crane"}
    assert f"-X {gobuild.CRANE_MODULE}/cmd/crane/cmd.Version={module.version}" in module.ldflags
    assert argv[-1] == module.packages["crane"]
    assert module.cache_name == f"crane-{module.version}"
