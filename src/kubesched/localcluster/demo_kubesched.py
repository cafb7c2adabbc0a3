"""The demo's kubesched steps: the guides' Lease bug refused, then kubesched
deployed from `kubesched manifests` and run as 2 replicas with its ServiceAccount's token."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import yaml

from kubesched.localcluster.demo_base import (
    CUSTOM_POD,
    CUSTOM_SCHEDULER,
    KUBESCHED_NAMESPACE,
    NAMESPACE,
    wait_for_node_name,
)
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from kubesched.localcluster.process import Process

if TYPE_CHECKING:
    from kubesched.localcluster.demo_base import Demo

REPLICAS = ("kubesched-a", "kubesched-b")
MANIFEST_FLAGS = (f"--namespace={KUBESCHED_NAMESPACE}", f"--scheduler-name={CUSTOM_SCHEDULER}")
_IDENTITY = re.compile(r'"starting leader election".*?identity="([^"]+)"')


def kubesched_argv(*flags: str) -> list[str]:
    """`python -m kubesched FLAGS --secure-port=0` (no serving: several run on one host)."""
    return [sys.executable, "-m", "kubesched", *flags, "--secure-port=0"]


def refuse_default_lease(demo: Demo) -> None:
    """Show the guides' Lease bug refused: kubesched asked for kube-system/kube-scheduler."""
    flags = (
        f"--scheduler-name={CUSTOM_SCHEDULER}",
        "--leader-elect-resource-namespace=kube-system",
        "--leader-elect-resource-name=kube-scheduler",
    )
    argv = kubesched_argv(*flags, f"--kubeconfig={demo.cluster.kubeconfig_path}")
    demo.out("$ kubesched " + " ".join(flags))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    refusal = [line for line in result.stderr.splitlines() if line.startswith("kubesched:")]
    demo.out(f"exit code {result.returncode}: {refusal[-1] if refusal else result.stderr[-400:]}")
    if result.returncode == 0:
        raise LocalClusterError("kubesched accepted kube-scheduler's Lease; it must refuse it")


def apply_manifests(demo: Demo) -> None:
    """Apply `kubesched manifests` with kubectl (Namespace, RBAC, ConfigMap, Deployment)."""
    argv = [sys.executable, "-m", "kubesched", "manifests", *MANIFEST_FLAGS]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    if result.returncode != 0:
        first = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LocalClusterError(f"kubesched manifests failed (exit {result.returncode}): {first}")
    objects = [obj for obj in yaml.safe_load_all(result.stdout) if obj]
    demo.notes["manifests"] = objects
    deployment = _named(objects, "Deployment")
    for obj in objects:
        if obj.get("kind") == "Deployment":
            obj["spec"]["replicas"] = 0
    demo.out("$ kubesched manifests " + " ".join(MANIFEST_FLAGS) + " | kubectl apply -f -")
    demo.out(demo.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(objects)).rstrip())
    demo.out(
        f"(applied with the Deployment {KUBESCHED_NAMESPACE}/{deployment} at 0 replicas: kwok "
        "plays the kubelets here and runs no container, so its 2 replicas run as local "
        "processes with the same ServiceAccount, config and POD_NAMESPACE instead)"
    )


def start_replicas(demo: Demo) -> None:
    """Run kubesched as 2 replicas with the generated ServiceAccount's token (TokenRequest)."""
    cluster, objects = demo.cluster, demo.notes["manifests"]
    account, config_map = _named(objects, "ServiceAccount"), _named(objects, "ConfigMap")
    token = demo.kubectl("create", "token", account, "-n", KUBESCHED_NAMESPACE).strip()
    demo.out(f"$ kubectl create token {account} -n {KUBESCHED_NAMESPACE}  (TokenRequest)")
    sa_kubeconfig = cluster.workdir / f"{account}.kubeconfig"
    spec = KubeconfigSpec(server=cluster.server, ca_file=cluster.ca_file, token=token, user=account)
    sa_kubeconfig.write_text(kubeconfig(spec))
    sa_kubeconfig.chmod(0o600)
    jsonpath = r"jsonpath={.data.config\.yaml}"
    text = demo.kubectl("get", "configmap", config_map, "-n", KUBESCHED_NAMESPACE, "-o", jsonpath)
    config = yaml.safe_load(text)
    # With --config, kube-scheduler-style flags such as --kubeconfig are ignored: use the file.
    config.setdefault("clientConnection", {})["kubeconfig"] = str(sa_kubeconfig)
    config_path = cluster.workdir / f"{config_map}.yaml"
    config_path.write_text(yaml.safe_dump(config))
    demo.out(
        f"config from ConfigMap {config_map} with clientConnection.kubeconfig={sa_kubeconfig.name}"
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "POD_NAMESPACE": KUBESCHED_NAMESPACE}
    env.pop("KUBECONFIG", None)
    argv = kubesched_argv(f"--config={config_path}")
    replicas: dict[str, Process] = {}
    for name in REPLICAS:
        replicas[name] = cluster.spawn(name, argv, env=env)
        demo.out(f"$ POD_NAMESPACE={KUBESCHED_NAMESPACE} kubesched --config={config_path.name}")
        demo.out(f"  {name}: pid {replicas[name].pid}, log {replicas[name].log_path}")
    demo.notes["replicas"] = replicas
    demo.notes["identities"] = {name: _identity(demo, p) for name, p in replicas.items()}


def wait_for_custom_pod(demo: Demo) -> None:
    """Wait until kubesched has bound the my-scheduler pod that was Pending."""
    node = wait_for_node_name(demo, CUSTOM_POD, timeout=60.0, who="kubesched-a/-b")
    demo.out(f"kubesched bound {NAMESPACE}/{CUSTOM_POD} to {node}")


def _named(objects: list[dict[str, Any]], kind: str) -> str:
    for obj in objects:
        if obj.get("kind") == kind:
            return str(obj["metadata"]["name"])
    raise LocalClusterError(f"kubesched manifests printed no {kind}")


def _identity(demo: Demo, process: Process, *, timeout: float = 30.0) -> str:
    """The Lease holder identity a replica logs when it starts leader election."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process.running():
            raise process.exited_error()
        log = process.log_path.read_text(errors="replace") if process.log_path.exists() else ""
        if match := _IDENTITY.search(log):
            return match.group(1)
        time.sleep(0.3)
    raise LocalClusterError(
        f"{process.name} did not start leader election within {timeout:.0f} s; "
        f"log: {process.log_path}",
        details=demo.cluster.log_tails(lines=20),
    )
