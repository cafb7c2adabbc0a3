"""Builds the control-plane binaries (and helm, promtool, crane) from the pinned wrapper Go
modules in `gobuild/`.

Each wrapper module (`gobuild/k8s`, `gobuild/etcd`, `gobuild/kwok`, `gobuild/helm`,
`gobuild/promtool`, `gobuild/crane`, `gobuild/scheduler-plugins`) pins one release; its
`go.mod` is the single source of the version. Binaries are built with `CGO_ENABLED=0` like
the upstream release builds, so no C compiler is needed, and with the version ldflags so
that `kube-apiserver --version` reports the real release.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kubesched.localcluster.errors import LocalClusterError, tail

Progress = Callable[[str], None]

GOBUILD_DIR = Path(__file__).parent / "gobuild"
GO_MISSING = (
    "Go toolchain not found: install Go >= 1.26 or set KUBEBUILDER_ASSETS/KUBESCHED_K8S_BIN "
    "to a folder with etcd and kube-apiserver"
)
_PREBUILT_HINT = "or set KUBEBUILDER_ASSETS/KUBESCHED_K8S_BIN to a folder with prebuilt binaries"
_NETWORK_MARKERS = (
    "dial tcp",
    "no such host",
    "i/o timeout",
    "connection refused",
    "connection reset",
    "network is unreachable",
    "tls handshake timeout",
    "proxyconnect",
    "server misbehaving",
    "goproxy=off",
    "module lookup disabled",
)
_VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
_BUILD_DATE = "2026-01-01T00:00:00Z"  # fixed, so that rebuilds are reproducible


@dataclass(frozen=True)
class GoModule:
    """One wrapper Go module and the commands it builds."""

    key: str
    """Short name, the prefix of the cache folder: `k8s`, `etcd` or `kwok`."""
    directory: Path
    """The folder holding `go.mod`."""
    version: str
    """The release the module pins, e.g. `v1.37.2`."""
    packages: Mapping[str, str]
    """Binary name -> Go package path to build."""
    ldflags: str
    """Linker flags (strip symbols, stamp the version)."""
    tags: str = ""
    """Go build tags (comma-separated), e.g. to leave out code the binary does not need."""
    test: bool = False
    """Build the package's tests into a test binary (`go test -c`) instead of its command."""

    @property
    def cache_name(self) -> str:
        """Name of the cache folder, keyed by version: `k8s-v1.37.2`."""
        return f"{self.key}-{self.version}"

    def source_hash(self) -> str:
        """Digest of everything that changes the binaries: go.mod, go.sum, Go files, flags."""
        digest = hashlib.sha256(self.ldflags.encode())
        if self.test:
            digest.update(b"\0test")
        if self.tags:
            digest.update(b"\0tags=" + self.tags.encode())
        for path in sorted(self.directory.iterdir()):
            if path.name in ("go.mod", "go.sum") or path.suffix == ".go":
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()[:16]


def required_version(go_mod: Path, module: str) -> str:
    """The version `go_mod` requires of `module` (either `require` form)."""
    match = re.search(
        rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", go_mod.read_text(), re.MULTILINE
    )
    if not match:
        raise LocalClusterError(f"{go_mod} does not require {module}: the wrapper module is broken")
    return match.group(1)


def replaced_version(go_mod: Path, module: str) -> str:
    """The version `go_mod`'s `replace` directive gives `module` (`module => module vX`)."""
    pattern = rf"^\s*(?:replace\s+)?{re.escape(module)}\s+=>\s+{re.escape(module)}\s+(v\S+)"
    match = re.search(pattern, go_mod.read_text(), re.MULTILINE)
    if not match:
        raise LocalClusterError(f"{go_mod} does not replace {module}: the wrapper module is broken")
    return match.group(1)


def k8s_ldflags(version: str) -> str:
    """Linker flags stamping a Kubernetes version into component-base and client-go."""
    major, minor = version.lstrip("v").split(".")[:2]
    values = {
        "gitVersion": version,
        "gitMajor": major,
        "gitMinor": minor,
        "gitTreeState": "clean",
        "buildDate": _BUILD_DATE,
    }
    stamps = [
        f"-X {pkg}.{key}={value}" for pkg in _VERSION_PACKAGES for key, value in values.items()
    ]
    return " ".join(["-s -w", *stamps])


def k8s_module() -> GoModule:
    """kube-apiserver, kube-controller-manager, kube-scheduler and kubectl of the pinned
    Kubernetes release."""
    directory = GOBUILD_DIR / "k8s"
    version = required_version(directory / "go.mod", "k8s.io/kubernetes")
    commands = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")
    packages = {name: f"k8s.io/kubernetes/cmd/{name}" for name in commands}
    return GoModule("k8s", directory, version, packages, k8s_ldflags(version))


def etcd_module() -> GoModule:
    """The etcd server of the pinned etcd release."""
    directory = GOBUILD_DIR / "etcd"
    version = required_version(directory / "go.mod", "go.etcd.io/etcd/server/v3")
    return GoModule("etcd", directory, version, {"etcd": "."}, "-s -w")


def kwok_module() -> GoModule:
    """kwok (sigs.k8s.io/kwok), the controller that plays the kubelets of fake nodes, of
    the pinned release; its version is stamped like upstream's release builds do."""
    directory = GOBUILD_DIR / "kwok"
    version = required_version(directory / "go.mod", "sigs.k8s.io/kwok")
    ldflags = f"-s -w -X sigs.k8s.io/kwok/pkg/consts.Version={version}"
    return GoModule("kwok", directory, version, {"kwok": "sigs.k8s.io/kwok/cmd/kwok"}, ldflags)


def helm_module() -> GoModule:
    """helm (helm.sh/helm/v3) of the pinned release, stamped like upstream's Makefile does:
    its version, and the Kubernetes version of its client-go as the default `kubeVersion`
    that `helm template` and `helm lint` assume."""
    directory = GOBUILD_DIR / "helm"
    go_mod = directory / "go.mod"
    version = required_version(go_mod, "helm.sh/helm/v3")
    client_go = required_version(go_mod, "k8s.io/client-go").lstrip("v").split(".")
    major, minor = str(int(client_go[0]) + 1), client_go[1]
    stamps = [
        f"-X helm.sh/helm/v3/internal/version.version={version}",
        "-X helm.sh/helm/v3/internal/version.gitTreeState=clean",
    ]
    for package in ("helm.sh/helm/v3/pkg/lint/rules", "helm.sh/helm/v3/pkg/chartutil"):
        stamps += [f"-X {package}.k8sVersionMajor={major}", f"-X {package}.k8sVersionMinor={minor}"]
    ldflags = " ".join(["-s -w", *stamps])
    return GoModule("helm", directory, version, {"helm": "helm.sh/helm/v3/cmd/helm"}, ldflags)


PROMETHEUS_MODULE = "github.com/prometheus/prometheus"
PROMTOOL_TAGS = "netgo,remove_all_sd"
"""Upstream's release tag `netgo`, and `remove_all_sd`: none of the service-discovery plugins
(cloud SDKs) that `promtool check rules` and `promtool test rules` never use, which halves
the build."""


def prometheus_release(version: str) -> str:
    """Prometheus' release of its Go module version: v0.316.0 is 3.16.0 (v0.MMmm.p)."""
    _, minor, patch = version.lstrip("v").split(".")
    return f"{int(minor) // 100}.{int(minor) % 100}.{patch}"


def promtool_module() -> GoModule:
    """promtool of the pinned Prometheus release (github.com/prometheus/prometheus, whose Go
    module versions are v0.3xx.y for 3.xx.y), its version stamped as upstream's promu does."""
    directory = GOBUILD_DIR / "promtool"
    version = required_version(directory / "go.mod", PROMETHEUS_MODULE)
    stamps = [
        f"-X github.com/prometheus/common/version.Version={prometheus_release(version)}",
        "-X github.com/prometheus/common/version.Branch=HEAD",
    ]
    return GoModule(
        "promtool",
        directory,
        version,
        {"promtool": f"{PROMETHEUS_MODULE}/cmd/promtool"},
        " ".join(["-s -w", *stamps]),
        tags=PROMTOOL_TAGS,
    )


CRANE_MODULE = "github.com/google/go-containerregistry"


def crane_module() -> GoModule:
    """crane (go-containerregistry's registry client, which also serves a registry: `crane
    registry serve`) of the pinned release, its version stamped as upstream's releases do."""
    directory = GOBUILD_DIR / "crane"
    version = required_version(directory / "go.mod", CRANE_MODULE)
    ldflags = f"-s -w -X {CRANE_MODULE}/cmd/crane/cmd.Version={version}"
    return GoModule("crane", directory, version, {"crane": f"{CRANE_MODULE}/cmd/crane"}, ldflags)


SCHEDULER_PLUGINS_MODULE = "sigs.k8s.io/scheduler-plugins"
SCHEDULER_PLUGINS_SCHEDULER = "scheduler-plugins-scheduler"
SCHEDULER_PLUGINS_CONTROLLER = "scheduler-plugins-controller"


def scheduler_plugins_module() -> GoModule:
    """scheduler-plugins' scheduler (kube-scheduler with its out-of-tree plugins) and controller
    (PodGroup and ElasticQuota status) of the pinned release. Its Makefile stamps its own
    version into component-base's gitVersion, but component-base derives the binary's
    Kubernetes version from it (v0.35 is below the emulation floor 1.31: the scheduler refuses
    to start), so the stamp is the Kubernetes release of its libraries with scheduler-plugins'
    version as build metadata: `v1.35.4+scheduler-plugins.v0.35.4-devel`."""
    directory = GOBUILD_DIR / "scheduler-plugins"
    go_mod = directory / "go.mod"
    version = required_version(go_mod, SCHEDULER_PLUGINS_MODULE)
    stamp = f"{replaced_version(go_mod, 'k8s.io/kubernetes')}+scheduler-plugins.{version}"
    ldflags = f"-s -w -X k8s.io/component-base/version.gitVersion={stamp}"
    packages = {
        SCHEDULER_PLUGINS_SCHEDULER: f"{SCHEDULER_PLUGINS_MODULE}/cmd/scheduler",
        SCHEDULER_PLUGINS_CONTROLLER: f"{SCHEDULER_PLUGINS_MODULE}/cmd/controller",
    }
    return GoModule("scheduler-plugins", directory, version, packages, ldflags)


def find_go() -> Path:
    """The `go` command: on PATH, else the usual install folder; raises when absent."""
    found = shutil.which("go") or shutil.which("/usr/local/go/bin/go")
    if not found:
        raise LocalClusterError(GO_MISSING)
    return Path(found)


def default_progress(message: str) -> None:
    """Print a progress line to stderr."""
    sys.stderr.write(f"kubesched: {message}\n")
    sys.stderr.flush()


def build(
    *, module: GoModule, names: list[str], outdir: Path, log_path: Path, progress: Progress
) -> None:
    """Build `names` of `module` into `outdir`, reporting progress every 10 s."""
    go = find_go()
    label = f"building {', '.join(names)} {module.version}"
    progress(f"{label} with {go} (first time only, takes minutes; log: {log_path})")
    env = {**os.environ, "CGO_ENABLED": "0"}
    code = 0
    with log_path.open("w") as log:
        for group in build_groups(module, names):
            argv = build_argv(go=go, module=module, names=group, outdir=outdir)
            log.write(" ".join(argv) + "\n")
            log.flush()
            proc = subprocess.Popen(argv, cwd=module.directory, env=env, stdout=log, stderr=log)
            code = _wait_with_progress(proc, label=label, progress=progress)
            if code != 0:
                break
    if code != 0:
        output = log_path.read_text(errors="replace")
        raise diagnose(output=output, code=code, label=label, log_path=log_path)
    progress(f"{label}: done")


def build_groups(module: GoModule, names: list[str]) -> list[list[str]]:
    """`names` split into `go build` invocations: the binaries named after their package's last
    path element in one, each renamed one (scheduler-plugins' `cmd/scheduler` built as
    `scheduler-plugins-scheduler`) alone, since `go build -o folder/` names by package."""
    plain = [name for name in names if module.packages[name].rsplit("/", 1)[-1] == name]
    renamed = [[name] for name in names if name not in plain]
    return ([plain] if plain else []) + renamed


def build_argv(*, go: Path, module: GoModule, names: list[str], outdir: Path) -> list[str]:
    """The `go build` (`go test -c` for a test binary, unvetted) command line; one binary is named
    explicitly (a `.` package would otherwise be named after the module), several land in
    `outdir/` by command name."""
    output = str(outdir / names[0]) if len(names) == 1 else f"{outdir}/"
    verb = ["test", "-c", "-vet=off"] if module.test else ["build"]
    argv = [str(go), *verb, "-trimpath", "-ldflags", module.ldflags, "-o", output]
    if module.tags:
        argv += ["-tags", module.tags]
    return argv + [module.packages[name] for name in names]


def _wait_with_progress(proc: subprocess.Popen[bytes], *, label: str, progress: Progress) -> int:
    start = time.monotonic()
    next_report = start + 10.0
    try:
        while True:
            try:
                return proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now >= next_report:
                    progress(f"{label}: {int(now - start)} s elapsed")
                    next_report += 10.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def diagnose(*, output: str, code: int, label: str, log_path: Path) -> LocalClusterError:
    """Turn a failed `go build` into a one-line error saying what to do."""
    lowered = output.lower()
    details = tail(output, lines=25)
    if "requires go >=" in lowered:
        message = f"Go toolchain too old for {label}: install Go >= 1.26 {_PREBUILT_HINT}"
    elif any(marker in lowered for marker in _NETWORK_MARKERS):
        message = (
            f"{label}: cannot download Go modules from the module proxy (GOPROXY={_goproxy()}): "
            f"allow access to it, or point GOPROXY at a reachable mirror, {_PREBUILT_HINT}"
        )
    elif "no space left on device" in lowered:
        message = f"{label}: out of disk space (Go build cache and {log_path.parent})"
    elif code < 0 or "signal: killed" in lowered:
        message = f"{label}: the Go compiler was killed (out of memory? it needs ~2 GiB free)"
    else:
        message = f"{label} failed (go exit {code}); build log: {log_path}"
    return LocalClusterError(message, details=details)


def _goproxy() -> str:
    try:
        result = subprocess.run(
            [str(find_go()), "env", "GOPROXY"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, LocalClusterError):
        return os.environ.get("GOPROXY", "default")
    return result.stdout.strip() or "default"
