"""`LocalCluster`: a real etcd + kube-apiserver (+ kube-scheduler, kube-controller-manager
and kwok) on 127.0.0.1.

    with LocalCluster(controller_manager=True, kwok=True) as cluster:
        cluster.start_default_scheduler()
        cluster.kubectl("get", "nodes")

Everything lives in one workdir: `pki/`, `etcd-data/`, `logs/<component>.log`, the admin
`kubeconfig`. `stop()` deletes a temporary workdir unless `keep_logs` is set or something
failed; a workdir the caller passed in is never deleted.

What is simulated: there is no kubelet and no container runtime. kwok plays the kubelet of
the nodes labelled `kwok.NODE_LABEL` (Lease heartbeats, Ready, pods Running, Job pods
Succeeded); any other Node is a plain API object that no one keeps alive.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from kubesched.localcluster import controller_manager as kcm
from kubesched.localcluster import flags, kwok
from kubesched.localcluster import gates as feature_gates
from kubesched.localcluster import scheduler_plugins as splugins
from kubesched.localcluster.binaries import Binaries, SchedulerPlugins, ensure_binaries
from kubesched.localcluster.cluster_base import NOT_STARTED, ClusterBase
from kubesched.localcluster.components import (
    Addresses,
    ApiserverFiles,
    SchedulerFiles,
    apiserver_launch,
    etcd_launch,
    scheduler_launch,
    write_apiserver_files,
)
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.gobuild import Progress, default_progress
from kubesched.localcluster.launch import Launch
from kubesched.localcluster.probe import Endpoint, get, wait_until

SCHEDULER = "kube-scheduler"
APISERVER = "kube-apiserver"
CONTROLLER_MANAGER = "kube-controller-manager"
KWOK = "kwok"


class LocalCluster(ClusterBase):
    """A local control plane; a context manager that starts it and always stops it."""

    def __init__(
        self,
        *,
        binaries: Binaries | None = None,
        workdir: Path | None = None,
        apiserver_args: Sequence[str] = (),
        controller_manager: bool = False,
        kwok: bool = False,
        node_health: kcm.NodeHealthTimings | None = None,
        generic_workload: bool = False,
        gates: Mapping[str, bool] | None = None,
        keep_logs: bool = False,
        detached: bool = False,
        start_timeout: float = 90.0,
        progress: Progress = default_progress,
    ) -> None:
        """`apiserver_args` (`--name=value`) add to or override kube-apiserver's flags;
        `controller_manager` and `kwok` start those with the control plane (see
        `start_controller_manager`, `start_kwok`), with `node_health` timings;
        `generic_workload` turns kube-scheduler v1.37's native gang scheduling on (the
        `GenericWorkload` feature gate, `scheduling.k8s.io/v1beta1` PodGroups) in
        kube-apiserver and in every kube-scheduler started; `gates` (gate -> enabled) go to
        every component (`gates.apiserver_args` says what kube-apiserver gets with them);
        `detached` processes outlive this Python process (for `dev-cluster up`)."""
        super().__init__(
            binaries=binaries,
            workdir=workdir,
            keep_logs=keep_logs,
            detached=detached,
            start_timeout=start_timeout,
            progress=progress,
        )
        self.scheduler_port: int | None = None
        self.node_health = node_health or kcm.NodeHealthTimings()
        self._with = {CONTROLLER_MANAGER: controller_manager, KWOK: kwok}
        workload = {feature_gates.GENERIC_WORKLOAD: True} if generic_workload else {}
        self.gates: dict[str, bool] = {**workload, **(gates or {})}
        self.generic_workload = self.gates.get(feature_gates.GENERIC_WORKLOAD, False)
        gate_args = feature_gates.apiserver_args(self.gates)
        self._extra_apiserver_args = (*gate_args, *apiserver_args)
        self._files: ApiserverFiles | None = None

    # -- lifecycle ----------------------------------------------------------------------
    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self.failed = True
        self.stop()

    def start(self) -> None:
        """Start etcd and kube-apiserver (and kube-controller-manager and kwok when asked
        for); return once the API is ready and the `default` and `kube-system` namespaces
        exist. On failure everything started is stopped, the logs are kept, and a
        `LocalClusterError` says which component failed."""
        if self._processes:
            raise LocalClusterError("the local cluster is already started")
        if self.binaries is None:
            self.binaries = ensure_binaries(progress=self._progress)
        feature_gates.check(self.gates, self.binaries)
        try:
            self._start_control_plane(self.binaries)
            if self._with[CONTROLLER_MANAGER]:
                self.start_controller_manager()
            if self._with[KWOK]:
                self.start_kwok()
        except BaseException:
            self.failed = True
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every process (newest first); delete a temporary workdir unless kept."""
        for name in reversed(list(self._processes)):
            self._processes.pop(name).stop()
        keep = self.keep_logs or self.failed or self._given_workdir is not None
        if self._workdir is not None and not keep:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def stop_apiserver(self, *, grace: float = 5.0) -> None:
        """Stop kube-apiserver only (SIGTERM, SIGKILL after `grace` s); etcd and every other
        process keep running."""
        self._stop_process(APISERVER, grace=grace)

    def start_apiserver(self) -> None:
        """Start kube-apiserver again after `stop_apiserver()`, on the same port and etcd
        (so clients reconnect with the same kubeconfig); return once it is ready."""
        self._require_stopped(APISERVER)
        self._launch(APISERVER, self._apiserver_launch(self._require_binaries(), restart=True))

    # -- optional components ----------------------------------------------------------
    def start_default_scheduler(
        self, *, extra_args: Sequence[str] = (), command: Sequence[str] = ()
    ) -> None:
        """Start the real kube-scheduler (leader election on, Lease kube-system/kube-scheduler,
        its own identity `system:kube-scheduler`); return once it holds the Lease.
        `command` (e.g. `python -m kubesched`) runs in its place with the same flags, config
        and identity, logged as `kube-scheduler` too."""
        self._require_stopped(SCHEDULER)
        self._start_scheduler(
            SCHEDULER, addresses=self._addresses, extra_args=extra_args, command=command
        )
        self.scheduler_port = self._addresses.scheduler_port

    def start_extra_scheduler(
        self,
        name: str,
        *,
        scheduler_name: str,
        generic_workload: bool = False,
        extra_args: Sequence[str] = (),
    ) -> int:
        """Start another real kube-scheduler beside the default one, for pods of
        `scheduler_name` only (Lease kube-system/`scheduler_name`), logged as `name`,
        `generic_workload` with that feature gate; returns its secure port. `stop()` or
        `stop_extra_scheduler(name)` stops it."""
        self._require_stopped(name)
        addresses = Addresses(etcd_url=self._addresses.etcd_url)
        addresses.apiserver_port = self._addresses.apiserver_port
        gate = (flags.GENERIC_WORKLOAD_GATE,) if generic_workload else ()
        self._start_scheduler(
            name,
            addresses=addresses,
            scheduler_name=scheduler_name,
            extra_args=(*gate, *extra_args),
        )
        assert addresses.scheduler_port is not None
        return addresses.scheduler_port

    def stop_extra_scheduler(self, name: str) -> None:
        """Stop a kube-scheduler `start_extra_scheduler` started."""
        self._stop_process(name, grace=10.0)

    def _start_scheduler(
        self,
        name: str,
        *,
        addresses: Addresses,
        scheduler_name: str = "default-scheduler",
        extra_args: Sequence[str] = (),
        command: Sequence[str] = (),
    ) -> None:
        files = SchedulerFiles(
            config=self.workdir / f"{name}.yaml",
            kubeconfig=self.workdir / f"{name}.kubeconfig",
            cert_dir=self.workdir / f"{name}-certs",
            log=self.logs_dir / f"{name}.log",
        )
        self._write_kubeconfig(
            files.kubeconfig, token=self.tokens.scheduler, user=flags.SCHEDULER_USER
        )
        lease = "kube-scheduler" if scheduler_name == "default-scheduler" else scheduler_name
        files.config.write_text(
            flags.scheduler_config(
                kubeconfig_path=files.kubeconfig, scheduler_name=scheduler_name, lease_name=lease
            )
        )
        gate = self._gate_flag()
        launch = scheduler_launch(
            self._require_binaries(),
            files=files,
            addresses=addresses,
            extra=(*gate, *extra_args),
            command=command,
        )
        self._launch(name, launch)

    def start_controller_manager(self, *, extra_args: Sequence[str] = ()) -> None:
        """Start kube-controller-manager (identity `system:kube-controller-manager`, leader
        election on, the controllers of `controller_manager.CONTROLLERS`, node health by
        `node_health`); return once it holds its Lease."""
        self._require_stopped(CONTROLLER_MANAGER)
        if self._files is None:
            raise LocalClusterError(NOT_STARTED)
        files = kcm.ControllerManagerFiles(
            kubeconfig=self.workdir / f"{CONTROLLER_MANAGER}.kubeconfig",
            pki=self._files.pki,
            cert_dir=self.workdir / f"{CONTROLLER_MANAGER}-certs",
            log=self.logs_dir / f"{CONTROLLER_MANAGER}.log",
        )
        self._write_kubeconfig(
            files.kubeconfig,
            token=self.tokens.controller_manager,
            user=flags.CONTROLLER_MANAGER_USER,
        )
        if self.gates:
            own = f"--feature-gates={kcm.OWN_GATES},{feature_gates.render(self.gates)}"
            extra_args = (own, *extra_args)
        launch = kcm.controller_manager_launch(
            self._require_binaries(), files=files, timings=self.node_health, extra=extra_args
        )
        self._launch(CONTROLLER_MANAGER, launch)

    def stop_controller_manager(self) -> None:
        """Stop kube-controller-manager (it releases its Lease on the way out)."""
        self._stop_process(CONTROLLER_MANAGER, grace=10.0)

    def start_kwok(self, *, selector: str = "", extra_args: Sequence[str] = ()) -> None:
        """Start kwok for the nodes matching `selector` (default: labelled `kwok.NODE_LABEL`)
        with `node_health.lease_duration`; return once it serves /healthz."""
        self._require_stopped(KWOK)
        files = kwok.KwokFiles(
            kubeconfig=self.workdir / f"{KWOK}.kubeconfig",
            stages=self.workdir / "kwok-stages.yaml",
            workdir=self.workdir / "kwok",
            log=self.logs_dir / f"{KWOK}.log",
        )
        self._write_kubeconfig(files.kubeconfig, token=self.tokens.kwok, user=flags.KWOK_USER)
        kwok.write_kwok_files(files)
        launch = kwok.kwok_launch(
            self._require_binaries(),
            files=files,
            lease_duration=self.node_health.lease_duration,
            selector=selector or kwok.node_selector(),
            extra=extra_args,
        )
        self._launch(KWOK, launch, env=kwok.kwok_env(files, os.environ))

    def stop_kwok(self) -> None:
        """Stop kwok: the nodes it managed stop their heartbeats, as if every kubelet died."""
        self._stop_process(KWOK, grace=5.0)

    # -- scheduler-plugins (the second oracle) -------------------------------------------
    def install_scheduler_plugins_crds(self) -> None:
        """Apply scheduler-plugins' pinned PodGroup and ElasticQuota CRDs; return once both
        are Established (served)."""
        for path in splugins.crd_paths():
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f", str(path))
        crds = [f"crd/{name}" for name in splugins.CRD_NAMES]
        self.kubectl("wait", "--for=condition=Established", "--timeout=60s", *crds)

    def start_scheduler_plugins(
        self,
        plugins: SchedulerPlugins,
        *,
        config: Mapping[str, Any] | str | None = None,
        name: str = splugins.SCHEDULER,
        extra_args: Sequence[str] = (),
    ) -> int:
        """Start scheduler-plugins' scheduler with `config` (see
        `scheduler_plugins.scheduler_config`; None: Coscheduling and CapacityScheduling in a
        profile `scheduler-plugins-scheduler`), the admin identity, on loopback; return its
        secure port once it holds its Lease. Logged as `name`; `stop()` or
        `stop_extra_scheduler(name)` stops it."""
        self._require_stopped(name)
        files = SchedulerFiles(
            config=self.workdir / f"{name}.yaml",
            kubeconfig=self.kubeconfig_path,
            cert_dir=self.workdir / f"{name}-certs",
            log=self.logs_dir / f"{name}.log",
        )
        files.config.write_text(
            splugins.scheduler_config(config, kubeconfig_path=self.kubeconfig_path)
        )
        addresses = Addresses(etcd_url=self._addresses.etcd_url)
        command = (str(plugins.scheduler),)
        launch = scheduler_launch(
            self._require_binaries(),
            files=files,
            addresses=addresses,
            extra=extra_args,
            command=command,
        )
        self._launch(name, launch)
        assert addresses.scheduler_port is not None
        return addresses.scheduler_port

    def start_scheduler_plugins_controller(
        self, plugins: SchedulerPlugins, *, extra_args: Sequence[str] = ()
    ) -> None:
        """Start scheduler-plugins' controller (PodGroup and ElasticQuota status) with the
        admin kubeconfig; return once it answers /readyz."""
        self._require_stopped(splugins.CONTROLLER)
        env = {**os.environ, "KUBECONFIG": str(self.kubeconfig_path)}
        launch = splugins.controller_launch(plugins.controller, extra=extra_args)
        self._launch(splugins.CONTROLLER, launch, env=env)

    def stop_scheduler_plugins_controller(self) -> None:
        """Stop scheduler-plugins' controller."""
        self._stop_process(splugins.CONTROLLER, grace=5.0)

    # -- internals ------------------------------------------------------------------------
    def _start_control_plane(self, binaries: Binaries) -> None:
        if self._given_workdir is not None:
            self._given_workdir.mkdir(parents=True, exist_ok=True)
        self._workdir = self._given_workdir or Path(tempfile.mkdtemp(prefix="kubesched-cluster-"))
        self._files = write_apiserver_files(self.workdir / "pki", tokens=self.tokens)
        data_dir = self.workdir / "etcd-data"
        self._launch("etcd", etcd_launch(binaries, data_dir=data_dir, addresses=self._addresses))
        self._launch(APISERVER, self._apiserver_launch(binaries, restart=False))
        self.server = self._addresses.server
        self._write_kubeconfig(self.kubeconfig_path, token=self.admin_token, user=flags.ADMIN_USER)
        wait_until(
            lambda: all(
                self._api_status(f"/api/v1/namespaces/{ns}") == 200
                for ns in ("default", "kube-system")
            ),
            what="the default and kube-system namespaces",
            processes=list(self._processes.values()),
            timeout=self.start_timeout,
        )

    def _apiserver_launch(self, binaries: Binaries, *, restart: bool) -> Launch:
        if self._files is None:
            raise LocalClusterError(NOT_STARTED)
        return apiserver_launch(
            binaries,
            files=self._files,
            addresses=self._addresses,
            extra=self._extra_apiserver_args,
            restart=restart,
        )

    def _gate_flag(self) -> tuple[str, ...]:
        """Every kube-scheduler's `--feature-gates` (none without gates)."""
        return (f"--feature-gates={feature_gates.render(self.gates)}",) if self.gates else ()

    def _api_status(self, path: str) -> int:
        return get(Endpoint(self.server, ca_file=self.ca_file, token=self.admin_token), path)[0]
