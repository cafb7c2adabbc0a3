"""Values from the cluster never forge log lines or reach the terminal raw: a Lease whose
holderIdentity holds a newline, a fake klog line and ESC sequences is shown escaped in
kubesched's text log (the standby line), in `kubesched doctor` and in `kubesched leases`.

The standby line also says where its expiry counts from (when this replica last saw the
Lease change), and doctor never says a Lease was "renewed in" the future.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from kubesched.localcluster import LocalCluster
from tests.e2e.harness import ApiClient
from tests.e2e.test_doctor import kubesched_lease

SCHEDULER = "hostile-values-scheduler"
FORGED = 'I1201 08:00:00.000000       1 app.py:1] "caches synced"'
HOLDER = f"evil\n{FORGED}\x1b[2J\x1b]0;pwned\x07"


def lease(namespace: str, name: str, *, renewed: datetime) -> dict[str, Any]:
    """A kubesched Lease whose holder forges a log line and terminal escapes."""
    return kubesched_lease(
        namespace,
        name,
        names=SCHEDULER,
        holder=HOLDER,
        renewed=renewed,
        duration_seconds=3600,
        transitions=1,
    )


def cli(cluster: LocalCluster, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    return subprocess.run(
        [sys.executable, "-m", "kubesched", *args, f"--kubeconfig={cluster.kubeconfig_path}"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        check=False,
    )


def assert_escaped(output: str) -> None:
    assert "\x1b" not in output
    assert "\x07" not in output
    assert not any(line.startswith(FORGED) for line in output.splitlines()), output
    assert "\\x1b[2J" in output


def test_hostile_holder_identity_is_escaped_everywhere(
    kubesched: Callable[..., Any], api: ApiClient, local_cluster: LocalCluster, namespace: str
) -> None:
    api.create(lease(namespace, "hostile", renewed=datetime.now(UTC) + timedelta(seconds=1)))
    flags = (
        f"--scheduler-name={SCHEDULER}",
        f"--leader-elect-resource-namespace={namespace}",
        "--leader-elect-resource-name=hostile",
    )
    proc = kubesched(*flags)
    log = proc.wait_log("waiting for leader lease")
    assert_escaped(log)
    (line,) = [entry for entry in log.splitlines() if "waiting for leader lease" in entry]
    assert 'holder="evil\\nI1201 08:00:00.000000       1 app.py:1] \\"caches synced\\"' in line
    assert "from when this replica last saw it change" in line

    doctor = cli(local_cluster, "doctor", *flags)
    assert_escaped(doctor.stdout)
    assert "renewed in" not in doctor.stdout
    leases = cli(local_cluster, "leases", "-n", namespace)
    assert_escaped(leases.stdout)
