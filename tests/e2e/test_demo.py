"""`make demo` (`kubesched dev-cluster demo`) runs to its table by itself and exits 0: the
three pods of "Configure Multiple Schedulers" placed by the scheduler they name and Running,
a Deployment placed by kubesched, both Leases held, and the kubesched standby taking over
from the killed leader."""

from __future__ import annotations

import re
import subprocess
import sys
import time

DEMO_TIMEOUT = 120.0


def _line(output: str, pattern: str) -> re.Match[str] | None:
    return re.search(pattern, output, flags=re.MULTILINE)


def test_make_demo_runs_to_its_table_and_exits_0() -> None:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "kubesched", "dev-cluster", "demo"],
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT,
        check=False,
    )
    took = time.monotonic() - started
    out = result.stdout
    assert result.returncode == 0, f"{out[-3000:]}\n{result.stderr[-3000:]}"
    assert took < 90.0, f"the demo took {took:.0f} s"

    # The guides' Lease mistake (kube-scheduler's own Lease) is refused.
    assert "exit code 1: kubesched: Refusing to start" in out
    # kubesched is applied from `kubesched manifests` and runs with its ServiceAccount token.
    assert "deployment.apps/my-scheduler created" in out
    assert "kubectl create token my-scheduler -n kubesched-system" in out
    # On the whole local cluster the three pods end Running (kwok plays the kubelets) ...
    for pod in ("no-annotation", "annotation-default-scheduler", "annotation-second-scheduler"):
        assert _line(out, rf"^{pod}\s+1/1\s+Running\s+0\s+\S+\s+[\d.]+\s+node-\d\s"), out
    # ... and a Deployment's replicas, made by kube-controller-manager, are placed by kubesched.
    assert 'deployment "web" successfully rolled out' in out
    assert "all 6 replicas of web were placed by my-scheduler" in out
    assert (
        len(re.findall(r"^web-\S+\s+my-scheduler\s+Successfully assigned", out, re.MULTILINE)) == 6
    )
    assert "kwok played the kubelets" in out
    # Who placed what, from the Scheduled events.
    assert _line(out, r"^no-annotation\s+default-scheduler\s+node-\d\s+default-scheduler")
    default_pod = r"^annotation-default-scheduler\s+default-scheduler\s+node-\d\s+default-scheduler"
    assert _line(out, default_pod)
    assert _line(out, r"^annotation-second-scheduler\s+my-scheduler\s+node-\d\s+my-scheduler")
    # Both Leases, each with its holder; one kubesched replica leads.
    assert _line(out, r"^kube-system/kube-scheduler\s+\S+_\S+\s+kube-scheduler\s")
    leads = _line(out, r"^kubesched-system/my-scheduler\s+\S+_\S+\s+(kubesched-[ab])\s")
    assert leads is not None, out
    leader = leads.group(1)
    standby = "kubesched-b" if leader == "kubesched-a" else "kubesched-a"
    # The leader is killed; the standby takes over and places the next pod.
    assert _line(out, rf"^{standby} took over kubesched-system/my-scheduler after [\d.]+ s")
    assert _line(out, r"^annotation-second-scheduler-2\s+my-scheduler\s+node-\d\s+my-scheduler")
    assert f"placed by {standby}" in out
    assert "demo done: the control plane is stopped" in out
