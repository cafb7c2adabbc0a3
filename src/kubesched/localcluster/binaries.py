"""Finds or builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl
and kwok; and helm, promtool and crane, each on its own (`ensure_helm`, `ensure_promtool`:
only the chart's tests need them; `ensure_crane`: `make image-push` and the registry test);
and scheduler-plugins' scheduler and controller (`ensure_scheduler_plugins`: the second oracle
of the Coscheduling and CapacityScheduling side-by-side tests).

Order of lookup, per binary: a folder named by `KUBESCHED_K8S_BIN`, then one named by
`KUBEBUILDER_ASSETS` (the envtest convention; it often lacks kube-scheduler and kubectl),
then the cache `<cache>/bin/<component>-<version>/`, which is built with Go when missing.
A cache folder is valid only while its stamp matches the hash of the wrapper module
(go.mod, go.sum, flags), so a version bump rebuilds. Concurrent callers (pytest-xdist
workers) serialise on a file lock; binaries move into place atomically.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from kubesched.localcluster import gobuild
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.paths import bin_dir

OVERRIDE_ENVS = ("KUBESCHED_K8S_BIN", "KUBEBUILDER_ASSETS")
COMPONENTS = (
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kubectl",
    "kwok",
)
HELM = "helm"
PROMTOOL = "promtool"
CRANE = "crane"
STAMP = ".source-hash"


@dataclass(frozen=True)
class Binaries:
    """Paths of the control-plane binaries (and of kwok, which plays the kubelets)."""

    etcd: Path
    kube_apiserver: Path
    kube_controller_manager: Path
    kube_scheduler: Path
    kubectl: Path
    kwok: Path

    def as_dict(self) -> dict[str, Path]:
        """Binary name (`kube-apiserver`) -> path."""
        return {f.name.replace("_", "-"): getattr(self, f.name) for f in fields(self)}

    def versions(self) -> dict[str, str]:
        """Binary name -> the version line it reports."""
        return {name: version_of(name, path) for name, path in self.as_dict().items()}


def ensure_binaries(*, progress: gobuild.Progress = gobuild.default_progress) -> Binaries:
    """Return every binary of `COMPONENTS`, building (once, then cached) those not found."""
    found = find_overrides(os.environ)
    for module in (gobuild.etcd_module(), gobuild.k8s_module(), gobuild.kwok_module()):
        missing = [name for name in module.packages if name not in found]
        if missing:
            found.update(_cached_or_built(module, missing, progress))
    return Binaries(**{name.replace("-", "_"): found[name] for name in COMPONENTS})


def ensure_helm(*, progress: gobuild.Progress = gobuild.default_progress) -> Path:
    """The helm command: from the override folders, else the cache, else built (once)."""
    found = find_overrides(os.environ, names=(HELM,))
    if HELM in found:
        return found[HELM]
    return _cached_or_built(gobuild.helm_module(), [HELM], progress)[HELM]


def ensure_promtool(*, progress: gobuild.Progress = gobuild.default_progress) -> Path:
    """The promtool command (Prometheus' rule checker): from the override folders, else the
    cache, else built (once; about 3 minutes on 2 cores)."""
    found = find_overrides(os.environ, names=(PROMTOOL,))
    if PROMTOOL in found:
        return found[PROMTOOL]
    return _cached_or_built(gobuild.promtool_module(), [PROMTOOL], progress)[PROMTOOL]


def ensure_crane(*, progress: gobuild.Progress = gobuild.default_progress) -> Path:
    """The crane command (go-containerregistry's registry client): from the override folders,
    else the cache, else built (once; about a minute on 2 cores)."""
    found = find_overrides(os.environ, names=(CRANE,))
    if CRANE in found:
        return found[CRANE]
    return _cached_or_built(gobuild.crane_module(), [CRANE], progress)[CRANE]


def cached_crane() -> Path | None:
    """The crane command if it needs no build (an override folder or the cache), else None:
    `make test` runs the registry round trip only then."""
    found = find_overrides(os.environ, names=(CRANE,))
    if CRANE in found:
        return found[CRANE]
    paths = cached(gobuild.crane_module(), [CRANE])
    return paths[CRANE] if paths else None


@dataclass(frozen=True)
class SchedulerPlugins:
    """scheduler-plugins' two commands (sigs.k8s.io/scheduler-plugins, the second oracle)."""

    scheduler: Path
    """kube-scheduler built with scheduler-plugins' out-of-tree plugins registered."""
    controller: Path
    """The controller that writes PodGroup and ElasticQuota status."""
    version: str
    """The module version both were built from, e.g. `v0.35.4-devel`."""


def ensure_scheduler_plugins(
    *, progress: gobuild.Progress = gobuild.default_progress
) -> SchedulerPlugins:
    """scheduler-plugins' scheduler and controller: from the override folders, else the cache,
    else built (once; several minutes on 2 cores)."""
    module = gobuild.scheduler_plugins_module()
    names = list(module.packages)
    found = find_overrides(os.environ, names=tuple(names))
    if len(found) < len(names):
        found = _cached_or_built(module, names, progress)
    return _scheduler_plugins(found, module.version)


def cached_scheduler_plugins() -> SchedulerPlugins | None:
    """scheduler-plugins' binaries if they need no build (an override folder or the cache)."""
    module = gobuild.scheduler_plugins_module()
    names = list(module.packages)
    found = find_overrides(os.environ, names=tuple(names))
    if len(found) < len(names):
        found = cached(module, names) or {}
    return _scheduler_plugins(found, module.version) if len(found) == len(names) else None


def _scheduler_plugins(found: Mapping[str, Path], version: str) -> SchedulerPlugins:
    return SchedulerPlugins(
        scheduler=found[gobuild.SCHEDULER_PLUGINS_SCHEDULER],
        controller=found[gobuild.SCHEDULER_PLUGINS_CONTROLLER],
        version=version,
    )


def ensure_module(
    module: gobuild.GoModule, *, progress: gobuild.Progress = gobuild.default_progress
) -> dict[str, Path]:
    """Every binary of `module` (name -> path): from the cache, else built (once) into it,
    like the control-plane binaries; for wrapper modules outside the package, such as the
    conformance specs' test binary of `make conformance`."""
    return _cached_or_built(module, list(module.packages), progress)


def find_overrides(
    environ: Mapping[str, str], *, names: tuple[str, ...] = COMPONENTS
) -> dict[str, Path]:
    """Binaries `names` found in the folders named by the override variables, first one wins."""
    found: dict[str, Path] = {}
    for variable in OVERRIDE_ENVS:
        value = environ.get(variable)
        if not value:
            continue
        folder = Path(value).expanduser()
        if not folder.is_dir():
            raise LocalClusterError(
                f"{variable}={value} is not a folder: point it at a folder holding etcd and "
                "kube-apiserver, or unset it to build them"
            )
        for name in names:
            if name not in found and is_executable(folder / name):
                found[name] = folder / name
    return found


def is_executable(path: Path) -> bool:
    """True for an existing executable file."""
    return path.is_file() and os.access(path, os.X_OK)


def cached(module: gobuild.GoModule, names: list[str]) -> dict[str, Path] | None:
    """The cached binaries `names` of `module`, or None when any is missing or stale."""
    folder = bin_dir() / module.cache_name
    stamp = folder / STAMP
    if not stamp.is_file() or stamp.read_text().strip() != module.source_hash():
        return None
    paths = {name: folder / name for name in names}
    return paths if all(is_executable(path) for path in paths.values()) else None


def _cached_or_built(
    module: gobuild.GoModule, names: list[str], progress: gobuild.Progress
) -> dict[str, Path]:
    paths = cached(module, names)
    if paths is not None:
        return paths
    root = bin_dir()
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f".{module.cache_name}.lock", progress):
        paths = cached(module, names)  # another process may have built them meanwhile
        if paths is None:
            _build_into(root / module.cache_name, module, names, progress)
            paths = cached(module, names)
    if paths is None:  # pragma: no cover - the build put every binary in place
        raise LocalClusterError(f"building {', '.join(names)} left no binaries in {root}")
    return paths


def _build_into(
    folder: Path, module: gobuild.GoModule, names: list[str], progress: gobuild.Progress
) -> None:
    source_hash = module.source_hash()
    stamp = folder / STAMP
    if folder.exists() and (not stamp.is_file() or stamp.read_text().strip() != source_hash):
        shutil.rmtree(folder)  # stale: built from another go.mod; rebuild everything asked for
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{module.cache_name}.build-"))
    try:
        log_path = folder.parent / f"{module.cache_name}.build.log"
        gobuild.build(
            module=module, names=names, outdir=staging, log_path=log_path, progress=progress
        )
        for name in names:
            (staging / name).replace(folder / name)
        (staging / STAMP).write_text(source_hash + "\n")
        (staging / STAMP).replace(stamp)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def _locked(path: Path, progress: gobuild.Progress) -> Iterator[None]:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress(f"waiting for another kubesched process building into {path.parent}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def version_of(name: str, path: Path) -> str:
    """The first line the binary `name` at `path` prints about its version."""
    argv = {
        "kubectl": [str(path), "version", "--client"],
        HELM: [str(path), "version", "--short"],
        PROMTOOL: [str(path), "--version"],
        CRANE: [str(path), "version"],
    }.get(name, [str(path), "--version"])
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return f"unknown ({error})"
    lines = (result.stdout or result.stderr).strip().splitlines()
    return lines[0] if lines else f"unknown (exit {result.returncode})"
