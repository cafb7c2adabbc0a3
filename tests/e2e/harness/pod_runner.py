"""A kubelet for one Node of the local cluster, enough for the pods of a Helm chart's hooks: it
runs a bound pod's container from an image's unpacked root filesystem and reports how it ended.

    runner = PodRunner(api, node="hook-runner", rootfs=rootfs, image=config, workdir=tmp,
                       runs=lambda pod: ...)
    with runner: ...        # a thread: the node's Lease renewed, selected pods run

kwok plays the other nodes' kubelets but runs no container, so a Job's pod there would end as
kwok decides, not as its command would. Here the container really runs: its command (the
image's entrypoint unless the pod sets one) and arguments, in `harness.image.Sandbox` (the
read-only root filesystem, the image's uid and gid), with the pod's configMap volumes written
out and mounted read-only, its emptyDir volumes writable, its `env` (values and the pod's
namespace and name); then the pod gets what a kubelet writes when its only container exits:
phase Succeeded or Failed, the container's exit code and, as with
`terminationMessagePolicy: FallbackToLogsOnError`, the tail of its output as the message.
The Job controller and helm read exactly that.

As a kubelet does, it renews the node's Lease in kube-node-lease every 2 s, so the node
lifecycle controller keeps the Node Ready and untainted. The other pods bound to the node
(`runs` says which to run) are reported Running and Ready without running anything, as kwok
reports the pods of its nodes.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.e2e.harness.api import ApiClient, ApiError
from tests.e2e.harness.image import Mount, Sandbox

NODE_LEASES = "kube-node-lease"
RENEW_SECONDS = 2.0
MESSAGE_LINES = 80
"""Lines of output kept as the termination message (the kubelet keeps at most 80 lines)."""


@dataclass(frozen=True)
class Ran:
    """One container run: the pod, its command line, exit code and output."""

    namespace: str
    pod: str
    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class PodRunner:
    """Runs the pods bound to `node` that `runs` selects (see the module)."""

    def __init__(
        self,
        api: ApiClient,
        *,
        node: str,
        rootfs: Path,
        image: dict[str, Any],
        workdir: Path,
        runs: Callable[[dict[str, Any]], bool],
    ) -> None:
        self.api, self.node, self.rootfs, self.image = api, node, rootfs, image
        self.workdir, self.runs = workdir, runs
        self.ran: list[Ran] = []
        self._done: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"kubelet-{node}", daemon=True)
        self._renewed = 0.0
        self.errors: list[str] = []

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=150)

    def _loop(self) -> None:
        while not self._stop.wait(0.3):
            try:
                self._renew()
                for pod in self._bound():
                    if self.runs(pod):
                        self._run(pod)
                    else:
                        self._started(pod)
            except (ApiError, OSError) as error:  # the API server between tests: next round
                self.errors.append(repr(error))

    def _renew(self) -> None:
        now = _now()
        if now.timestamp() - self._renewed < RENEW_SECONDS:
            return
        stamp = now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        spec = {"holderIdentity": self.node, "leaseDurationSeconds": 40, "renewTime": stamp}
        if self.api.get_or_none("Lease", self.node, namespace=NODE_LEASES) is None:
            lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease"}
            self.api.create(
                {**lease, "metadata": {"name": self.node}, "spec": spec}, namespace=NODE_LEASES
            )
        else:
            self.api.patch("Lease", self.node, {"spec": spec}, namespace=NODE_LEASES)
        self._renewed = now.timestamp()

    def _bound(self) -> list[dict[str, Any]]:
        pods = self.api.list("Pod", field_selector=f"spec.nodeName={self.node}")
        return [
            pod
            for pod in pods
            if pod["metadata"]["uid"] not in self._done
            and pod.get("status", {}).get("phase", "Pending") == "Pending"
            and "deletionTimestamp" not in pod["metadata"]
        ]

    def _started(self, pod: dict[str, Any]) -> None:
        """A pod it is not asked to run: Running and Ready, as kwok reports the pods of its
        nodes (so that a Deployment's rollout completes); nothing runs."""
        meta = pod["metadata"]
        self._done.add(meta["uid"])
        stamp = _now().strftime("%Y-%m-%dT%H:%M:%SZ")
        ready = [
            {"type": kind, "status": "True", "lastTransitionTime": stamp}
            for kind in ("Initialized", "ContainersReady", "Ready", "PodScheduled")
        ]
        containers = [
            {
                "name": container["name"],
                "image": container["image"],
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": stamp}},
            }
            for container in pod["spec"]["containers"]
        ]
        status = {
            "phase": "Running",
            "startTime": stamp,
            "conditions": ready,
            "containerStatuses": containers,
        }
        self.api.patch(
            "Pod",
            meta["name"],
            {"status": status},
            namespace=meta["namespace"],
            subresource="status",
        )

    def _run(self, pod: dict[str, Any]) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        (container,) = spec["containers"]
        folder = self.workdir / meta["uid"]
        mounts = self._mounts(pod, container, folder)
        if mounts is None:
            return  # a ConfigMap not there yet: the kubelet waits too
        self._done.add(meta["uid"])
        sandbox = Sandbox(self.rootfs, self.image, mounts=mounts)
        command = container.get("command") or sandbox.entrypoint
        argv = [*command, *container.get("args", [])]
        env = {**sandbox.env, **_env(container, meta)}
        done = subprocess.run(
            sandbox.argv(argv), env=env, capture_output=True, text=True, timeout=120, check=False
        )
        ran = Ran(meta["namespace"], meta["name"], argv, done.returncode, done.stdout, done.stderr)
        self.ran.append(ran)
        self._report(pod, container, done.returncode, ran.output)
        shutil.rmtree(folder, ignore_errors=True)

    def _mounts(
        self, pod: dict[str, Any], container: dict[str, Any], folder: Path
    ) -> list[Mount] | None:
        volumes = {volume["name"]: volume for volume in pod["spec"].get("volumes", [])}
        mounts = []
        for mount in container.get("volumeMounts", []):
            volume = volumes[mount["name"]]
            source = folder / mount["name"]
            source.mkdir(parents=True, exist_ok=True)
            if "configMap" in volume:
                found = self.api.get_or_none(
                    "ConfigMap", volume["configMap"]["name"], namespace=pod["metadata"]["namespace"]
                )
                if found is None:
                    return None
                for key, text in found.get("data", {}).items():
                    (source / key).write_text(text)
                    (source / key).chmod(0o644)
                source.chmod(0o755)
            else:
                assert "emptyDir" in volume, f"volume {volume} is not supported here"
                os.chown(source, 65532, 65532)
                source.chmod(0o700)
            writable = not mount.get("readOnly", False) and "emptyDir" in volume
            mounts.append(Mount(source, mount["mountPath"], writable=writable))
        return mounts

    def _report(self, pod: dict[str, Any], container: dict[str, Any], code: int, out: str) -> None:
        stamp = _now().strftime("%Y-%m-%dT%H:%M:%SZ")
        terminated = {
            "exitCode": code,
            "reason": "Completed" if code == 0 else "Error",
            "startedAt": stamp,
            "finishedAt": stamp,
        }
        if code != 0:
            terminated["message"] = "\n".join(out.splitlines()[-MESSAGE_LINES:])
        status = {
            "phase": "Succeeded" if code == 0 else "Failed",
            "containerStatuses": [
                {
                    "name": container["name"],
                    "image": container["image"],
                    "imageID": "",
                    "ready": False,
                    "restartCount": 0,
                    "started": False,
                    "state": {"terminated": terminated},
                }
            ],
        }
        meta = pod["metadata"]
        self.api.patch(
            "Pod",
            meta["name"],
            {"status": status},
            namespace=meta["namespace"],
            subresource="status",
        )


def _env(container: dict[str, Any], meta: dict[str, Any]) -> dict[str, str]:
    env = {}
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
            continue
        path = item["valueFrom"]["fieldRef"]["fieldPath"]
        assert path in ("metadata.namespace", "metadata.name"), f"{item} is not supported here"
        env[item["name"]] = meta[path.removeprefix("metadata.")]
    return env
