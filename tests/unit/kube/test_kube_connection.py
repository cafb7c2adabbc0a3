"""Connection loading: `--master=https://...` without a kubeconfig verifies TLS like client-go."""

from __future__ import annotations

import ssl
from pathlib import Path

from kubesched.kube.connection import load_connection


async def test_master_https_without_kubeconfig_verifies_the_server(tmp_path: Path) -> None:
    connection = await load_connection(
        master="https://203.0.113.7:6443", environ={"KUBECONFIG": str(tmp_path / "absent")}
    )
    assert connection.server == "https://203.0.113.7:6443"
    context = connection.ssl_context
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


async def test_insecure_skip_tls_verify_in_a_kubeconfig_is_honoured(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://203.0.113.7:6443', "
        "insecure-skip-tls-verify: true}}]\n"
        "users: [{name: u, user: {token: t}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
    )
    connection = await load_connection(kubeconfig=str(kubeconfig), environ={})
    assert connection.ssl_context is False
