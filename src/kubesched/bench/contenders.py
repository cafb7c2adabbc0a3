"""The contenders and how each is started on a fresh local control plane: kubesched,
kube-scheduler and the null binder (the defaults), and scheduler-plugins' own build (its
kube-scheduler v1.35.4 with its plugins registered, built into the binary cache on first
use), for the cases whose profile enables one of its plugins.

Each serves pods of one dedicated scheduler name, with leader election off and the same
client limits (`clientConnection.qps/burst` in their KubeSchedulerConfiguration files: a
config file makes kube-scheduler ignore the equivalent flags), and the admin kubeconfig.
Serving is off (`--secure-port=0`) for kubesched; kube-scheduler and scheduler-plugins serve
on a loopback port given by the runner, whose /metrics it reads (`bench.scheduler_metrics`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kubesched.bench.scheduler_metrics import serving_flags
from kubesched.localcluster import LocalCluster, Process
from kubesched.localcluster.binaries import ensure_scheduler_plugins

KUBESCHED = "kubesched"
KUBE_SCHEDULER = "kube-scheduler"
NULL_BINDER = "null-binder"
SCHEDULER_PLUGINS = "scheduler-plugins"
CONTENDERS = (KUBESCHED, KUBE_SCHEDULER, NULL_BINDER)
"""The default contenders."""
KNOWN = (*CONTENDERS, SCHEDULER_PLUGINS)
SERVES_METRICS = (KUBE_SCHEDULER, SCHEDULER_PLUGINS)
"""The contenders whose /metrics the runner reads (given a `metrics_port`)."""
SOURCE_TREE = "kubesched@"
"""`kubesched@DIR`: kubesched from another checkout's `DIR/src` (e.g. a `git worktree` of an
older commit), so that two versions run in one bench on the same machine."""


def is_contender(name: str) -> bool:
    """A contender `kubesched bench --contenders` knows: one of `KNOWN`, or
    `kubesched@DIR` where DIR/src/kubesched exists."""
    tree = source_tree(name)
    return name in KNOWN or (tree is not None and (tree / "kubesched").is_dir())


def source_tree(name: str) -> Path | None:
    """The `src` folder a `kubesched@DIR` contender runs from; None for the others."""
    if not name.startswith(SOURCE_TREE):
        return None
    return Path(name.removeprefix(SOURCE_TREE)).expanduser().resolve() / "src"


@dataclass(frozen=True, slots=True)
class ClientLimits:
    """What every contender gets: client QPS/burst and (for the binders) concurrency."""

    scheduler_name: str
    qps: float
    burst: int
    binding_concurrency: int = 64


def scheduler_config(
    *,
    kubeconfig: Path,
    limits: ClientLimits,
    plugin_config: Sequence[dict[str, Any]] = (),
    plugins: Mapping[str, Any] | None = None,
) -> str:
    """One KubeSchedulerConfiguration v1 that both kubesched and kube-scheduler accept;
    `plugin_config` and `plugins` are its one profile's `pluginConfig` and `plugins`."""
    profile: dict[str, Any] = {"schedulerName": limits.scheduler_name}
    if plugins:
        profile["plugins"] = dict(plugins)
    if plugin_config:
        profile["pluginConfig"] = list(plugin_config)
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {
            "kubeconfig": str(kubeconfig),
            "qps": limits.qps,
            "burst": limits.burst,
        },
        "leaderElection": {"leaderElect": False},
        "profiles": [profile],
    }
    return yaml.safe_dump(config, sort_keys=False)


def contender_argv(
    name: str,
    cluster: LocalCluster,
    limits: ClientLimits,
    flags: Sequence[str] = (),
    plugin_config: Sequence[dict[str, Any]] = (),
    *,
    plugins: Mapping[str, Any] | None = None,
    metrics_port: int | None = None,
) -> list[str]:
    """The command line that starts contender `name` against `cluster`; `flags` are added
    to the schedulers' (kube-scheduler's flags, which kubesched takes too); `plugin_config`
    and `plugins` go into the schedulers' config file; `metrics_port` makes one of
    `SERVES_METRICS` serve there."""
    config = cluster.workdir / f"{_label(name)}.yaml"
    text = scheduler_config(
        kubeconfig=cluster.kubeconfig_path,
        limits=limits,
        plugin_config=plugin_config,
        plugins=plugins,
    )
    config.write_text(text)
    if name == KUBESCHED or source_tree(name) is not None:
        return [sys.executable, "-m", "kubesched", f"--config={config}", "--secure-port=0", *flags]
    serving = ["--secure-port=0"]
    if metrics_port is not None:
        certs = cluster.workdir / f"{_label(name)}-serving"
        serving = serving_flags(
            port=metrics_port, kubeconfig=cluster.kubeconfig_path, cert_dir=certs
        )
    if name == KUBE_SCHEDULER:
        assert cluster.binaries is not None
        kube_scheduler = str(cluster.binaries.kube_scheduler)
        return [kube_scheduler, f"--config={config}", *serving, *flags]
    if name == SCHEDULER_PLUGINS:
        binary = str(ensure_scheduler_plugins().scheduler)
        return [binary, f"--config={config}", *serving, *flags]
    if name == NULL_BINDER:
        return [
            sys.executable,
            "-m",
            "kubesched.bench.nullbinder",
            f"--kubeconfig={cluster.kubeconfig_path}",
            f"--scheduler-name={limits.scheduler_name}",
            f"--qps={limits.qps}",
            f"--burst={limits.burst}",
            f"--concurrency={limits.binding_concurrency}",
        ]
    raise ValueError(f"unknown contender {name!r}; choose from {', '.join(KNOWN)}")


def start_contender(
    name: str,
    cluster: LocalCluster,
    limits: ClientLimits,
    *,
    flags: Sequence[str] = (),
    plugin_config: Sequence[dict[str, Any]] = (),
    plugins: Mapping[str, Any] | None = None,
    metrics_port: int | None = None,
) -> Process:
    """Start the contender's process (logged to the cluster's logs/<name>.log)."""
    argv = contender_argv(
        name, cluster, limits, flags, plugin_config, plugins=plugins, metrics_port=metrics_port
    )
    env = dict(os.environ)
    tree = source_tree(name)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return cluster.spawn(_label(name), argv, env=env)


def _label(name: str) -> str:
    """`name` as a file name (a `kubesched@DIR` contender's DIR has slashes)."""
    tree = source_tree(name)
    return name if tree is None else f"kubesched-{tree.parent.name}"
