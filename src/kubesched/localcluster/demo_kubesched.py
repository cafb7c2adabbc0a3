"""The demo's kubesched steps: the source documents' bug refused, then kubesched beside
kube-scheduler with the source documents' own flags, placing the pod kube-scheduler left."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from kubesched.localcluster.errors import LocalClusterError

if TYPE_CHECKING:
    from kubesched.localcluster.demo import Demo

# The flags of the second source document (kube-scheduler <= 1.27 spellings), verbatim.
SOURCE_DOC_FLAGS = (
    "--leader-elect=true",
    "--scheduler-name=my-scheduler",
    "--lock-object-name=my-scheduler",
    "--lock-object-namespace=kube-system",
)


def kubesched_argv(kubeconfig: str, *flags: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "kubesched",
        *flags,
        f"--kubeconfig={kubeconfig}",
        "--secure-port=0",
    ]


def refuse_default_lease(demo: Demo) -> None:
    """Show the source documents' bug being refused: kubesched on kube-system/kube-scheduler."""
    cluster = demo.cluster
    argv = kubesched_argv(
        str(cluster.kubeconfig_path),
        "--scheduler-name=my-scheduler",
        "--leader-elect-resource-namespace=kube-system",
        "--leader-elect-resource-name=kube-scheduler",
    )
    demo.out(
        "$ kubesched --scheduler-name=my-scheduler "
        "--leader-elect-resource-namespace=kube-system --leader-elect-resource-name=kube-scheduler"
    )
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    refusal = [line for line in result.stderr.splitlines() if line.startswith("kubesched:")]
    demo.out(f"exit code {result.returncode}: {refusal[-1] if refusal else result.stderr[-400:]}")
    if result.returncode == 0:
        raise LocalClusterError("kubesched accepted kube-scheduler's Lease; it must refuse it")


def start_kubesched(demo: Demo) -> None:
    """Start kubesched with the source documents' flags (its own Lease kube-system/my-scheduler)."""
    cluster = demo.cluster
    argv = kubesched_argv(str(cluster.kubeconfig_path), *SOURCE_DOC_FLAGS)
    demo.out("$ kubesched " + " ".join(SOURCE_DOC_FLAGS))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("KUBECONFIG", None)
    cluster.spawn("kubesched", argv, env=env)


def wait_for_custom_pod(demo: Demo) -> None:
    """Wait until kubesched has bound the my-scheduler pod that was Pending."""
    cluster = demo.cluster
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        node = demo.kubectl(
            "get", "pod", "web-custom", "-n", "demo", "-o", "jsonpath={.spec.nodeName}"
        ).strip()
        if node:
            demo.out(f"kubesched bound demo/web-custom to {node}")
            return
        time.sleep(0.5)
    raise LocalClusterError(
        f"kubesched did not bind demo/web-custom in 60 s; see {cluster.logs_dir}/kubesched.log",
        details=cluster.log_tails(lines=30),
    )


def show_leases(demo: Demo) -> None:
    """Show both Leases: kube-scheduler's and kubesched's, each with its own holder."""
    demo.show(
        "get",
        "leases",
        "-n",
        "kube-system",
        "-o",
        "custom-columns=LEASE:.metadata.name,HOLDER:.spec.holderIdentity,"
        "DURATION:.spec.leaseDurationSeconds,RENEWED:.spec.renewTime",
    )
