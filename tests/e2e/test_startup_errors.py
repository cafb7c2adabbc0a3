"""Every start-up error is one line, `kubesched: ...`, naming the fix, with exit code 1 and
no traceback: bad kubeconfigs and URLs, serving flags (certificates, ports, addresses),
--write-config-to, plugin modules that exit or cancel, YAML alias bombs, empty Lease names.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, condition, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.kubesched import free_port
from tests.e2e.harness.parity import write_config

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    """(exit code, the `kubesched: ` lines, all output) of `python -m kubesched ARGS`."""
    environ = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | (env or {})
    done = subprocess.run(
        [sys.executable, "-m", "kubesched", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=environ,
        check=False,
    )
    output = done.stdout + done.stderr
    errors = [line for line in output.splitlines() if line.startswith("kubesched")]
    return done.returncode, [e for e in errors if ": " in e and "flag --" not in e], output


def assert_one_line(result: tuple[int, list[str], str], *expected: str) -> None:
    code, errors, output = result
    assert code == 1, output
    assert "Traceback" not in output, output
    assert len(errors) == 1, output
    for text in expected:
        assert text in errors[0], errors[0]


Serve = Callable[..., tuple[int, list[str], str]]
"""`serve(*flags)`: (exit code, the `kubesched: ` lines, all output)."""


@pytest.fixture
def serve(local_cluster: LocalCluster, tmp_path: Path) -> Serve:
    """Run kubesched against the test cluster with serving flags (no Lease, one profile)."""

    def start(*flags: str) -> tuple[int, list[str], str]:
        return run(
            "--scheduler-name=startup-errors",
            "--leader-elect=false",
            f"--kubeconfig={local_cluster.kubeconfig_path}",
            *flags,
            cwd=tmp_path,
        )

    return start


def test_kubeconfig_that_is_not_yaml(tmp_path: Path) -> None:
    (tmp_path / "kubeconfig").write_text("{{{ not: yaml: [\n")
    result = run("--scheduler-name=x", f"--kubeconfig={tmp_path / 'kubeconfig'}", cwd=tmp_path)
    assert_one_line(result, "is not valid YAML (line ", "fix the file or pass --kubeconfig")


def test_kubeconfig_alias_bomb(tmp_path: Path) -> None:
    (tmp_path / "kubeconfig").write_text(BOMB)
    result = run("--scheduler-name=x", f"--kubeconfig={tmp_path / 'kubeconfig'}", cwd=tmp_path)
    assert_one_line(result, "excessive aliasing")


def test_config_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    (tmp_path / "config.yaml").write_text(header + BOMB)
    result = run(f"--config={tmp_path / 'config.yaml'}", cwd=tmp_path)
    assert_one_line(result, "config.yaml: refused: excessive aliasing")


def test_explain_alias_bomb_is_refused(tmp_path: Path, local_cluster: LocalCluster) -> None:
    (tmp_path / "pod.yaml").write_text(BOMB)
    code, _, output = run(
        "explain",
        "-f",
        str(tmp_path / "pod.yaml"),
        f"--kubeconfig={local_cluster.kubeconfig_path}",
        cwd=tmp_path,
    )
    assert code != 0
    assert "Traceback" not in output
    assert "MemoryError" not in output
    assert "pod.yaml: refused: excessive aliasing" in output


def test_write_config_to_a_missing_directory(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "config.yaml"
    result = run("--scheduler-name=x", f"--write-config-to={target}", cwd=tmp_path)
    assert_one_line(result, "--write-config-to", f"create {target.parent} first")


def test_empty_lease_name_is_refused(tmp_path: Path) -> None:
    result = run("--scheduler-name=x", "--leader-elect-resource-name=", cwd=tmp_path)
    assert_one_line(result, "--leader-elect-resource-name: must not be empty")


@pytest.mark.parametrize(
    ("master", "shown"),
    [("htp:/nowhere", "'htp:/nowhere'"), ("https://exa mple:6443", "'https://exa mple:6443'")],
)
def test_malformed_master_url(tmp_path: Path, master: str, shown: str) -> None:
    result = run("--scheduler-name=x", f"--master={master}", cwd=tmp_path, env={"HOME": "/none"})
    assert_one_line(result, f"--master {shown} is not a valid API server URL", "https://HOST")
    assert "cannot reach" not in result[1][0]


def test_rejected_token_is_named_as_such(tmp_path: Path, local_cluster: LocalCluster) -> None:
    config = yaml.safe_load(local_cluster.kubeconfig_path.read_text())
    config["users"][0]["user"] = {"token": "forged-token"}
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(config))
    result = run("--scheduler-name=x", f"--kubeconfig={tmp_path / 'kubeconfig'}", cwd=tmp_path)
    assert_one_line(result, "rejected kubesched's credentials (401 Unauthorized)", "--kubeconfig")
    assert "cannot reach" not in result[1][0]


def test_serving_certificate_flags(serve: Serve, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    (tmp_path / "a-file").write_text("x")
    port = f"--secure-port={free_port()}"
    assert_one_line(
        serve(
            port, f"--tls-cert-file={tmp_path / 'absent.crt'}", f"--tls-private-key-file={garbage}"
        ),
        "absent.crt does not exist",
    )
    assert_one_line(
        serve(port, f"--tls-cert-file={garbage}", f"--tls-private-key-file={garbage}"),
        "pass a PEM certificate and its matching PEM private key",
    )
    assert_one_line(
        serve(port, f"--tls-cert-file={garbage}"), "--tls-cert-file needs --tls-private-key-file"
    )
    assert_one_line(serve(port, f"--cert-dir={tmp_path / 'a-file'}"), "a-file is not a directory")


def test_port_in_use_and_foreign_bind_address(serve: Serve) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_one_line(
            serve(f"--secure-port={port}", "--bind-address=127.0.0.1"),
            f"--secure-port={port}: 127.0.0.1:{port} is already in use",
        )
    assert_one_line(
        serve(f"--secure-port={free_port()}", "--bind-address=192.0.2.10"),
        "--bind-address=192.0.2.10: cannot listen there",
    )


def test_plugin_module_calling_sys_exit(tmp_path: Path, local_cluster: LocalCluster) -> None:
    (tmp_path / "exiting_plugin.py").write_text("import sys\nsys.exit(3)\n")
    result = run(
        "--scheduler-name=x",
        f"--kubeconfig={local_cluster.kubeconfig_path}",
        "--plugin-module=exiting_plugin",
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert_one_line(result, "--plugin-module exiting_plugin: cannot import it: SystemExit")


CANCELLING_PLUGIN = """
import asyncio


class Cancelling:
    name = "Cancelling"

    def __init__(self, *, args, handle):
        pass

    def filter(self, state, pod, node_info):
        raise asyncio.CancelledError("a plugin bug")


def register(registry):
    registry.register_class(Cancelling)
"""


def test_plugin_module_raising_cancelled_error_at_import(
    tmp_path: Path, local_cluster: LocalCluster
) -> None:
    (tmp_path / "cancel_plugin.py").write_text("import asyncio\nraise asyncio.CancelledError\n")
    result = run(
        "--scheduler-name=x",
        f"--kubeconfig={local_cluster.kubeconfig_path}",
        "--plugin-module=cancel_plugin",
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert_one_line(result, "--plugin-module cancel_plugin: cannot import it: CancelledError")


def test_filter_raising_cancelled_error_costs_a_retry(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    (tmp_path / "cancelling_plugin.py").write_text(textwrap.dedent(CANCELLING_PLUGIN))
    config = write_config(
        tmp_path / "config.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=[
            {
                "schedulerName": "cancelling",
                "plugins": {"filter": {"enabled": [{"name": "Cancelling"}]}},
            }
        ],
    )
    proc = kubesched(
        f"--config={config}",
        "--plugin-module=cancelling_plugin",
        extra_env={"PYTHONPATH": str(tmp_path)},
    )
    api.create(make_node().name("n1").obj())
    api.create(make_pod().name("p").namespace(namespace).scheduler("cancelling").obj())
    pod = wait_for(
        lambda: api.get("Pod", "p", namespace=namespace),
        until=lambda p: (condition(p, "PodScheduled") or {}).get("reason") == "SchedulerError",
        message="the pod whose Filter raised CancelledError is reported, not silently dropped",
    )
    assert "CancelledError" in (condition(pod, "PodScheduled") or {})["message"]
    assert proc.running()


def test_master_without_kubeconfig_verifies_the_server(
    tmp_path: Path, local_cluster: LocalCluster
) -> None:
    """As client-go: `--master=https://...` alone trusts only the system's CAs, so the test
    cluster's self-signed serving certificate is refused before any scheduling request."""
    result = run(
        "--scheduler-name=x",
        "--leader-elect=false",
        f"--master={local_cluster.server}",
        cwd=tmp_path,
        env={"HOME": str(tmp_path)},
    )
    assert_one_line(result, "presented a certificate that is not trusted", "certificate-authority")
