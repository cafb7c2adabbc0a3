"""Exec credential plugins, re-run as client-go re-runs them: on a 401 and when the token
they gave expires. The plugin is a small script that counts its runs; its token is the
control plane's admin token, or a bogus one on its first run."""

from __future__ import annotations

import datetime as dt
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for

SCHEDULER = "exec-credentials-scheduler"

PLUGIN = """
import datetime, json, pathlib, sys
count_file = pathlib.Path({count!r})
runs = int(count_file.read_text()) + 1 if count_file.exists() else 1
count_file.write_text(str(runs))
token = "bogus-first-token" if {bogus_first} and runs == 1 else {token!r}
status = {{"token": token}}
if {lifetime}:
    expiry = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds={lifetime})
    status["expirationTimestamp"] = expiry.strftime("%Y-%m-%dT%H:%M:%SZ")
print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": status}}))
"""


def exec_kubeconfig(
    cluster: LocalCluster, tmp_path: Path, *, bogus_first: bool, lifetime: int
) -> tuple[Path, Path]:
    """A copy of the admin kubeconfig whose user runs the counting plugin; (path, counter)."""
    count = tmp_path / "plugin-runs"
    script = tmp_path / "plugin.py"
    script.write_text(
        textwrap.dedent(PLUGIN).format(
            count=str(count),
            bogus_first=bogus_first,
            token=cluster.admin_token,
            lifetime=lifetime,
        )
    )
    config = yaml.safe_load(cluster.kubeconfig_path.read_text())
    config["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1",
            "command": sys.executable,
            "args": [str(script)],
            "interactiveMode": "Never",
        }
    }
    path = tmp_path / "exec.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path, count


def runs(count: Path) -> int:
    return int(count.read_text()) if count.exists() else 0


def schedule(api: ApiClient, namespace: str, name: str) -> None:
    api.create(make_pod().name(name).namespace(namespace).scheduler(SCHEDULER).obj())
    wait_for(lambda: api.get("Pod", name, namespace=namespace), until=is_bound, message=name)


def test_a_401_reruns_the_plugin_and_retries(
    kubesched: Callable[..., Any],
    api: ApiClient,
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> None:
    kubeconfig, count = exec_kubeconfig(local_cluster, tmp_path, bogus_first=True, lifetime=0)
    api.create(make_node().name("n1").obj())
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false", kubeconfig=kubeconfig)
    schedule(api, namespace, "after-401")
    assert runs(count) == 2  # the bogus token, then one re-run after the 401
    assert "exec credential refreshed" in proc.log()


def test_an_expired_token_reruns_the_plugin(
    kubesched: Callable[..., Any],
    api: ApiClient,
    local_cluster: LocalCluster,
    namespace: str,
    tmp_path: Path,
) -> None:
    kubeconfig, count = exec_kubeconfig(local_cluster, tmp_path, bogus_first=False, lifetime=3)
    api.create(make_node().name("n1").obj())
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=true",
        f"--leader-elect-resource-namespace={namespace}",
        "--leader-elect-resource-name=exec-credentials",
        kubeconfig=kubeconfig,
    )
    started = dt.datetime.now(dt.UTC)
    # Lease renewals every 2 s need a valid token: the plugin runs again after each expiry.
    wait_for(lambda: runs(count), until=lambda n: n >= 4, timeout=30, message="plugin re-runs")
    assert (dt.datetime.now(dt.UTC) - started).total_seconds() >= 6
    schedule(api, namespace, "after-expiry")
    assert proc.running()
